// POST and tools/call agree, body for body, in both eras of MCP (2025-11-25 and 2026-07-28, in
// turn): for every example form of the project (the example host's three, the forms of
// test/fixtures/forms.ts, and forms that hold every keyword the checker builds near-misses for), a thousand bodies each from the checker's own generator and
// judge (values the form admits, near-misses that one keyword refuses) and byte-level changes of
// them (duplicated members, another spacing, escapes, number spellings, bytes after the value,
// invalid UTF-8, a lone surrogate, a number past 2^53, __proto__, nesting around maxDepth, a body
// at and past bodyLimit). Each is sent as a POST and, as the very same bytes, as a tools/call's
// arguments (or their `value`, for a wrapped form), on one host. tools/call acts exactly when POST
// does; the act is handed the same value (sign of zero included); the call's answer is POST's
// JSON as text; every refused call's result is REFUSAL, byte for byte.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import fc from 'fast-check'
import Fastify, { type FastifyInstance } from 'fastify'
import { noteBoard, poll, slow } from '../../example/addresses.js'
import { duplicated, invalidUtf8, padded } from '../../src/check/bytes.ts'
import { generate, random, type Generated } from '../../src/check/generate.ts'
import { Judge } from '../../src/check/judge.ts'
import { KEYWORDS, nearMisses, replace } from '../../src/check/near-miss.ts'
import gpt, { type GptOptions } from '../../src/index.ts'
import mcp, { REFUSAL } from '../../src/mcp/index.ts'
import { blocks, deepest, list, nested, randomForm, shared, unrolled } from '../fixtures/forms.ts'
import { plan } from '../fixtures/plan.ts'
import { noteForm } from '../helpers/host.ts'

/** Bodies per form: the target, met for every form in about 10 s on this machine. */
const PER_FORM = 1000
/** A small body limit, so bodies at it and past it are cheap to build; the bridge's own limit is the largest address's plus its envelope. */
const BODY_LIMIT = 2048
const MAX_DEPTH = 64 // the default

type Form = Readonly<Record<string, unknown>>

interface Case {
  readonly name: string
  readonly form: Form
  /** Whether the checker builds near-misses for it (a form of `not` and `if` alone has no keyword it breaks). */
  readonly misses: boolean
}

// Every keyword of src/check/near-miss.ts KEYWORDS, at least once, so each is broken somewhere.
const keywords: Form = {
  type: 'object',
  properties: {
    word: { type: 'string', minLength: 2, maxLength: 6, pattern: '^[a-z]+$' },
    day: { type: 'string', format: 'date' },
    level: { enum: ['low', 'high'] },
    kind: { const: 'k' },
    n: { type: 'integer', minimum: -3, maximum: 3, multipleOf: 1 },
    ratio: { type: 'number', exclusiveMinimum: -1, exclusiveMaximum: 1 },
    half: { type: 'number', multipleOf: 0.5, minimum: -2, maximum: 2 },
    tags: { type: 'array', items: { type: 'string', maxLength: 3 }, minItems: 1, maxItems: 3, uniqueItems: true },
    bag: { type: 'object', additionalProperties: { type: 'integer' }, minProperties: 1, maxProperties: 2 }
  },
  required: ['word', 'n', 'tags'],
  additionalProperties: false
}

// The plan form of test/page/html.test.ts: its head here, its tail the fixture's.
const planForm: Form = {
  type: 'object',
  properties: {
    title: { type: 'string', minLength: 1, maxLength: 60 },
    count: { type: 'integer', minimum: 1, maximum: 10 },
    urgent: { type: 'boolean' },
    color: { enum: ['red', 'green', 'blue'] },
    kind: { const: 'plan' },
    ...plan.properties
  },
  ...plan.rest
}

const CASES: readonly Case[] = [
  // The example host's addresses (example/host.js registers these three), with acts of this file's.
  { name: 'board', form: noteBoard().form, misses: true },
  { name: 'poll', form: poll().form, misses: true },
  { name: 'slow', form: slow().form, misses: true },
  // The forms of test/fixtures/forms.ts: recursion through $defs, unions, none an object (wrapped).
  { name: 'blocks', form: blocks, misses: true },
  { name: 'unrolled', form: unrolled(4), misses: true },
  { name: 'shared', form: shared(2), misses: true },
  ...fc.sample(randomForm, { seed: 7, numRuns: 2 }).map((form, i) => ({ name: `random${i}`, form, misses: false })),
  // The tests' own forms (test/helpers/host.ts, test/fixtures/plan.ts, test/check/mcp.test.ts).
  { name: 'note', form: noteForm, misses: true },
  { name: 'plan', form: planForm, misses: true },
  { name: 'tags', form: { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'array', items: { $ref: '#/$defs/tag' }, maxItems: 3, $defs: { tag: { enum: ['red', 'blue'] } } }, misses: true },
  // Every keyword the checker's catalogue checks one by one (5.2-form-<keyword>), and other roots.
  { name: 'keywords', form: keywords, misses: true },
  { name: 'number', form: { type: 'number', minimum: -1, maximum: 1 }, misses: true },
  { name: 'text', form: { type: 'string', minLength: 1, maxLength: 12, pattern: '^[a-z ]+$' }, misses: true },
  { name: 'anything', form: {}, misses: false }
]

const wrappedOf = (form: Form): boolean => form['type'] !== 'object'

// ---------------------------------------------------------------------------------------------
// JSON text of a value, written as no JSON.stringify writes it: -0 as -0, a Raw as its text, and
// with a random spacing, random escapes in strings and names, and other spellings of numbers.

/** A token written as given: a number no double holds, another spelling. */
class Raw {
  constructor (readonly text: string) {}
}

interface Style {
  readonly rng?: () => number
  readonly space?: boolean
  readonly escape?: boolean
  readonly numbers?: boolean
}

const SPACES = [' ', '\t', '\n', '\r', '  ', '\r\n']

function write (value: unknown, style: Style = {}): string {
  const { rng = () => 0 } = style
  const ws = (): string => style.space === true && rng() < 0.5 ? (SPACES[Math.floor(rng() * SPACES.length)] as string) : ''
  const string = (text: string): string => {
    if (style.escape !== true) return JSON.stringify(text)
    let out = '"'
    for (const c of text) {
      const plain = JSON.stringify(c).slice(1, -1)
      const roll = rng()
      const hex = c.charCodeAt(0).toString(16).padStart(4, '0')
      if (plain.length !== 1 || roll > 0.4) out += plain // escaped already (or a pair of surrogates), or kept
      else if (c === '/') out += '\\/'
      else out += `\\u${roll < 0.2 ? hex.toUpperCase() : hex}`
    }
    return `${out}"`
  }
  const number = (n: number): string => {
    if (Object.is(n, -0)) return style.numbers === true ? (['-0', '-0.0', '-0e0', '-0E-0'][Math.floor(rng() * 4)] as string) : '-0'
    const text = JSON.stringify(n)
    if (style.numbers !== true || rng() < 0.3) return text
    if (Number.isInteger(n) && !text.includes('e')) return [`${text}.0`, `${text}e0`, `${text}E+0`, `${text}0e-1`, `${text}.00`][Math.floor(rng() * 5)] as string
    return text.includes('e') ? text : `${text}0`
  }
  const go = (node: unknown): string => {
    if (node instanceof Raw) return node.text
    if (typeof node === 'number') return number(node)
    if (typeof node === 'string') return string(node)
    if (Array.isArray(node)) return `[${ws()}${node.map((item) => `${go(item)}${ws()}`).join(`,${ws()}`)}]`
    if (node !== null && typeof node === 'object') {
      const members = Object.entries(node).map(([key, member]) => `${string(key)}${ws()}:${ws()}${go(member)}${ws()}`)
      const twice = TWICE.get(node)
      const [first] = Object.entries(node)
      if (twice !== undefined && first !== undefined) {
        const [key, member] = first
        const name = twice === 'escaped' && key !== '' ? `"\\u${key.charCodeAt(0).toString(16).padStart(4, '0')}${JSON.stringify(key.slice(1)).slice(1)}` : string(key)
        members.push(`${name}:${twice === 'other' ? JSON.stringify(member === 1 ? 2 : 1) : go(member)}`)
      }
      return `{${ws()}${members.join(`,${ws()}`)}}`
    }
    return JSON.stringify(node)
  }
  return `${ws()}${go(value)}${ws()}`
}

// ---------------------------------------------------------------------------------------------
// The bodies of one form.

interface Body {
  readonly bytes: Buffer
  /** How it was made, for a failure's message. */
  readonly how: string
}

/** Every location of a value, with the value there. */
function locations (value: unknown, path: (string | number)[] = [], out: Array<[(string | number)[], unknown]> = []): Array<[(string | number)[], unknown]> {
  out.push([path, value])
  if (Array.isArray(value)) value.forEach((item, i) => locations(item, [...path, i], out))
  else if (value !== null && typeof value === 'object') for (const [key, member] of Object.entries(value)) locations(member, [...path, key], out)
  return out
}

const pickOf = <T>(rng: () => number, items: readonly T[]): T | undefined => items.length === 0 ? undefined : items[Math.floor(rng() * items.length)]

/** Objects whose first member `write` writes twice: the same name and value, the name escaped, or another value. */
const TWICE = new WeakMap<object, 'same' | 'escaped' | 'other'>()

/**
 * A body built around `value` that the strict parser must refuse, or one at a limit; undefined
 * where this kind does not apply to the value. `style` writes the rest of it, so that no two are
 * alike.
 */
function changed (kind: number, value: unknown, rng: () => number, admits: Judge['admits'], style: Style): { bytes: Buffer, how: string } | undefined {
  const text = (v: unknown): Buffer => Buffer.from(write(v, style))
  const all = locations(value)
  const numbers = all.filter(([, v]) => typeof v === 'number')
  const strings = all.filter(([, v]) => typeof v === 'string')
  const objects = all.filter(([, v]) => v !== null && typeof v === 'object' && !Array.isArray(v))
  switch (kind) {
    case 0: { // the checker's own duplicates (src/check/bytes.ts)
      const how = pickOf(rng, [['same', false], ['same', true], ['escaped', false]] as const)!
      const d = duplicated(value, how[0], how[1])
      return d === undefined ? undefined : { bytes: Buffer.from(d), how: `a duplicated member (${how[0]}${how[1] ? ', below the top' : ''})` }
    }
    case 1: { // a duplicated member anywhere, the same, escaped, or with another value (the last would win)
      const at = pickOf(rng, objects.filter(([, v]) => Object.keys(v as object).length > 0))
      if (at === undefined) return undefined
      const copy = { ...(at[1] as object) }
      const how = pickOf(rng, ['same', 'escaped', 'other'] as const)!
      TWICE.set(copy, how)
      return { bytes: text(replace(value, at[0], copy)), how: `a duplicated member (${how}) at /${at[0].join('/')}` }
    }
    case 2: { const b = invalidUtf8(value, admits); return b === undefined ? undefined : { bytes: Buffer.from(b), how: 'invalid UTF-8 in a string (the checker\'s)' } }
    case 3: { // a byte no UTF-8 has, or a truncated sequence, in a string
      const at = pickOf(rng, strings)
      if (at === undefined) return undefined
      const bad = pickOf(rng, [[0xff], [0xc3], [0xe2, 0x82], [0xed, 0xa0, 0x80], [0xc0, 0xaf], [0x80]])!
      const marked = write(replace(value, at[0], `${String(at[1])}\ue000`), { ...style, escape: false })
      const [head, tail] = marked.split('\ue000') as [string, string]
      if (tail === undefined) return undefined
      return { bytes: Buffer.concat([Buffer.from(head), Buffer.from(bad), Buffer.from(tail)]), how: `the bytes ${JSON.stringify(bad)} in a string` }
    }
    case 4: {
      const at = pickOf(rng, strings)
      const lone = pickOf(rng, ['\ud800', '\udfff', 'a\udbff'])!
      return at === undefined ? undefined : { bytes: text(replace(value, at[0], `${String(at[1])}${lone}`)), how: 'a lone surrogate' }
    }
    case 5: {
      const at = pickOf(rng, numbers)
      const big = pickOf(rng, ['9007199254740993', '-9007199254740993', '1e400', '-1e400', '1e-400', '123456789012345678901234567890123'])!
      return at === undefined ? undefined : { bytes: text(replace(value, at[0], new Raw(big))), how: `the number ${big}` }
    }
    case 6: {
      const at = pickOf(rng, objects)
      if (at === undefined) return undefined
      const withProto = { ...(at[1] as object) }
      Object.defineProperty(withProto, '__proto__', { value: {}, enumerable: true, writable: true, configurable: true })
      return { bytes: text(replace(value, at[0], withProto)), how: 'a member named __proto__' }
    }
    case 7: { // bytes after the value: no JSON text, in a request as in a body
      const tail = pickOf(rng, [' x', '}', ']', ',', ' 1', '\u0000', ' //', ' "a"'])!
      return { bytes: Buffer.concat([text(value), Buffer.from(tail)]), how: `bytes after the value (${JSON.stringify(tail)})` }
    }
    case 8: return { bytes: Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), text(value)]), how: 'a byte order mark' }
    case 9: return { bytes: Buffer.concat([text(value), Buffer.from([0xff])]), how: 'an invalid byte after the value' }
    case 10: { // the value inside 63 or 64 arrays: around maxDepth (64), on either side of it
      const depth = MAX_DEPTH + (rng() < 0.5 ? 0 : 1)
      return { bytes: Buffer.from(`${'['.repeat(depth - 1)}${write(value)}${']'.repeat(depth - 1)}`), how: `the value nested in ${depth - 1} arrays` }
    }
    case 11: // exactly bodyLimit bytes, spaces after the value (one more: see the test of that below)
      return { bytes: Buffer.from(padded(value, BODY_LIMIT)), how: `${BODY_LIMIT} bytes, spaces after the value` }
    case 12: { // bodyLimit bytes or one more, spaces inside the value
      const body = write(value)
      if (!/^[[{]/.test(body)) return undefined
      const size = BODY_LIMIT + (rng() < 0.5 ? 0 : 1)
      return { bytes: Buffer.from(`${body[0] as string}${' '.repeat(Math.max(0, size - body.length))}${body.slice(1)}`), how: `${size} bytes, spaces inside the value` }
    }
    default: return undefined
  }
}
const KINDS = 13
/** The kinds whose bytes make no JSON text, in a request as in a body: a few of them go a long way. */
const NOT_JSON = [7, 8, 9]
const kindOf = (rng: () => number): number => rng() < 0.12
  ? NOT_JSON[Math.floor(rng() * NOT_JSON.length)] as number
  : [...Array(KINDS).keys()].filter((kind) => !NOT_JSON.includes(kind))[Math.floor(rng() * (KINDS - NOT_JSON.length))] as number

/** A random way of writing a value: its spacing, escapes and spellings of numbers. */
const styleOf = (rng: () => number): Style => ({ rng, space: rng() < 0.7, escape: rng() < 0.5, numbers: rng() < 0.5 })
const told = (style: Style): string => ['space', 'escape', 'numbers'].filter((key) => style[key as keyof Style] === true).join(', ') || 'plain'

/**
 * A thousand bodies of `form`, no two the same bytes: the generator's values (its first small),
 * near-misses of them that the judge refuses for the keyword aimed at, byte-level changes of
 * them, and the same values written otherwise.
 */
function bodiesOf (form: Form, seed: number): { bodies: Body[], admitted: number, misses: number, missed: Set<string> } {
  const judge = new Judge(form, 60_000)
  try {
    assert.equal(judge.why, undefined, `the judge takes the form: ${judge.why ?? ''}`)
    const rng = random(seed)
    const seen = new Set<string>()
    const bodies: Body[] = []
    const add = (bytes: Buffer, how: string): boolean => {
      const key = bytes.toString('latin1')
      if (bodies.length >= PER_FORM || seen.has(key)) return false
      seen.add(key)
      bodies.push({ bytes, how })
      return true
    }
    const values: Generated[] = []
    let admitted = 0
    let misses = 0
    const missed = new Set<string>()
    for (let i = 0; i < 3000 && values.length < 300; i++) {
      const generated = generate(form, rng, i === 0)
      if (generated === undefined || !add(Buffer.from(write(generated.value)), 'a generated value')) continue
      values.push(generated)
      if (judge.admits(generated.value)?.valid === true) admitted++
    }
    assert.ok(values.length > 0, 'the generator makes values of the form')
    // Near-misses, one per keyword and value, up to 60% of the bodies with the values.
    for (const generated of values) {
      if (bodies.length >= PER_FORM * 0.6) break
      for (const miss of nearMisses(generated, judge.admits, 1).found) {
        if (!add(Buffer.from(write(miss.value)), `a near-miss for "${miss.keyword}" at ${miss.at || '(the top)'}`)) continue
        misses++
        missed.add(miss.keyword)
      }
    }
    // Byte-level changes, to 85%: each kind once around the first values, then at random.
    const base = (i: number): unknown => (values[i % values.length] as Generated).value
    for (let kind = 0; kind < KINDS; kind++) {
      const made = changed(kind, base(kind), rng, judge.admits, {})
      if (made !== undefined) add(made.bytes, made.how)
    }
    let notJson = 0
    for (let i = 0; i < 20 * PER_FORM && bodies.length < PER_FORM * 0.85; i++) {
      const style = styleOf(rng)
      const kind = kindOf(rng)
      if (NOT_JSON.includes(kind) && notJson >= PER_FORM * 0.08) continue
      const made = changed(kind, base(Math.floor(rng() * values.length)), rng, judge.admits, style)
      if (made !== undefined && add(made.bytes, `${made.how}, written ${told(style)}`) && NOT_JSON.includes(kind)) notJson++
    }
    // The rest: the values written otherwise, the same values to a strict parser.
    for (let i = 0; i < 20 * PER_FORM && bodies.length < PER_FORM; i++) {
      const style = styleOf(rng)
      add(Buffer.from(write(base(i), style)), `a generated value, written ${told(style)}`)
    }
    return { bodies, admitted, misses, missed }
  } finally {
    judge.release()
  }
}

// ---------------------------------------------------------------------------------------------
// The host: every form an address, and the bridge.

interface Address {
  readonly name: string
  readonly path: string
  readonly wrapped: boolean
  /** What its act was handed, by POST and by tools/call, since the last look. */
  readonly got: unknown[]
}

let app: FastifyInstance
const addresses = new Map<string, Address>()

before(async () => {
  app = Fastify()
  for (const { name, form } of CASES) {
    const address: Address = { name, path: `/${name}`, wrapped: wrappedOf(form), got: [] }
    addresses.set(name, address)
    await app.register(gpt, {
      prefix: address.path,
      form,
      rateLimit: false,
      bodyLimit: BODY_LIMIT,
      lint: false,
      act: (body: unknown) => { address.got.push(body); return body }
    } as unknown as GptOptions)
  }
  await app.register(mcp, { rateLimit: false })
  await app.ready()
})
after(() => app.close())

const JSON_TYPE = 'application/json; charset=utf-8'
const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' }

/**
 * The two eras of MCP a call is made in: 2025-11-25 (after a handshake, the revision in a header)
 * and 2026-07-28 (no handshake: the revision, the client and its capabilities in the request's
 * `_meta`, its method and tool in header fields too; every result says it is complete and who answered).
 */
type Era = '2025-11-25' | '2026-07-28'
const ERAS: readonly Era[] = ['2025-11-25', '2026-07-28']
const MODERN_META = '{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"agree","version":"1"}}'
const MODERN_TAIL = '"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"fastify-gpt","version":"0.1.0"}}'
const headersOf = (address: Address, era: Era): Record<string, string> =>
  era === '2025-11-25' ? HEADERS : { ...HEADERS, 'mcp-protocol-version': era, 'mcp-method': 'tools/call', 'mcp-name': address.name }
/** A result's text as the era writes it. */
const inEra = (result: string, era: Era): string => era === '2025-11-25' ? result : `${result.slice(0, -1)},${MODERN_TAIL}}`
const refusedIn = (era: Era): string => `{"jsonrpc":"2.0","id":1,"result":${inEra(REFUSAL, era)}}`

/** A tools/call with `args` spliced in as the bytes they are. */
function callBytes (address: Address, body: Buffer | undefined, era: Era = '2025-11-25'): Buffer {
  const head = Buffer.from(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":${JSON.stringify(address.name)}`)
  const tail = Buffer.from(era === '2025-11-25' ? '}}' : `,"_meta":${MODERN_META}}}`)
  if (body === undefined) return Buffer.concat([head, tail])
  const args = address.wrapped ? Buffer.concat([Buffer.from('{"value":'), body, Buffer.from('}')]) : body
  return Buffer.concat([head, Buffer.from(',"arguments":'), args, tail])
}

/** Whether JSON.parse takes the request read as UTF-8: a request that does not, not being JSON, is a parse error (docs/mcp.md). */
function readsLoosely (bytes: Buffer): boolean {
  try {
    JSON.parse(bytes.toString('utf8'))
    return true
  } catch {
    return false
  }
}

/** Each number of a value whose sign of zero differs between two values, as a path; undefined if none. */
function zeroSign (a: unknown, b: unknown, at = ''): string | undefined {
  if (typeof a === 'number' && typeof b === 'number') return Object.is(a, b) ? undefined : at || '(the top)'
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return undefined
  for (const key of Object.keys(a)) {
    const found = zeroSign((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key], `${at}/${key}`)
    if (found !== undefined) return found
  }
  return undefined
}

const shown = (body: Body): string => {
  const text = body.bytes.toString('utf8')
  return `${body.how}: ${text.length > 300 ? `${text.slice(0, 300)}... (${body.bytes.length} bytes)` : text}`
}

interface Tally { acted: number, refused: number, parseErrors: number, negativeZeros: number }
const tallied = (): Tally => ({ acted: 0, refused: 0, parseErrors: 0, negativeZeros: 0 })

const hasNegativeZero = (value: unknown): boolean => Object.is(value, -0) ||
  (value !== null && typeof value === 'object' && Object.values(value).some(hasNegativeZero))

/** One body both ways, and every assertion about the pair. */
async function both (address: Address, body: Body | undefined, tally: Tally, era: Era = '2025-11-25'): Promise<void> {
  const what = `${body === undefined ? 'the empty body' : shown(body)} (MCP ${era})`
  const posted = await app.inject({ method: 'POST', url: address.path, headers: { 'content-type': 'application/json' }, payload: body?.bytes ?? '' })
  const fromPost = address.got.splice(0)
  const request = callBytes(address, body?.bytes, era)
  const called = await app.inject({ method: 'POST', url: '/mcp', headers: headersOf(address, era), payload: request })
  const fromCall = address.got.splice(0)

  if (posted.statusCode === 200) {
    tally.acted++
    assert.equal(fromPost.length, 1, what)
    assert.equal(called.statusCode, 200, `POST acted, tools/call answered ${called.statusCode} ${called.body.slice(0, 200)}: ${what}`)
    assert.notEqual(called.body, refusedIn(era), `POST acted, tools/call refused: ${what}`)
    assert.equal(fromCall.length, 1, `POST acted, tools/call did not: ${what}`)
    assert.deepStrictEqual(fromCall[0], fromPost[0], what)
    assert.equal(zeroSign(fromCall[0], fromPost[0]), undefined, `the sign of a zero: ${what}`)
    if (hasNegativeZero(fromCall[0])) tally.negativeZeros++
    // POST answers the act's result as JSON; the call, that JSON as its text, and as structuredContent
    // where the era takes it: an object in 2025-11-25, any JSON value in 2026-07-28.
    const payload = posted.body
    const text = `{"content":[{"type":"text","text":${JSON.stringify(payload)}}]`
    const structured = era === '2026-07-28' || payload.startsWith('{')
    assert.equal(called.body, `{"jsonrpc":"2.0","id":1,"result":${inEra(structured ? `${text},"structuredContent":${payload}}` : `${text}}`, era)}}`, what)
    assert.equal(called.headers['content-type'], JSON_TYPE)
    return
  }
  assert.equal(posted.statusCode, 204, `POST answered ${posted.statusCode}: ${what}`)
  assert.equal(posted.body, '', what)
  assert.deepEqual(fromPost, [], what)
  assert.deepEqual(fromCall, [], `POST refused, tools/call acted: ${what}`)
  if (!readsLoosely(request)) {
    // Not JSON even read loosely (bytes after the value, a BOM or a bad byte outside every string):
    // no tools/call at all, with no id to answer: a JSON-RPC parse error (docs/mcp.md).
    tally.parseErrors++
    assert.equal(called.statusCode, 400, what)
    assert.equal(called.body, '{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}', what)
    return
  }
  tally.refused++
  assert.equal(called.statusCode, 200, `POST refused, tools/call answered ${called.statusCode} ${called.body.slice(0, 200)}: ${what}`)
  assert.equal(called.body, refusedIn(era), `POST refused, tools/call answered otherwise: ${what}`)
  assert.equal(called.headers['content-type'], JSON_TYPE)
}

const totals = tallied()

describe('POST and tools/call agree on every body of every example form', () => {
  CASES.forEach(({ name, form, misses: nearMissed }, i) => {
    it(`${name}${wrappedOf(form) ? ' (wrapped)' : ''}: ${PER_FORM} bodies, acted on and refused alike`, async (t) => {
      const address = addresses.get(name) as Address
      const { bodies, admitted, misses, missed } = bodiesOf(form, 1000 + i)
      assert.equal(bodies.length, PER_FORM)
      const tally = tallied()
      await both(address, undefined, tally)
      await both(address, undefined, tally, '2026-07-28')
      // each body in one era, the eras in turn
      for (const [j, body] of bodies.entries()) await both(address, body, tally, ERAS[j % ERAS.length])
      t.diagnostic(`${name}: ${JSON.stringify({ ...tally, admitted, misses })}`)
      for (const key of Object.keys(totals) as Array<keyof Tally>) totals[key] += tally[key]
      // Both outcomes, many times each: a form whose every body went one way would show nothing.
      assert.ok(tally.acted >= Math.min(admitted, 100), `acted on ${tally.acted}, the judge admitted ${admitted} generated values`)
      assert.ok(tally.refused >= 150, `${tally.refused} refused calls`)
      assert.ok(tally.parseErrors > 0 && tally.parseErrors < PER_FORM / 5, `${tally.parseErrors} parse errors`)
      assert.equal(misses > 0, nearMissed, `${misses} near-misses`)
      // The form of every keyword: a near-miss for each the checker builds them for.
      if (name === 'keywords') assert.deepEqual([...KEYWORDS].filter((keyword) => !missed.has(keyword)), [])
    })
  })

  it('a zero with its sign reached the act both ways, as -0', () => {
    assert.ok(totals.negativeZeros > 0, JSON.stringify(totals))
  })

  it('the deepest body the blocks form takes, and one deeper: acted on, and refused, alike', async () => {
    const address = addresses.get('blocks') as Address
    const depth = deepest(list)
    const tally = tallied()
    await both(address, { bytes: Buffer.from(JSON.stringify(nested(depth, 'text', list))), how: `nested ${depth} deep` }, tally)
    await both(address, { bytes: Buffer.from(JSON.stringify(nested(depth + 1, 'text', list))), how: `nested ${depth + 1} deep` }, tally)
    assert.deepEqual([tally.acted, tally.refused], [1, 1])
  })

  it('a wrapped form taking any value: each JSON type and spelling, -0 handed over as -0', async () => {
    const address = addresses.get('anything') as Address
    const tally = tallied()
    const texts = ['-0', '0', '-0.0', '-0e0', '1E2', '0.1e1', 'null', 'true', 'false', '""', '"\\u0000"', '"\\ud83d\\ude00"', '[]', '{}', '"\\"\\\\"', '{"":""}', '[[[]]]', ' \t\r\n1 \n', '{"value":1}']
    for (const text of texts) await both(address, { bytes: Buffer.from(text), how: 'a value' }, tally)
    assert.deepEqual([tally.acted, tally.negativeZeros], [texts.length, 3])
  })
})

// Where the two differ by decision (docs/decisions.md): each pins what the bridge does now, so
// that the day it changes this fails, and the exception is taken out.
describe('where tools/call and POST disagree today', () => {
  it('KNOWN DISAGREEMENT: spaces around a body over bodyLimit count for POST (refused), not for tools/call (acted)', async () => {
    // src/mcp/span.ts takes the arguments' value without the spaces around it, while POST's
    // bodyLimit counts every byte of its body (src/address/read.ts). So bodyLimit + 1 bytes, the
    // last of them spaces, are refused as a POST and acted on as a call. When the bridge counts
    // them (or POST stops counting them), this fails: then make both() take these bodies again
    // (src `changed`, kind 11) and delete this test.
    for (const { name, form } of CASES) {
      const address = addresses.get(name) as Address
      const value = (generate(form, random(1), true) as Generated).value
      for (const bytes of [Buffer.from(padded(value, BODY_LIMIT + 1)), Buffer.from(`${' '.repeat(BODY_LIMIT + 1 - write(value).length)}${write(value)}`)]) {
        const posted = await app.inject({ method: 'POST', url: address.path, headers: { 'content-type': 'application/json' }, payload: bytes })
        address.got.splice(0)
        const called = await app.inject({ method: 'POST', url: '/mcp', headers: HEADERS, payload: callBytes(address, bytes) })
        address.got.splice(0)
        assert.equal(posted.statusCode, 204, name)
        assert.equal(called.statusCode, 200, name)
        assert.notEqual(called.body, refusedIn('2025-11-25'), `${name}: tools/call refuses it too now: take these bodies back into both()`)
      }
    }
  })

  it('KNOWN DISAGREEMENT: arguments past the bridge\'s own request limit get a 413 JSON-RPC error, not REFUSAL', async () => {
    // The bridge reads a request up to the largest bodyLimit of its addresses plus 16 KiB
    // (src/mcp/bridge.ts ENVELOPE); past it, HTTP 413 with {"code":-32600,"message":"The request
    // was not received whole"}, where POST answers every body over its limit with the bare 204:
    // a call learns that its size, and nothing else, was refused (draft §5.3).
    const address = addresses.get('anything') as Address
    const bytes = Buffer.from(JSON.stringify('x'.repeat(BODY_LIMIT + 16 * 1024)))
    const posted = await app.inject({ method: 'POST', url: address.path, headers: { 'content-type': 'application/json' }, payload: bytes })
    const called = await app.inject({ method: 'POST', url: '/mcp', headers: HEADERS, payload: callBytes(address, bytes) })
    assert.deepEqual(address.got.splice(0), [])
    assert.equal(posted.statusCode, 204)
    assert.equal(called.statusCode, 413)
    assert.equal(called.body, '{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"The request was not received whole"}}')
  })
})
