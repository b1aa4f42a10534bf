// Speed of src/form/pattern/pattern.ts against V8's RegExp with the u flag: typical form patterns in ns per
// character, and catastrophic patterns at the sizes where V8 still finishes.
// Run: npm run bench:patterns [-- --quick]. Writes benchmarks/results/patterns-latest.json (see docs/patterns.md).
import { mkdirSync, writeFileSync } from 'node:fs'
import { cpus } from 'node:os'
import { compilePattern } from '../src/form/pattern/pattern.ts'

const quick = process.argv.includes('--quick')
const BUDGET_NS = quick ? 20e6 : 300e6
const ROUNDS = quick ? 1 : 5

interface Matcher { test (text: string): boolean }

let sink = 0
/** Median over ROUNDS of the ns one `test` takes. */
function time (m: Matcher, text: string, budgetNs = BUDGET_NS): number {
  const samples: number[] = []
  for (let round = 0; round < ROUNDS; round++) {
    let ops = 0
    const start = process.hrtime.bigint()
    let elapsed = 0
    do {
      if (m.test(text)) sink++
      ops++
      elapsed = Number(process.hrtime.bigint() - start)
    } while (elapsed < budgetNs / ROUNDS)
    samples.push(elapsed / ops)
  }
  samples.sort((x, y) => x - y)
  return samples[samples.length >> 1] as number
}

// each with texts of the usual sizes (8 to 200 characters) and, where the pattern allows one, a long matching text
const typical: [string, string, string[]][] = [
  ['slug', '^[a-z0-9-]+$', ['fastify-gpt-2026', `${'fastify-gpt-'.repeat(16)}12345678`, 'fastify-gpt-'.repeat(500)]],
  ['email-like', '^[A-Za-z0-9._%+-]{1,64}@(?:[A-Za-z0-9-]{1,63}\\.){1,8}[A-Za-z]{2,63}$',
    ['first.last+forms@mail.example.org', `${'first.last'.repeat(6)}@${'mail.example.'.repeat(4)}org`,
      `${'x'.repeat(64)}@${`${'y'.repeat(63)}.`.repeat(8)}${'z'.repeat(63)}`]],
  ['date', '^\\d{4}-\\d{2}-\\d{2}$', ['2026-12-01']],
  ['words', '\\bgpt\\b', ['the fastify-gpt plugin', `${'a generic protocol type, '.repeat(8)}gpt`]],
  ['letters', '^\\p{L}+(?: \\p{L}+)*$', ['Zoë Łukasz', 'Zoë Łukasz Ægir Søren José '.repeat(8).trim(), 'Zoë Łukasz Ægir Søren José '.repeat(200).trim()]]
]

interface Row { name: string, pattern: string, chars: number, linearNs: number, v8Ns: number }
const rows: Row[] = []
for (const [name, source, texts] of typical) {
  const linear = compilePattern(source)
  const v8 = new RegExp(source, 'u')
  for (const text of texts) {
    if (!linear.test(text) || !v8.test(text)) throw new Error(`${name} does not match its sample`)
    time(linear, text, BUDGET_NS / 4)
    time(v8, text, BUDGET_NS / 4)
    rows.push({ name, pattern: source, chars: text.length, linearNs: time(linear, text), v8Ns: time(v8, text) })
  }
}

const catastrophic: [string, (n: number) => string, number[]][] = [
  ['^(a+)+$', (n) => `${'a'.repeat(n)}!`, [16, 20, 24]],
  ['(a|aa)+$', (n) => `${'a'.repeat(n)}!`, [20, 25, 30]],
  ['^(\\w+\\s?)*$', (n) => `${'a'.repeat(n)}!`, [16, 20, 24]],
  ['(.*a){15}', (n) => `${'a'.repeat(14)}${'b'.repeat(n)}`, [10, 20, 40]],
  // V8 is quadratic here: an attempt at each offset runs to the end
  ['a*b', (n) => 'a'.repeat(n), [1000, 4000, 16_000]],
  // a DFA would need 2^13 states: the cache flushes and the simulation takes over
  ['(a|b)*a(a|b){12}', (n) => Array.from({ length: n / 13 }, (_, i) => (i * 2654435761 >>> 0).toString(2).padStart(12, '0').slice(-12).replace(/0/g, 'b').replace(/1/g, 'a')).join('c'), [130, 1300, 13_000]]
]
const blowups: Row[] = []
for (const [source, make, sizes] of catastrophic) {
  const linear = compilePattern(source)
  const v8 = new RegExp(source, 'u')
  for (const n of sizes) {
    const text = make(n)
    if (linear.test(text) !== v8.test(text)) throw new Error(`disagreement on ${source}`)
    blowups.push({ name: source, pattern: source, chars: text.length, linearNs: time(linear, text), v8Ns: time(v8, text, 1) })
  }
  // where V8 would not finish: the linear engine on about 100,000 characters
  const text = make(100_009)
  blowups.push({ name: source, pattern: source, chars: text.length, linearNs: time(linear, text), v8Ns: NaN })
}

const cpu = cpus()[0]?.model ?? 'unknown'
const fmt = (ns: number): string => Number.isNaN(ns) ? 'n/a' : ns >= 1e6 ? `${(ns / 1e6).toFixed(1)} ms` : `${Math.round(ns).toLocaleString('en-US')} ns`
console.log(`node ${process.version}, ${cpu}, median of ${ROUNDS} round(s)${quick ? ', --quick' : ''}\n`)
console.log('| pattern | chars | linear | ns/char | V8 RegExp | ns/char | linear ÷ V8 |')
console.log('|---|---:|---:|---:|---:|---:|---:|')
for (const r of rows) {
  console.log(`| ${r.name} \`${r.pattern}\` | ${r.chars} | ${fmt(r.linearNs)} | ${(r.linearNs / r.chars).toFixed(1)} | ${fmt(r.v8Ns)} | ${(r.v8Ns / r.chars).toFixed(1)} | ${(r.linearNs / r.v8Ns).toFixed(2)} |`)
}
console.log('\n| catastrophic pattern | chars | linear | V8 RegExp |')
console.log('|---|---:|---:|---:|')
for (const r of blowups) console.log(`| \`${r.pattern}\` | ${r.chars.toLocaleString('en-US')} | ${fmt(r.linearNs)} | ${fmt(r.v8Ns)} |`)

const dir = new URL('./results/', import.meta.url)
mkdirSync(dir, { recursive: true })
const file = new URL(quick ? 'patterns-latest.tmp.json' : 'patterns-latest.json', dir)
writeFileSync(file, JSON.stringify({ date: new Date().toISOString(), node: process.version, cpu, quick, rounds: ROUNDS, typical: rows, catastrophic: blowups }, null, 2) + '\n')
console.log(`\nwritten to ${file.pathname}`)
if (sink < 0) console.log('')
