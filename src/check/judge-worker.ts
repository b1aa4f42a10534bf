// The independent validator at work, in a thread of its own: judge.ts gives it one form, then
// values, and waits a bounded time for each verdict. A form can make any validator that follows
// it by recursion or backtracking slow (a pattern like `^([a-z]+)+[0-9]$`, unions of recursive
// $refs); here such a form costs a thread the checker ends, never the checker itself.
import { parentPort, workerData } from 'node:worker_threads'
import type { MessagePort } from 'node:worker_threads'
import { Validator, type OutputUnit, type Schema } from '@cfworker/json-schema'
import { META_SCHEMAS } from './meta-schema.ts'
import type { FormSummary } from './types.ts'
import type { DecoderName, Finding } from '../lint/index.ts'

const META_ID = 'https://json-schema.org/draft/2020-12/schema'

/**
 * The validator has no $dynamicRef; in the meta-schemas every `{"$dynamicRef": "#meta"}` lands on
 * the 2020-12 meta-schema itself (no vocabulary extends it here), so a plain $ref is the same check.
 */
function staticRefs (value: unknown): unknown {
  if (Array.isArray(value)) return value.map(staticRefs)
  if (value === null || typeof value !== 'object') return value
  const object = value as Record<string, unknown>
  if (object['$dynamicRef'] === '#meta') return { $ref: META_ID }
  return Object.fromEntries(Object.entries(object).map(([key, member]) => [key, staticRefs(member)]))
}

// Keywords whose failure only says that one of their subschemas failed.
const WRAPPERS = new Set(['properties', 'patternProperties', 'items', 'prefixItems', 'allOf', '$ref', 'false',
  'dependentSchemas', 'if', 'then', 'else', 'contains', 'unevaluatedProperties', 'unevaluatedItems', 'propertyNames'])

export type Message = { readonly kind: 'hello' } | { readonly kind: 'form', readonly form: object } | { readonly kind: 'judge', readonly value: unknown } | { readonly kind: 'lint' }
  | { readonly kind: 'findings', readonly decoders: readonly DecoderName[] }
export type Reply =
  | { readonly kind: 'ready' }
  | { readonly kind: 'lint', readonly summary: FormSummary }
  | { readonly kind: 'form', readonly problem?: string }
  | { readonly kind: 'verdict', readonly valid: boolean, readonly keywords: readonly string[], readonly locations: readonly string[] }
  | { readonly kind: 'findings', readonly findings: readonly Finding[] }
  | { readonly kind: 'error', readonly message: string }

let validator: Validator | undefined
let meta: Validator | undefined
let form: object | undefined

// the linter, loaded when first asked for: its word on s is advice, and costs what the form makes it cost
const here = import.meta.url
const LINT = new URL(here.endsWith('.ts') ? '../lint/index.ts' : '../lint/index.js', here).href

async function summary (): Promise<Reply> {
  const { decoderProfiles, lint, runtimeVerdicts } = await import(LINT) as typeof import('../lint/index.ts')
  const findings = lint(form)
  const count = (severity: string): number => findings.filter((f) => f.severity === severity).length
  const versions = new Map(decoderProfiles().map(({ decoder, version }) => [decoder, version]))
  const runtimes = runtimeVerdicts(findings).map((verdict) => ({ ...verdict, version: versions.get(verdict.decoder as DecoderName) as string }))
  return { kind: 'lint', summary: { errors: count('error'), warnings: count('warning'), runtimes } }
}

async function answer (message: Message): Promise<Reply> {
  if (message.kind === 'hello') return { kind: 'ready' }
  if (message.kind === 'lint') return summary()
  if (message.kind === 'findings') {
    const { lint } = await import(LINT) as typeof import('../lint/index.ts')
    return { kind: 'findings', findings: lint(form, { decoders: message.decoders }) }
  }
  if (message.kind === 'form') {
    validator = undefined
    form = message.form
    if (meta === undefined) {
      const [top, ...vocabularies] = META_SCHEMAS.map((text) => staticRefs(JSON.parse(text)) as Schema)
      meta = new Validator(top as Schema, '2020-12', false)
      for (const vocabulary of vocabularies) meta.addSchema(vocabulary)
    }
    const { valid, errors } = meta.validate(message.form)
    validator = new Validator(message.form as Schema, '2020-12', false)
    if (valid) return { kind: 'form' }
    const leaf = errors[errors.length - 1] as OutputUnit
    return { kind: 'form', problem: `${leaf.instanceLocation}: ${leaf.error}` }
  }
  const { valid, errors } = (validator as Validator).validate(message.value)
  const keywords = errors.map((e) => e.keyword).filter((k) => !WRAPPERS.has(k))
  return { kind: 'verdict', valid, keywords: [...new Set(keywords)], locations: [...new Set(errors.map((e) => e.keywordLocation.replace(/^#/, '')))] }
}

const { port, flag } = workerData as { port: MessagePort, flag: Int32Array }
port.on('message', async (message: Message) => {
  let reply: Reply
  try {
    reply = await answer(message)
  } catch (error) {
    // a stack overflow or a $ref the validator cannot follow: no verdict, said so
    reply = { kind: 'error', message: error instanceof Error ? error.message : String(error) }
  }
  port.postMessage(reply)
  Atomics.store(flag, 0, 1)
  Atomics.notify(flag, 0)
})
parentPort?.unref()
