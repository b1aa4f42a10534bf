import { APPLICATORS } from '../json/applicators.ts'
import { escape } from '../json/pointer.ts'
import { isObject } from '../json/value.ts'
import { admitted, BASES, type Form } from './act.ts'
import { bytes, duplicated, invalidUtf8 } from './bytes.ts'
import { held, printable, type Answer } from './client.ts'
import type { Generated } from './generate.ts'
import { callRequest, replyOf, unlike, type Connected, type Exchanger, type Reply } from './mcp.ts'
import { nearMisses, type NearMisses } from './near-miss.ts'
import { acted, type Results } from './results.ts'
import type { McpReport } from './types.ts'

// An MCP bridge against the address's own POST (docs/checking.md, "An MCP bridge"): the tool's
// inputSchema is s (or s wrapped as the one member `value`), and the same bodies, sent once as a
// POST and once as a tools/call, are acted on and refused alike. A body that is neither stays
// unjudged: the draft's rules are POST's; the bridge is held to what POST does and s says.

/** Most values s admits sent both ways (each twice an act), whatever `acts` asks. */
export const MCP_ACTS = 10

const JSON_TYPE = { 'content-type': 'application/json' }
const INTO = '#/properties/value'

/** What the nodes of a form hold: a schema, a list or a map of schemas, or plain JSON (const, enum, default...). */
type Kind = 'schema' | 'list' | 'map' | 'data'

const below = (at: string, key: string | number): string => `${at}/${escape(String(key))}`

/** The JSON Pointer a `$ref` names by its fragment, percent-decoded; undefined for another. */
function pointerOf (ref: unknown): string | undefined {
  if (typeof ref !== 'string' || !ref.startsWith('#')) return undefined
  try {
    return decodeURIComponent(ref.slice(1))
  } catch {
    return undefined
  }
}

/**
 * Where `got` differs from `want`, as a JSON Pointer into `got` ('' its root), or undefined when
 * they are the same JSON (members in any order). With `moved`, `want`'s `$ref`s by JSON Pointer
 * from its root are expected to point into `value` (`#/x` is `#/properties/value/x`), except in
 * a subschema with an `$id` of its own. A loop: s may be as deep as the checker reasons about.
 */
export function differs (got: unknown, want: unknown, moved: boolean, at = ''): string | undefined {
  const stack: [unknown, unknown, Kind, boolean, string][] = [[got, want, 'schema', moved, at]]
  while (stack.length > 0) {
    const [a, b, kind, move, where] = stack.pop() as [unknown, unknown, Kind, boolean, string]
    if (b === null || typeof b !== 'object') {
      if (a !== b) return where
      continue
    }
    if (a === null || typeof a !== 'object' || Array.isArray(a) !== Array.isArray(b)) return where
    if (Array.isArray(b)) {
      const list = a as unknown[]
      if (list.length !== b.length) return where
      b.forEach((item, i) => stack.push([list[i], item, kind === 'list' ? 'schema' : 'data', move, below(where, i)]))
      continue
    }
    const object = a as Record<string, unknown>
    const keys = Object.keys(b)
    const extra = Object.keys(object).find((key) => !Object.hasOwn(b, key))
    if (extra !== undefined) return below(where, extra)
    for (const key of keys) {
      const value = (b as Record<string, unknown>)[key]
      if (!Object.hasOwn(object, key)) return below(where, key)
      if (kind === 'schema' && move && (key === '$ref' || key === '$dynamicRef') && typeof value === 'string' && (value === '#' || value.startsWith('#/'))) {
        // the same pointer, written as s writes it or percent-encoded otherwise
        const pointer = pointerOf(value)
        const same = object[key] === INTO + value.slice(1) || (pointer !== undefined && pointerOf(object[key]) === INTO.slice(1) + pointer)
        if (!same) return below(where, key)
        continue
      }
      const shape = kind === 'map' ? 'one' : kind === 'schema' ? APPLICATORS.get(key)?.shape : undefined
      const next: Kind = shape === undefined ? 'data' : shape === 'one' ? 'schema' : shape
      // a subschema with an `$id` of its own is a resource: its `$ref`s resolve against it, unmoved
      const own = next === 'schema' && isObject(value) && typeof value['$id'] === 'string'
      stack.push([object[key], value, next, move && !own, below(where, key)])
    }
  }
  return undefined
}

const WRAPPER = new Set(['$schema', 'type', 'properties', 'required', 'additionalProperties'])

/** Where `input` differs from s wrapped as the one member `value` of an object, or undefined when it is that wrapper. */
function unwrapped (input: unknown, s: Readonly<Record<string, unknown>>): string | undefined {
  if (!isObject(input)) return ''
  const extra = Object.keys(input).find((key) => !WRAPPER.has(key))
  if (extra !== undefined) return below('', extra)
  if (input['$schema'] !== undefined && input['$schema'] !== s['$schema']) return '/$schema'
  if (input['type'] !== 'object') return '/type'
  if (input['additionalProperties'] !== false) return '/additionalProperties'
  if (differs(input['required'], ['value'], false) !== undefined) return '/required'
  const properties = input['properties']
  if (!isObject(properties) || Object.keys(properties).length !== 1 || !Object.hasOwn(properties, 'value')) return '/properties'
  // the form's `$schema` may stay in it or move up to the wrapper; a form with an `$id` is a resource, unmoved
  const { $schema, ...rest } = s
  const value = properties['value']
  return differs(value, isObject(value) && Object.hasOwn(value, '$schema') ? s : rest, typeof s['$id'] !== 'string', '/properties/value')
}

/** Whether a tool's inputSchema is s, or s wrapped: how its calls hold the body, and what is wrong, if anything. */
export function inputSchemaOf (input: unknown, s: Readonly<Record<string, unknown>>): { readonly wrapped: boolean, readonly why?: string } {
  const object = s['type'] === 'object'
  const same = differs(input, s, false)
  if (same === undefined) {
    return object ? { wrapped: false } : { wrapped: false, why: 'the inputSchema is s itself, whose root is not "type": "object" as MCP requires of an inputSchema: wrap it as the one member value' }
  }
  const wrapper = unwrapped(input, s)
  if (wrapper === undefined) return { wrapped: true }
  return object
    ? { wrapped: false, why: `the inputSchema is not s: it differs at ${same || 'the root'}` }
    : { wrapped: true, why: `the inputSchema is neither s nor s wrapped as the one member value: it differs from the wrapper at ${wrapper || 'the root'}` }
}

/** A body sent both ways: to POST, and as tools/call; whether s admits it. */
interface Pair {
  readonly body: Uint8Array
  readonly admitted: boolean
  readonly post: Answer
  readonly call: Answer
  readonly reply: Reply
}

const isError = (reply: Reply): boolean => reply.kind !== 'result' || !isObject(reply.result) || reply.result['isError'] === true
/** Whether a pair's call was acted on: a result without `isError`. */
const callActed = (pair: Pair): boolean => !isError(pair.reply)
const postActed = (pair: Pair): boolean => pair.post.response !== undefined && acted(pair.post.response)
/** A pair the checker held back on (its budget or time spent, a rate limit outlasting its patience): it shows nothing. */
const unsent = (pair: Pair): boolean => held(pair.post) || held(pair.call)

/** How a pair's two answers went, in words. */
function told (pair: Pair): string {
  const post = pair.post.response === undefined ? `POST got ${pair.post.unanswered ?? ''}` : `POST answered ${pair.post.response.status}`
  const call = callActed(pair) ? 'tools/call acted on it' : `tools/call refused it (${pair.reply.kind === 'result' ? 'isError' : unlike(pair.reply)})`
  return `${post}, ${call}`
}

/** Bodies s refuses: a near-miss per keyword, and the bodies no strict parser takes that can sit in a call's arguments. */
function refusedBodies (values: readonly Generated[], s: Extract<Form, { form: object }>): Uint8Array[] {
  const misses: NearMisses = { found: [], beyond: new Map() }
  for (const generated of values.slice(0, BASES + 2)) nearMisses(generated, s.judge.admits, 1, misses)
  const texts = new Set<string>()
  const keywords = new Set<string>()
  for (const miss of misses.found) {
    if (keywords.has(miss.keyword)) continue
    keywords.add(miss.keyword)
    texts.add(JSON.stringify(miss.value))
  }
  const first = <T>(build: (value: unknown) => T | undefined): T[] => {
    for (const { value } of values) {
      const built = build(value)
      if (built !== undefined) return [built]
    }
    return []
  }
  const strings = [...texts, ...first((value) => duplicated(value, 'same', false)), ...first((value) => duplicated(value, 'same', true)),
    ...first((value) => duplicated(value, 'escaped', false))]
  return [...[...new Set(strings)].map(bytes), ...first((value) => invalidUtf8(value, s.judge.admits))]
}

/**
 * The checks of the section MCP, once the tool is found (MCP-tool) and the address's arrival read:
 * MCP-input-schema, then each body sent as POST and as tools/call, refused ones first.
 */
export async function agree (
  toAddress: Exchanger,
  toBridge: Exchanger,
  results: Results,
  s: Form,
  connected: Connected,
  options: { readonly acts: number, readonly seed: number, readonly url: string }
): Promise<McpReport> {
  const { session, tool } = connected
  const base = { url: options.url, protocolVersion: session.protocolVersion }
  results.pass('MCP-tool')
  const ids = ['MCP-input-schema', 'MCP-refused', 'MCP-admitted', 'MCP-answer', 'MCP-uniform']
  const { form } = s
  const why = form === undefined ? s.none : s.judge.why
  if (form === undefined || why !== undefined) {
    for (const id of ids) results.skip(id, why as string)
    return { ...base, tool: { name: tool.name, by: tool.by }, sent: { refused: 0, admitted: 0 }, disagreed: 0 }
  }
  const schema = inputSchemaOf(tool.inputSchema, form as Record<string, unknown>)
  if (schema.why === undefined) results.pass('MCP-input-schema')
  else results.fail('MCP-input-schema', schema.why, [tool.listed])

  const wanted = Math.min(options.acts, MCP_ACTS)
  const { values } = admitted(form, s.judge.admits, Math.max(BASES, wanted), options.seed)
  const pairs: Pair[] = []
  const send = async (body: Uint8Array, admits: boolean): Promise<void> => {
    const post = await toAddress({ method: 'POST', headers: JSON_TYPE, body })
    const id = session.id++
    const call = await toBridge(callRequest(session, id, tool.name, schema.wrapped, body))
    pairs.push({ body, admitted: admits, post, call, reply: replyOf(call, id) })
  }
  for (const body of refusedBodies(values, s)) await send(body, false)
  for (const { value } of values.slice(0, wanted)) await send(bytes(JSON.stringify(value)), true)

  const refused = pairs.filter((pair) => !pair.admitted)
  const admits = pairs.filter((pair) => pair.admitted)
  concludeRefused(results, refused, values.length === 0 ? (s.judge.why ?? 'no value that s admits could be generated to build a body from') : undefined)
  concludeAdmitted(results, admits, options.acts, values.length)
  answers(results, admits)
  const refusal = uniform(results, pairs)
  return {
    ...base,
    tool: { name: tool.name, by: tool.by, wrapped: schema.wrapped },
    sent: { refused: refused.length, admitted: admits.length },
    disagreed: pairs.filter((pair) => !unsent(pair) && postActed(pair) !== callActed(pair)).length,
    ...(refusal === undefined ? {} : { refusal })
  }
}

/** MCP-refused: a body s refuses (or no strict parser takes) is refused by tools/call, as by POST. */
function concludeRefused (results: Results, pairs: readonly Pair[], none: string | undefined): void {
  const sent = pairs.filter((pair) => !unsent(pair))
  if (pairs.length === 0) return results.skip('MCP-refused', none ?? 'no body that s refuses could be built')
  if (sent.length === 0) return results.skip('MCP-refused', (pairs[0] as Pair).call.unanswered ?? (pairs[0] as Pair).post.unanswered as string)
  const wrong = sent.filter((pair) => callActed(pair) || postActed(pair))
  if (wrong.length === 0) return results.pass('MCP-refused')
  const first = wrong[0] as Pair
  const what = callActed(first) && postActed(first)
    ? 'tools/call acted on a body s refuses, as POST did'
    : callActed(first) ? 'tools/call acted on a body s refuses, where POST refused it' : 'POST acted on a body s refuses, where tools/call refused it'
  results.fail('MCP-refused', `${what}: ${printable(first.body)} (${told(first)})${wrong.length > 1 ? ` (${wrong.length} such bodies)` : ''}`, [first.post, first.call])
}

/** MCP-admitted: with acts, a value s admits is acted on by tools/call, as by POST. */
function concludeAdmitted (results: Results, pairs: readonly Pair[], acts: number, generated: number): void {
  if (acts === 0) return results.skip('MCP-admitted', 'sends acts: run with acts (--acts N)')
  if (generated === 0) return results.skip('MCP-admitted', 'no value that s admits could be generated')
  const sent = pairs.filter((pair) => !unsent(pair))
  if (sent.length === 0) return results.skip('MCP-admitted', (pairs[0] as Pair).call.unanswered ?? (pairs[0] as Pair).post.unanswered as string)
  const wrong = sent.filter((pair) => !callActed(pair) || !postActed(pair))
  if (wrong.length === 0) return results.pass('MCP-admitted')
  const first = wrong[0] as Pair
  const what = !callActed(first) && !postActed(first)
    ? 'neither POST nor tools/call acted on a value s admits'
    : postActed(first) ? 'tools/call refused a value s admits that POST acted on' : 'POST refused a value s admits that tools/call acted on'
  results.fail('MCP-admitted', `${what}: ${printable(first.body)} (${told(first)})${wrong.length > 1 ? ` (${wrong.length} such values)` : ''}`, [first.post, first.call])
}

const decoder = new TextDecoder()
const same = (a: Uint8Array, b: Uint8Array): boolean => a.length === b.length && a.every((byte, i) => byte === b[i])

/** What is wrong with an act's result, if anything: a text content holding JSON, and the POST answer's bytes where POST echoes the body. */
function wrongResult (pair: Pair): string | undefined {
  const result = (pair.reply as Extract<Reply, { kind: 'result' }>).result as Record<string, unknown>
  const content = Array.isArray(result['content']) ? result['content'] : []
  const texts = content.filter((item): item is { type: 'text', text: string } => isObject(item) && item['type'] === 'text' && typeof item['text'] === 'string')
  const text = texts.at(-1)?.text
  if (text === undefined) return 'the result has no text content'
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return 'its text content is not JSON'
  }
  if ('structuredContent' in result && differs(result['structuredContent'], value, false) !== undefined) return 'its structuredContent is not the JSON of its text content'
  const { response } = pair.post
  // an act that answers POST with the body it was given shows what the call's text must be
  if (response !== undefined && response.status === 200 && same(response.body, pair.body) && text !== decoder.decode(response.body)) {
    return `POST echoed the body, ${printable(response.body)}, but the call's text is ${printable(new TextEncoder().encode(text))}`
  }
  return undefined
}

/** MCP-answer: an act's result is its JSON as text, and where POST echoes the body, those very bytes. */
function answers (results: Results, pairs: readonly Pair[]): void {
  const taken = pairs.filter((pair) => callActed(pair) && postActed(pair))
  if (taken.length === 0) return results.skip('MCP-answer', 'no value was acted on both ways: run with acts (--acts N)')
  for (const pair of taken) {
    const wrong = wrongResult(pair)
    if (wrong !== undefined) return results.fail('MCP-answer', `${wrong} (the act of ${printable(pair.body)})`, [pair.post, pair.call])
  }
  results.pass('MCP-answer')
}

/** MCP-uniform: every refused call is answered alike, the same result byte for byte. Returns the first, printable. */
function uniform (results: Results, pairs: readonly Pair[]): string | undefined {
  const refused = pairs.filter((pair) => pair.call.response !== undefined && !callActed(pair))
  const [first] = refused
  if (first === undefined) {
    results.skip('MCP-uniform', 'no call was refused')
    return undefined
  }
  const shown = (pair: Pair): string => pair.reply.kind === 'result' ? printable(pair.reply.bytes) : unlike(pair.reply)
  const alike = (pair: Pair): boolean => pair.call.response?.status === first.call.response?.status && (pair.reply.kind === 'result'
    ? first.reply.kind === 'result' && same(pair.reply.bytes, first.reply.bytes)
    : first.reply.kind !== 'result' && shown(pair) === shown(first))
  const other = refused.find((pair) => !alike(pair))
  if (other === undefined) results.pass('MCP-uniform')
  else {
    const status = (pair: Pair): string => `${pair.call.response?.status ?? ''} ${shown(pair)}`
    results.fail('MCP-uniform', `two refused calls are answered otherwise: ${status(first)} and ${status(other)}`, [first.call, other.call])
  }
  return shown(first)
}
