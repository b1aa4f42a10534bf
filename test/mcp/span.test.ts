// spanAt (src/mcp/span.ts): where a member's value lies in JSON bytes the strict parser accepted.
// A call's arguments go to the act pipeline as those very bytes, so the span must be the value's
// text exactly, wherever the JSON puts whitespace, escapes, look-alike keys and brackets in strings.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import fc from 'fast-check'
import { parse } from '../../src/parse/parse.ts'
import { spanAt } from '../../src/mcp/span.ts'

/** Strings that would trip a scanner that does not read strings as strings. */
const tricky = fc.constantFrom('"', '\\', '\\"', '"\\', '{', '}', '[', ']', ',', ':', '{"a":', '"}', 'params', 'arguments', 'é', '日本', '😀', '\u0000', '\n', '/')

type Value = null | boolean | number | string | Value[] | { [key: string]: Value }

const value: fc.Arbitrary<Value> = fc.letrec<{ value: Value }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constant(null),
    fc.boolean(),
    fc.integer({ min: -Number.MAX_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER }),
    fc.double({ min: -1e6, max: 1e6, noNaN: true, noDefaultInfinity: true }),
    fc.string(),
    tricky,
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(fc.oneof(fc.string(), tricky), tie('value'), { maxKeys: 4, noNullPrototype: true })
  )
})).value

const whitespace = fc.array(fc.stringMatching(/^[ \t\n\r]{0,3}$/), { minLength: 1, maxLength: 64 })

/** How strings are written: plainly, every character escaped, or with `\/` for `/`. */
type Style = 'plain' | 'escaped' | 'solidus'

/** Writes JSON with the whitespace given between tokens and strings in the styles given, cycling through both. */
class Writer {
  #w = 0
  #s = 0
  constructor (readonly spaces: readonly string[], readonly styles: readonly Style[]) {}

  ws (): string { return this.spaces[this.#w++ % this.spaces.length]! }

  string (text: string): string {
    const style = this.styles[this.#s++ % this.styles.length]
    if (style === 'escaped') return `"${Array.from({ length: text.length }, (_, i) => `\\u${text.charCodeAt(i).toString(16).padStart(4, '0')}`).join('')}"`
    const json = JSON.stringify(text)
    return style === 'solidus' ? json.replaceAll('/', '\\/') : json
  }

  value (v: Value): string {
    if (v === null || typeof v === 'boolean') return String(v)
    if (typeof v === 'number') return JSON.stringify(v)
    if (typeof v === 'string') return this.string(v)
    if (Array.isArray(v)) return `[${this.ws()}${v.map((item) => this.value(item)).join(`${this.ws()},${this.ws()}`)}${this.ws()}]`
    return this.members(Object.entries(v).map(([key, member]) => [key, this.value(member)]))
  }

  members (members: ReadonlyArray<readonly [string, string]>): string {
    return `{${this.ws()}${members.map(([key, text]) => `${this.string(key)}${this.ws()}:${this.ws()}${text}`).join(`${this.ws()},${this.ws()}`)}${this.ws()}}`
  }
}

/** Member names along a path, and members beside each step (never the step's own name). */
const document = fc.record({
  path: fc.array(fc.oneof(fc.string({ maxLength: 6 }), tricky, fc.constantFrom('params', 'arguments', 'value')), { minLength: 1, maxLength: 4 }),
  target: value,
  beside: fc.array(fc.array(fc.tuple(fc.oneof(fc.string({ maxLength: 6 }), tricky, fc.constantFrom('param', 'params ', 'argument', 'Arguments')), value), { maxLength: 3 }), { minLength: 4, maxLength: 4 }),
  before: fc.array(fc.nat(3), { minLength: 4, maxLength: 4 }),
  spaces: whitespace,
  styles: fc.array(fc.constantFrom<Style>('plain', 'escaped', 'solidus'), { minLength: 1, maxLength: 8 })
})

interface Built {
  readonly bytes: Buffer
  /** The target's text, as written. */
  readonly text: string
}

interface Doc {
  readonly path: readonly string[]
  readonly target: Value
  readonly beside: ReadonlyArray<ReadonlyArray<readonly [string, Value]>>
  readonly before: readonly number[]
  readonly spaces: readonly string[]
  readonly styles: readonly Style[]
}

function build ({ path, target, beside, before, spaces, styles }: Doc): Built {
  const writer = new Writer(spaces, styles)
  const text = writer.value(target)
  let inner = text
  for (let level = path.length - 1; level >= 0; level--) {
    const name = path[level]!
    const others = new Map<string, Value>(beside[level]!.filter(([key]) => key !== name))
    const members: Array<[string, string]> = [...others].map(([key, v]) => [key, writer.value(v)])
    members.splice(Math.min(before[level]!, members.length), 0, [name, inner])
    inner = writer.members(members)
  }
  return { bytes: Buffer.from(`${writer.ws()}${inner}${writer.ws()}`), text }
}

const normal = (v: unknown): unknown => JSON.parse(JSON.stringify(v))

describe('spanAt', () => {
  it('finds the value at a path exactly as written, whatever the whitespace, escapes and members beside it', () => {
    fc.assert(fc.property(document, (doc) => {
      const { bytes, text } = build(doc)
      const parsed = parse(bytes, { maxDepth: 1000 }) // the bytes spanAt is for: one JSON text, no duplicates
      const span = spanAt(bytes, doc.path)
      assert.ok(span !== undefined, bytes.toString())
      const slice = bytes.subarray(span[0], span[1])
      assert.equal(slice.toString('utf8'), text)
      assert.deepEqual(JSON.parse(slice.toString('utf8')), normal(doc.target))
      let expected: unknown = parsed
      for (const name of doc.path) expected = (expected as Record<string, unknown>)[name]
      assert.deepEqual(parse(slice, { maxDepth: 1000 }), expected, 'the strict parser reads the same value there')
    }), { numRuns: 2000, seed: 42 })
  })

  it('finds nothing where a member is missing, or a step is not an object', () => {
    fc.assert(fc.property(document, fc.oneof(fc.string({ maxLength: 4 }), tricky), (doc, missing) => {
      const { bytes } = build(doc)
      const parsed = parse(bytes, { maxDepth: 1000 }) as Record<string, unknown>
      if (!Object.hasOwn(parsed, missing)) assert.equal(spanAt(bytes, [missing]), undefined, `${JSON.stringify(missing)} in ${bytes.toString()}`)
      let at: unknown = parsed
      for (const name of doc.path) at = (at as Record<string, unknown>)[name]
      if (at === null || typeof at !== 'object' || Array.isArray(at)) {
        assert.equal(spanAt(bytes, [...doc.path, missing]), undefined, 'a step into a value that is no object')
      } else if (!Object.hasOwn(at, missing)) {
        assert.equal(spanAt(bytes, [...doc.path, missing]), undefined, 'a member the value does not have')
      }
    }), { numRuns: 1000, seed: 7 })
  })

  it('reads examples by hand', () => {
    const sliced = (text: string, path: string[]): string | undefined => {
      const span = spanAt(Buffer.from(text), path)
      return span === undefined ? undefined : Buffer.from(text).subarray(span[0], span[1]).toString()
    }
    assert.deepEqual(spanAt(Buffer.from('{"a":1}'), ['a']), [5, 6])
    assert.equal(sliced(' { "a" : [1, {"b": "}"}] } ', ['a']), '[1, {"b": "}"}]')
    assert.equal(sliced('{"x":"\\"a\\":","a":true}', ['a']), 'true', 'a key in a string is no key')
    assert.equal(sliced('{"\\u0061":null}', ['a']), 'null', 'an escaped key is its text')
    assert.equal(sliced('{"a\\\\":0,"a":"\\\\"}', ['a']), '"\\\\"', 'an escaped backslash ends no string')
    assert.equal(sliced('{"a":{"b":-1.5e+3}}', ['a', 'b']), '-1.5e+3')
    assert.equal(sliced('{"é":{"日":"😀"}}', ['é', '日']), '"😀"', 'keys of many bytes')
    assert.equal(sliced('{"a":1}', []), '{"a":1}', 'no path: the whole text')
    assert.equal(sliced('{}', ['a']), undefined)
    assert.equal(sliced('[{"a":1}]', ['a']), undefined, 'an array is not an object')
    assert.equal(sliced('{"a":"x"}', ['a', 'b']), undefined)
    assert.equal(sliced('{"ab":1,"b":2}', ['a']), undefined)
  })
})
