// The one door to Ajv's internals. The validator uses Ajv through its documented API (options,
// addKeyword, addFormat, compile); where it must reach further, it does so here and only here, so
// that a minor Ajv release that moves one of these is met in one file, and CI runs the validator's
// tests against the newest Ajv 8 (.ci/run) before users meet it. What is touched, and why:
//
// 1. `RULES.keywords` of a fresh instance: every keyword Ajv knows, so that the audit can name an
//    unknown keyword with its place and a likely fix before Ajv compiles anything (knownKeywords).
// 2. `code.process`'s second argument, Ajv's SchemaEnv (`schema`, `baseId`, `root`, `refs`): every
//    subschema a `$ref` made Ajv compile, audited like the rest and searched for in-place cycles
//    (Env, cycles.ts).
// 3. The source `code.process` receives, whose last statement is `return function NAME(`: each
//    compiled function is wrapped in the memory of bounded.ts, for polynomial time (wrapSource).
// 4. The calling convention of the generated functions (data and `{ instancePath, ... }`, then
//    `.errors` and `.evaluated`) and the instance as `self` in their source (GeneratedFunction,
//    installBounded): the wrapper answers for a function exactly as the function would.
// 5. `ajv/dist/compile/resolve.js`'s resolveUrl and `opts.uriResolver`: a `$ref` resolved against
//    its base URI as Ajv resolves it, so the cycle search follows the refs Ajv follows (resolveRef).
// 6. The text of compile errors Ajv throws as a plain Error: strict mode's "unknown keyword" and
//    other "strict mode:" reports, "unknown format ... ignored", "no schema with key or ref". Ajv
//    gives these no class or keyword; MissingRefError is told apart by its class (ajvRefusal).
//    The audit names unknown keywords and formats in schema locations itself, before compiling:
//    this text is read only for a subschema a `$ref` reaches outside them (under "default", say).
import { Ajv2020, MissingRefError, type ErrorObject } from 'ajv/dist/2020.js'
import { resolveUrl } from 'ajv/dist/compile/resolve.js'

/** What Ajv compiled for one `$ref` target (its SchemaEnv), the parts read here. */
export interface Env {
  readonly schema: unknown
  readonly baseId: string
  readonly root: Env
  readonly refs: Readonly<Record<string, unknown>>
}

/** The SchemaEnv that `code.process` passes with a compiled function's source. */
export const envOf = (env: unknown): Env => env as Env

/** A compiled validate function as Ajv's generated code calls it. */
export interface GeneratedFunction {
  (data: unknown, context?: GeneratedContext): boolean
  errors?: ErrorObject[] | null
  evaluated?: { props?: unknown, items?: unknown }
}

/** The second argument of a generated function's calls to another. */
export interface GeneratedContext {
  readonly instancePath: string
}

let known: ReadonlySet<string> | undefined
/** Every keyword Ajv knows (2020-12, with `$anchor`, which it resolves but does not list). */
export const knownKeywords = (): ReadonlySet<string> =>
  (known ??= new Set([...Object.keys(new Ajv2020({ logger: false }).RULES.keywords), '$anchor']))

/**
 * Rewrites the source of one compiled function so that it, and its calls to itself by name, go
 * through `self.bounded` (see installBounded). Throws if the source is not as expected, rather
 * than compile a validator without the bound.
 */
export function wrapSource (source: string, name: string): string {
  const head = `return function ${name}(`
  const at = source.indexOf(head)
  if (at === -1 || source.indexOf(head, at + 1) !== -1) throw new Error(`unexpected validator code for ${name}`)
  return `${source.slice(0, at)}const ${name} = self.bounded(function (${source.slice(at + head.length)});\nreturn ${name}`
}

/** Makes `bounded` the `self.bounded` that wrapped sources call. */
export function installBounded (ajv: Ajv2020, bounded: (inner: GeneratedFunction) => GeneratedFunction): void {
  Object.assign(ajv, { bounded })
}

/** A `$ref` resolved against the base URI of its schema, as Ajv resolves it. */
export function resolveRef (ajv: Ajv2020, baseId: string, ref: string): string {
  return resolveUrl(ajv.opts.uriResolver, baseId, ref)
}

/** What a compile error of Ajv's says, told apart as far as Ajv allows. */
export type AjvRefusal =
  | { readonly kind: 'missing-ref', readonly ref: string }
  | { readonly kind: 'unknown-keyword', readonly detail: string }
  | { readonly kind: 'unknown-format', readonly name: string }
  | { readonly kind: 'strict', readonly detail: string }
  | { readonly kind: 'no-schema', readonly message: string }
  | { readonly kind: 'other', readonly message: string }

export function ajvRefusal (error: unknown): AjvRefusal {
  if (error instanceof MissingRefError) return { kind: 'missing-ref', ref: error.missingRef }
  const message = error instanceof Error ? error.message : String(error)
  if (message.startsWith('strict mode: unknown keyword')) return { kind: 'unknown-keyword', detail: message.slice('strict mode: '.length) }
  if (message.startsWith('unknown format')) return { kind: 'unknown-format', name: /^unknown format "(.*)" ignored/.exec(message)?.[1] ?? message }
  if (message.startsWith('strict mode:')) return { kind: 'strict', detail: message.slice('strict mode: '.length) }
  if (message.startsWith('no schema with key or ref')) return { kind: 'no-schema', message }
  return { kind: 'other', message }
}
