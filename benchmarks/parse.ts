// Speed of src/parse/parse.ts against JSON.parse and other parsers on request-body-like payloads.
// Run: node --expose-gc --import ./test/register.js benchmarks/parse.ts [--quick]
// Writes benchmarks/results/parse-latest.json (see docs/parsing.md).
import { Buffer, isUtf8 } from 'node:buffer'
import { mkdirSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { cpus } from 'node:os'
import { deepStrictEqual } from 'node:assert/strict'
import fc from 'fast-check'
import secureJson from 'secure-json-parse'
import { parse as losslessParse } from 'lossless-json'
import { random } from '../src/check/generate.ts'
import { parse } from '../src/parse/parse.ts'
import { decodeWasm, scanJs, scanWasm } from '../src/parse/scan.ts'

const require = createRequire(import.meta.url)
// json-dup-key-validator ships no types: describe the one function used
interface DupKeyValidator { validate (text: string, allowDuplicatedKeys?: boolean): string | undefined }
const dupKeys = require('json-dup-key-validator') as DupKeyValidator
// nor does json-bigint; its strict mode refuses every duplicate name
type BigJson = (options: { strict: boolean }) => { parse: (text: string) => unknown }
const bigJson = (require('json-bigint') as BigJson)({ strict: true })

const quick = process.argv.includes('--quick')
const ROUNDS = quick ? 1 : 15
const ROUND_NS = quick ? 10e6 : 200e6 // time on one payload in one round, shared by the parsers
const WARMUP_NS = quick ? 5e6 : 100e6

// ---- payloads: deterministic, request-body-like, with non-ASCII text and escapes ----

// Text of an act as a model or a person writes it: mostly plain words, some raw non-ASCII,
// and escapes (about one per 40 bytes of text): \n, \t, \", \\, and '§' and '🙂', which
// serialize() writes as \u escapes (a surrogate pair for '🙂') as ensure_ascii serializers do.
const WORDS = [
  'the', 'form', 'act', 'address', 'value', 'schema', 'actor', 'request', 'body', 'strict',
  'parse', 'object', 'member', 'name', 'depth', 'number', 'string', 'array', 'reply', 'order',
  'a', 'of', 'to', 'and', 'is', 'in', 'it', 'for', 'on', 'with',
  'café', 'naïve', 'Ærøskøbing', '日本語', 'Привет', 'ελληνικά', '😀',
  'line\nbreak', 'tab\there', '"quoted"', 'back\\slash', '§ 5.2', 'smile 🙂'
]

function sentence (rand: () => number, words: number): string {
  const out: string[] = []
  for (let i = 0; i < words; i++) out.push(WORDS[Math.floor(rand() * WORDS.length)] as string)
  return out.join(' ')
}

function stringHeavyItem (rand: () => number, i: number): unknown {
  return { role: i % 2 === 0 ? 'user' : 'assistant', content: sentence(rand, 4 + Math.floor(rand() * 24)) }
}

const NAMES = ['Zoë', 'José', 'Łukasz', '李雷', 'Søren', 'Ægir', 'Ṣadé', 'Ωmega']

function objectHeavyItem (rand: () => number, i: number): unknown {
  return {
    id: i,
    name: NAMES[i % NAMES.length],
    ok: rand() < 0.5,
    kind: WORDS[Math.floor(rand() * WORDS.length)],
    score: Math.round(rand() * 1e4) / 100,
    at: { x: Math.floor(rand() * 1000) - 500, y: Math.floor(rand() * 1000) },
    tags: [sentence(rand, 1), sentence(rand, 1)],
    note: i % 4 === 0 ? 'see "§ 5.2"\n' : null
  }
}

function payload (kind: 'string' | 'object', target: number): Buffer {
  const rand = random(target + (kind === 'string' ? 1 : 2))
  const items: unknown[] = []
  let size = 16
  for (let i = 0; size < target; i++) {
    const item = kind === 'string' ? stringHeavyItem(rand, i) : objectHeavyItem(rand, i)
    items.push(item)
    size += Buffer.byteLength(serialize([item])) - 14
  }
  return Buffer.from(serialize(items), 'utf8')
}

function serialize (items: unknown[]): string {
  return JSON.stringify({ messages: items }).replaceAll('§', '\\u00a7').replaceAll('🙂', '\\ud83d\\ude42')
}

// ---- parsers, each as a user would call it on a request body ----

type Parser = (body: Buffer) => unknown
const parsers: Record<string, Parser> = {
  'JSON.parse': (body) => JSON.parse(body.toString()),
  'secure-json-parse': (body) => secureJson.parse(body),
  'json-dup-key-validator': (body) => {
    const text = body.toString()
    const error = dupKeys.validate(text, false)
    if (error !== undefined) throw new Error(error)
    return JSON.parse(text)
  },
  'json-bigint strict': (body) => bigJson.parse(body.toString()),
  // refuses a duplicate name whose values differ; numbers read as numbers, as JSON.parse reads them
  'lossless-json': (body) => losslessParse(body.toString(), null, Number),
  'fastify-gpt parse': (body) => parse(body)
}

// ---- measurement ----

let sink: unknown
// With --expose-gc (npm run bench:parse), each slice starts on an emptied young generation, so a
// parser does not pay for the garbage the one before it left. Only a minor collection: a full one
// also drops optimized code, and made the parsers written in JavaScript 4-8 times slower.
const gc = (globalThis as { gc?: (options: { type: 'minor' }) => void }).gc
const collect = gc === undefined ? () => {} : () => gc({ type: 'minor' })
function measure (fn: Parser, body: Buffer, budgetNs: number): number {
  collect()
  let ops = 0
  const start = process.hrtime.bigint()
  let elapsed = 0
  do {
    for (let i = 0; i < 4; i++) sink = fn(body)
    ops += 4
    elapsed = Number(process.hrtime.bigint() - start)
  } while (elapsed < budgetNs)
  return elapsed / ops
}

function median (xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b)
  const mid = s.length >> 1
  return s.length % 2 === 1 ? s[mid] as number : ((s[mid - 1] as number) + (s[mid] as number)) / 2
}

const SIZES: [string, number][] = [['200 B', 200], ['2 KB', 2048], ['64 KB', 65536], ['1 MB', 1048576]]
const cases: { name: string, body: Buffer }[] = []
for (const [label, size] of SIZES) {
  for (const kind of ['string', 'object'] as const) cases.push({ name: `${kind}-heavy ${label}`, body: payload(kind, size) })
}

// every parser must agree on every payload before its speed means anything
for (const c of cases) {
  const expected: unknown = JSON.parse(c.body.toString())
  // structuredClone gives json-bigint's null-prototype objects the usual prototype
  for (const fn of Object.values(parsers)) deepStrictEqual(structuredClone(fn(c.body)), expected)
}

const names = Object.keys(parsers)
const samples = new Map<string, number[]>()
for (const c of cases) for (const p of names) samples.set(`${c.name}|${p}`, [])
for (const c of cases) for (const p of names) measure(parsers[p] as Parser, c.body, WARMUP_NS)
const shuffle = random(ROUNDS)
for (let round = 0; round < ROUNDS; round++) {
  for (const c of cases) {
    // a new order each round, so that neither drift on a noisy machine nor the parser that ran
    // just before (its garbage, the state of the caches) favours one parser
    const order = [...names]
    for (let i = order.length - 1; i > 0; i--) {
      const j = Math.floor(shuffle() * (i + 1))
      ;[order[i], order[j]] = [order[j] as string, order[i] as string]
    }
    for (const p of order) samples.get(`${c.name}|${p}`)?.push(measure(parsers[p] as Parser, c.body, ROUND_NS / names.length))
  }
}

interface Row { payload: string, bytes: number, parser: string, medianNs: number, ratio: number }
const rows: Row[] = []
for (const c of cases) {
  const base = median(samples.get(`${c.name}|JSON.parse`) ?? [])
  for (const p of names) {
    const m = median(samples.get(`${c.name}|${p}`) ?? [])
    rows.push({ payload: c.name, bytes: c.body.length, parser: p, medianNs: Math.round(m), ratio: Math.round((m / base) * 100) / 100 })
  }
}

// where the time goes: parse's own passes over the bytes, alone, in ns per byte
const stages: Record<string, Parser> = {
  isUtf8: (body) => isUtf8(body),
  'scan (WebAssembly)': (body) => scanWasm?.(body, 64),
  'scan (JavaScript)': (body) => scanJs(body, 64),
  'decode (WebAssembly)': (body) => decodeWasm?.(body),
  'decode (V8)': (body) => body.toString('utf8')
}
const stageRounds = Math.max(1, Math.round(ROUNDS / 3))
const stageRows: { payload: string, stage: string, nsPerByte: number }[] = []
for (const c of cases) {
  for (const [stage, fn] of Object.entries(stages)) {
    measure(fn, c.body, WARMUP_NS / 4)
    const times: number[] = []
    for (let round = 0; round < stageRounds; round++) times.push(measure(fn, c.body, ROUND_NS / 4))
    stageRows.push({ payload: c.name, stage, nsPerByte: Math.round((median(times) / c.body.length) * 1000) / 1000 })
  }
}

// The decoder's worst text: a random search over texts of ASCII runs and code points of every
// UTF-8 length, each repeated to 16 KB, for the highest ratio of its time to V8's on the same
// bytes; the five worst of the first pass are measured again, five times each.
const piece = fc.oneof(fc.constantFrom('é', 'ß', '€', '✓', '😀', '\u{10ffff}'), fc.integer({ min: 1, max: 24 }).map((n) => 'a'.repeat(n)))
const searched = fc.sample(fc.array(piece, { minLength: 1, maxLength: 8 }), { numRuns: quick ? 4 : 200, seed: 20261202 })
const decoders: Record<'wasm' | 'v8', Parser> = { wasm: (body) => decodeWasm?.(body), v8: (body) => body.toString('utf8') }
const ratioOf = (body: Buffer): number => measure(decoders.wasm, body, ROUND_NS / 20) / measure(decoders.v8, body, ROUND_NS / 20)
const candidates = searched.map((parts) => {
  const unit = parts.join('')
  const body = Buffer.from(JSON.stringify(unit.repeat(Math.ceil(16_384 / Buffer.byteLength(unit)))))
  if (decodeWasm?.(body) !== body.toString('utf8')) throw new Error(`the decoder and V8 disagree on ${JSON.stringify(unit)}`)
  return { unit, body, ratio: ratioOf(body) }
}).sort((a, b) => b.ratio - a.ratio).slice(0, 5)
const worstDecode = candidates.map(({ unit, body }) => ({ unit, bytes: body.length, ratio: Math.round(median(Array.from({ length: 5 }, () => ratioOf(body))) * 100) / 100 }))
  .sort((a, b) => b.ratio - a.ratio)[0]

/** Backslashes (escapes) and bytes of non-ASCII characters per KiB of a payload. */
function composition (body: Buffer): { escapesPerKiB: number, nonAsciiPerKiB: number } {
  let escapes = 0
  let nonAscii = 0
  for (const byte of body) {
    if (byte === 0x5c) escapes++
    else if (byte >= 0x80) nonAscii++
  }
  const perKiB = (n: number): number => Math.round((n / body.length) * 1024)
  return { escapesPerKiB: perKiB(escapes), nonAsciiPerKiB: perKiB(nonAscii) }
}
const payloads = cases.map((c) => ({ payload: c.name, bytes: c.body.length, ...composition(c.body) }))

const cpu = cpus()[0]?.model ?? 'unknown'
console.log(`node ${process.version}, ${cpu}, ${ROUNDS} round(s), median ns/op (ratio to JSON.parse)${quick ? ', --quick' : ''}\n`)
const header = ['payload', 'bytes', ...names]
const table = cases.map((c) => [c.name, String(c.body.length), ...names.map((p) => {
  const r = rows.find((x) => x.payload === c.name && x.parser === p) as Row
  return `${r.medianNs.toLocaleString('en-US')} (${r.ratio.toFixed(2)}x)`
})])
const widths = header.map((h, i) => Math.max(h.length, ...table.map((r) => (r[i] as string).length)))
const line = (cells: string[]): string => '| ' + cells.map((x, i) => i < 2 ? x.padEnd(widths[i] as number) : x.padStart(widths[i] as number)).join(' | ') + ' |'
console.log(line(header))
console.log('|' + widths.map((w, i) => i < 2 ? '-'.repeat(w + 1) + '-|' : '-'.repeat(w + 1) + ':|').join(''))
for (const r of table) console.log(line(r))
console.log(`\nalone, median ns per byte (${stageRounds} round(s)): ` + cases.map((c) => `${c.name}: ` +
  stageRows.filter((r) => r.payload === c.name).map((r) => `${r.stage} ${r.nsPerByte}`).join(', ')).join('; '))
console.log(`\nthe decoder's worst of ${searched.length} searched texts: ${JSON.stringify(worstDecode?.unit)} repeated to ${worstDecode?.bytes} B, ${worstDecode?.ratio}x the time of V8's decoding`)
console.log('\npayload composition: ' + payloads.map((p) => `${p.payload}: ${p.escapesPerKiB} escapes and ${p.nonAsciiPerKiB} non-ASCII bytes per KiB`).join('; '))

const dir = new URL('./results/', import.meta.url)
mkdirSync(dir, { recursive: true })
const file = new URL(quick ? 'parse-latest.tmp.json' : 'parse-latest.json', dir)
writeFileSync(file, JSON.stringify({ date: new Date().toISOString(), node: process.version, cpu, quick, rounds: ROUNDS, payloads, rows, stages: stageRows, worstDecode }, null, 2) + '\n')
console.log(`\nwritten to ${file.pathname}`)
if (sink === Symbol.for('never')) console.log('')
