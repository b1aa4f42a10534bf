// An address as an MCP tool and resource (docs/mcp.md): its name from its path, its description
// from p (and m), its inputSchema the form itself, its title, annotations and icons as the address
// declares them, each where the request's revision has it. Built once per edition and kept with it.
import type { Edition } from '../address/address.ts'
import { titleOf } from '../sentence.ts'
import { GPT_ERR_MCP_TOOL_NAME } from '../errors.ts'
import { isObject, type Json, type JsonObject } from '../json/value.ts'
import { APPLICATORS } from '../json/applicators.ts'
import { HANDLE_SCHEMA } from '../jobs/run.ts'
import type { Hosted } from './registry.ts'
import type { Shapes } from './revision.ts'
import { hasView, viewUri } from './view.ts'

/** MCP's tool name rules (2025-11-25, "Tool names"): 1 to 128 of these characters. */
const NAME = /^[A-Za-z0-9_.-]{1,128}$/

/** The tool name of the address at `path`: its segments joined by `_`, other characters `_`; `/` is `root`. */
export function toolName (path: string): string {
  const name = path.replace(/^\/+|\/+$/g, '').replace(/[^A-Za-z0-9_.-]/g, '_')
  return name === '' ? 'root' : name
}

/** Checks the names of the host's tools when it is ready: each valid, no two the same. */
export function checkNames (named: ReadonlyArray<{ readonly path: string, readonly name: string }>, where: string): void {
  const seen = new Map<string, string>()
  for (const { path, name } of named) {
    if (!NAME.test(name)) throw new GPT_ERR_MCP_TOOL_NAME(where, `the tool name "${name}" of the address ${path} is not 1 to 128 of A-Z a-z 0-9 _ . -`)
    const other = seen.get(name)
    if (other !== undefined) throw new GPT_ERR_MCP_TOOL_NAME(where, `the addresses ${other} and ${path} would both be the tool "${name}": give one a toolName of its own`)
    seen.set(name, path)
  }
}

/** One address's tool, as tools/list sends it under each revision, and how a call's arguments hold its body. */
export interface Tool {
  /** The tool's JSON in tools/list, as `shapes`' revision has it. */
  json (shapes: Shapes): string
  /** Whether the form was wrapped: the body is the arguments' `value`. */
  readonly wrapped: boolean
  /** With a result form, how structuredContent holds a result: as it is (an object root), or as `value`. */
  readonly output: 'none' | 'as is' | 'wrapped'
}

/**
 * The tool of `edition` (draft §3.2's p, m and s, and what the address declares of itself:
 * title, annotations, icons). MCP requires an object form (`inputSchema.type` "object"): any
 * other is wrapped as the one member `value` of one, its `$ref`s moved with it. Each revision's
 * JSON is made once, when first listed.
 */
export function buildTool (edition: Edition, name: string, hosted: Hosted): Tool {
  const { form, prompt, messages } = edition.content
  const { settings } = hosted
  const wrapped = form['type'] !== 'object'
  const title = titleOf(settings.title, prompt)
  const idempotent = settings.idempotency !== undefined
  const meta = {
    'fastify-gpt/address': hosted.path,
    'fastify-gpt/etag': edition.arrival.json.etag,
    ...(idempotent ? { 'fastify-gpt/idempotency': true } : {}),
    // MCP Apps, "Resource Discovery": the view a host shows for the tool (src/mcp/view.ts).
    ...(hasView(hosted) ? { ui: { resourceUri: viewUri(name) } } : {})
  }
  const result = settings.result?.schema
  const made = new Map<Shapes, string>()
  const json = (shapes: Shapes): string => {
    let text = made.get(shapes)
    if (text === undefined) {
      // 2025-03-26 has the title only as annotations.title; later ones as the tool's own.
      const annotations = { ...(shapes.title || title === undefined ? {} : { title }), ...settings.annotations }
      text = JSON.stringify({
        name,
        ...(shapes.title && title !== undefined ? { title } : {}),
        description: describe(prompt, messages),
        inputSchema: wrapped ? wrap(form) : form,
        // Until 2026-07-28 an outputSchema is an object's; from it, any schema: the result form as it is.
        ...(shapes.structured && result !== undefined ? { outputSchema: outputSchema(result, hosted.background !== undefined, !shapes.structuredAny) } : {}),
        ...(shapes.annotations && Object.keys(annotations).length > 0 ? { annotations } : {}),
        ...(shapes.icons && settings.icons !== undefined ? { icons: settings.icons } : {}),
        // 2025-11-25, "Tool-Level Negotiation": a call may be a task, whose task is the job (the
        // 2026-07-28 extension has no tool-level declaration: the server decides per call).
        ...(shapes.tasks === 'core' && hosted.background !== undefined ? { execution: { taskSupport: 'optional' } } : {}),
        ...(shapes.meta ? { _meta: meta } : {})
      })
      made.set(shapes, text)
    }
    return text
  }
  return { json, wrapped, output: settings.result === undefined ? 'none' : settings.result.schema['type'] === 'object' ? 'as is' : 'wrapped' }
}

/** p, then m as JSON when there is any: an MCP client shows a model the description, and nothing else of the tool. */
function describe (prompt: string, messages: readonly unknown[]): string {
  return messages.length === 0 ? prompt : `${prompt}\n\nPrior messages (m), as JSON: ${JSON.stringify(messages)}`
}

/**
 * `{ type: "object", properties: { value: form }, required: ["value"], additionalProperties: false }`.
 * A `$ref` by JSON Pointer from the form's root (`#`, `#/...`) points into `value` now; one inside
 * a subschema with its own `$id` is relative to that, and a form with an `$id` of its own is its
 * own resource still, so neither changes. `$schema` goes to the new root, where 2020-12 allows it.
 */
export function wrap (form: JsonObject): JsonObject {
  const { $schema, moved } = nest(form, '#/properties/value')
  return {
    ...($schema === undefined ? {} : { $schema }),
    type: 'object',
    properties: { value: moved },
    required: ['value'],
    additionalProperties: false
  }
}

/**
 * A tool's outputSchema: the result form, wrapped as a form is where its root is not an object
 * and `objects` says an outputSchema must be one (structuredContent is then `{ value: result }`);
 * with `background`, either that or a job's handle, which answers an act that outlives `after` and
 * is no result.
 */
export function outputSchema (result: JsonObject, background: boolean, objects: boolean): JsonObject {
  const output = result['type'] === 'object' || !objects ? result : wrap(result)
  if (!background) return output
  const { $schema, moved } = nest(output, '#/anyOf/0')
  return { ...($schema === undefined ? {} : { $schema }), ...(objects ? { type: 'object' } : {}), anyOf: [moved, HANDLE_SCHEMA] }
}

/** `schema` to stand at `into` under a new root: its root `$ref`s moved there, its `$schema` left for the new root. */
function nest (schema: JsonObject, into: string): { readonly $schema: Json | undefined, readonly moved: JsonObject } {
  const { $schema, ...rest } = schema
  return { $schema, moved: typeof schema['$id'] === 'string' ? schema : moveRefs(rest, into) as JsonObject }
}

/** A copy of `schema` with its root `$ref`s moved to `into`; subschemas with an `$id` as they are. */
function moveRefs (schema: Json, into: string): Json {
  if (!isObject(schema)) return schema
  const out: Record<string, Json> = {}
  for (const [key, value] of Object.entries(schema)) {
    if ((key === '$ref' || key === '$dynamicRef') && typeof value === 'string' && (value === '#' || value.startsWith('#/'))) {
      out[key] = into + value.slice(1)
      continue
    }
    const kind = APPLICATORS.get(key)
    out[key] = kind === undefined ? value : applied(kind.shape, value, into)
  }
  return out
}

function applied (shape: 'one' | 'list' | 'map', value: Json, into: string): Json {
  const under = (sub: Json): Json => isObject(sub) && typeof sub['$id'] === 'string' ? sub : moveRefs(sub, into)
  if (shape === 'one') return under(value)
  if (shape === 'list') return Array.isArray(value) ? value.map(under) : value
  return isObject(value) ? Object.fromEntries(Object.entries(value).map(([name, sub]) => [name, under(sub)])) : value
}
