// The cost of the worst body against an accepted body of the same size, for forms that make a
// plain validator do exponential work, before (plain Ajv 2020, as Fastify would compile the form)
// and after (the address's validator). Then a random search over recursive union-heavy forms for
// the body that costs most per byte. Last, patterns with many states: whole acts of a 64 KB body
// through an address, the worst rejected against an accepted one of the same size.
// Run: node --import ./test/register.js benchmarks/adversarial.ts [--quick]
// Writes benchmarks/results/adversarial-latest.json (see docs/benchmarks.md).
import { mkdirSync, writeFileSync } from 'node:fs'
import { Ajv2020 } from 'ajv/dist/2020.js'
import fc from 'fast-check'
import Fastify from 'fastify'
import gpt from '../src/index.ts'
import { compilePattern, STEPS_PER_CHAR } from '../src/form/pattern/pattern.ts'
import { work } from '../src/form/bounded.ts'
import { generate, random } from '../src/check/generate.ts'
import { compileForm, freezeJson, type Json, type JsonObject } from '../src/form/compile.ts'
import { array, blocks, deepest, list, nested, randomBody, randomForm, shared, unrolled } from '../test/fixtures/forms.ts'
import { machine, median } from './processes.ts'
import { ab } from '../test/helpers/texts.ts'

const quick = process.argv.includes('--quick')
const SAMPLE_NS = quick ? 2e6 : 50e6
// A plain validator is stopped after the first size whose one validation takes longer than this:
// the next size may take seconds and gigabytes (its errors grow as fast as its time).
const BEFORE_LIMIT_NS = quick ? 50e6 : 200e6

type Validate = (body: unknown) => unknown

/** Median nanoseconds of one validation, over repeated samples. */
function cost (validate: Validate, body: unknown): number {
  const first = process.hrtime.bigint()
  validate(body)
  const once = Number(process.hrtime.bigint() - first)
  if (once > SAMPLE_NS) return once
  const samples: number[] = []
  for (let round = 0; round < 5; round++) {
    const runs = Math.max(1, Math.floor(SAMPLE_NS / 5 / Math.max(once, 100)))
    const start = process.hrtime.bigint()
    for (let i = 0; i < runs; i++) validate(body)
    samples.push(Number(process.hrtime.bigint() - start) / runs)
  }
  return median(samples)
}

const plain = (form: JsonObject): Validate => new Ajv2020({ strict: false, allowUnionTypes: true }).compile(form)
const address = (form: JsonObject): Validate => compileForm(freezeJson(form, '/'), '/')

interface Row { form: string, size: string, bytes: number, before?: { worstNs: number, ratio: number }, after: { worstNs: number, ratio: number } }
const rows: Row[] = []

/** One family of bodies: at each size, the worst body and an accepted one of the same size. */
function family (name: string, form: JsonObject, sizes: number[], body: (size: number, worst: boolean) => Json, label: (size: number) => string): void {
  const before = plain(form)
  const after = address(form)
  let beforeAlive = true
  for (const size of sizes) {
    const worst = body(size, true)
    const accepted = body(size, false)
    if (after(accepted) !== true || after(worst) !== false) throw new Error(`${name}: the bodies at ${label(size)} are not one accepted and one rejected`)
    const row: Row = { form: name, size: label(size), bytes: JSON.stringify(worst).length, after: measure(after, worst, accepted) }
    if (beforeAlive) {
      row.before = measure(before, worst, accepted)
      beforeAlive = row.before.worstNs < BEFORE_LIMIT_NS
    }
    rows.push(row)
  }
}

/** The dearer of the two bodies (for uniqueItems, a plain validator's is the accepted one), against the accepted. */
function measure (validate: Validate, worst: Json, accepted: Json): { worstNs: number, ratio: number } {
  const acceptedNs = cost(validate, accepted)
  const worstNs = Math.max(cost(validate, worst), acceptedNs)
  return { worstNs, ratio: worstNs / acceptedNs }
}

const depths = (wrap: (inner: Json) => Json): number[] => {
  const top = deepest(wrap)
  return [...new Set([4, 8, 12, 14, 16, 18, 20, 22, 26, top])].filter((depth) => depth <= top)
}
for (const [name, form, wrap, bad, good] of [
  ['recursive union of sections and lists', blocks, list, 1, 'text'],
  ['the same, unrolled to 40 levels (draft 4.2)', unrolled(40), list, 1, 'text'],
  ['two alternatives sharing a recursive subschema', shared(2), array, 1, 'text'],
  ['five alternatives sharing a recursive subschema', shared(5), array, 1, 'text']
] as Array<[string, JsonObject, (inner: Json) => Json, Json, Json]>) {
  family(name, form, depths(wrap), (depth, worst) => nested(depth, worst ? bad : good, wrap), (depth) => `depth ${depth}`)
}

// Every pair of distinct objects is compared by a plain validator: the accepted body is the worst.
family('uniqueItems over objects', { type: 'array', uniqueItems: true }, quick ? [100, 1000] : [100, 1000, 5400],
  (count, worst) => Array.from({ length: count }, (_, i) => ({ id: worst && i === 0 ? count - 1 : i, tag: 'item' })),
  (count) => `${count} objects`)

// Patterns: nested quantifiers backtrack exponentially in V8, an unanchored star quadratically.
family('pattern ^(a+)+$', { type: 'string', pattern: '^(a+)+$' }, quick ? [10, 16, 20] : [10, 16, 20, 22, 24, 26, 60_000],
  (length, worst) => 'a'.repeat(length) + (worst ? '!' : ''), (length) => `${length} characters`)
family('pattern [a-z]*[0-9]', { type: 'string', pattern: '[a-z]*[0-9]' }, quick ? [1000, 4000] : [1000, 8000, 60_000],
  (length, worst) => 'a'.repeat(length) + (worst ? '' : '1'), (length) => `${length} characters`)

// ---- the search: random recursive union-heavy forms. For each form, values it admits (from the
// checker's generator) and random bodies; each rejected body against the accepted bodies of the
// same form nearest its size ----
const seed = 20261201
const corpus = fc.sample(fc.tuple(randomForm, fc.array(randomBody, { minLength: 20, maxLength: 20 })), { seed, numRuns: quick ? 5 : 60 })
const compared: Array<{ ratio: number, ns: number, bytes: number, form: JsonObject, body: Json }> = []
let mostCalls = 0
for (const [form, bodies] of corpus) {
  const validate = address(form)
  const rng = random(seed)
  const admitted = Array.from({ length: 20 }, (_, i) => generate(form, rng, i === 0)?.value as Json)
  const accepted: Array<{ ns: number, bytes: number }> = []
  const rejected: Array<{ ns: number, bytes: number, body: Json }> = []
  for (const body of [...admitted.filter((value) => value !== undefined), ...bodies]) {
    const bytes = JSON.stringify(body).length
    const before = work.calls
    const valid = validate(body)
    mostCalls = Math.max(mostCalls, (work.calls - before) / bytes)
    const ns = cost(validate, body)
    if (valid === true) accepted.push({ ns, bytes })
    else rejected.push({ ns, bytes, body })
  }
  for (const r of rejected) {
    const nearest = [...accepted].sort((a, b) => Math.abs(Math.log(a.bytes / r.bytes)) - Math.abs(Math.log(b.bytes / r.bytes)))[0]
    // The accepted body's cost, scaled to the rejected body's size (cost is linear in the size).
    if (nearest !== undefined) compared.push({ ratio: r.ns / (nearest.ns * Math.max(1, r.bytes / nearest.bytes)), ns: r.ns, bytes: r.bytes, form, body: r.body })
  }
}
compared.sort((a, b) => b.ratio - a.ratio)
const top = compared[0]
const search = {
  forms: corpus.length,
  rejectedCompared: compared.length,
  worstRatio: top?.ratio,
  medianRatio: median(compared.map((r) => r.ratio)),
  mostRefCallsPerByte: mostCalls,
  worst: top === undefined ? undefined : { ns: top.ns, bytes: top.bytes, form: top.form, body: top.body }
}

// ---- patterns with many states: acts through an address (parse, scan, validation, reply) ----
const BODY = 65_536
const fill = (n: number): number => BODY - 16 - n
// [name, pattern, worst text, accepted text of the same length]
const patternCases: Array<[string, string, (n: number) => string, (n: number) => string]> = [
  ['no angle brackets, up to 4,000', '[^<>]{1,4000}$', (n) => `${'x'.repeat(n - 1)}<`, (n) => 'x'.repeat(n)],
  ['an a 1,660 from the end', '(a|b)*a(a|b){1660}$', (n) => `${ab(n - 1, 1)}c`, (n) => `${ab(n - 1661, 2)}a${'b'.repeat(1660)}`],
  ['an x 9,990 from the end', '^[\\s\\S]*x[\\s\\S]{9990}$', (n) => `${'x'.repeat(n - 9991)}y${'x'.repeat(9990)}`, (n) => 'x'.repeat(n)],
  // 77 states, near the limit, and a DFA of 2^18 states: the most steps per character of the patterns tried
  ['an a 17 from the end', '(a|b)*a(a|b){17}$', (n) => `${ab(n - 1, 3)}c`, (n) => `${ab(n - 18, 4)}a${'b'.repeat(17)}`],
  // 79 states, 71 of them positions, copied (not counted: they fit), a DFA of 2^71 states: the
  // widest sets the bit-parallel simulation reads, with no counter to make them narrow
  ['an a 70 from the end, copied', '(a|b)*a[ab]{70}$', (n) => `${ab(n - 1, 5)}c`, (n) => `${ab(n - 71, 6)}a${'b'.repeat(70)}`],
  // 69 states, 41 positions, nothing to count: after the DFA gives up, sets of three words
  ['20 groups from the end, copied', '(a|b)*a(?:[ab]x?){20}$', (n) => `${ab(n - 1, 7)}c`, (n) => `${ab(n - 21, 8)}a${'b'.repeat(20)}`],
  ['nested plus', '^(a+)+$', (n) => `${'a'.repeat(n - 1)}!`, (n) => 'a'.repeat(n)],
  ['a plain class', '^[a-z ]*$', (n) => `${'ab cd'.repeat(n / 5).slice(0, n - 1)}!`, (n) => 'ab cd'.repeat(n / 5).slice(0, n)]
]

/**
 * Median nanoseconds of one act of `payload` (with the status it must get), through app.inject:
 * elapsed, and the process's CPU time. On a shared machine the elapsed time also counts the
 * neighbours' turns; the CPU time is the work the act made this process do.
 */
async function act (app: ReturnType<typeof Fastify>, payload: string, status: number): Promise<{ ns: number, cpuNs: number }> {
  const once = async (): Promise<void> => {
    const response = await app.inject({ method: 'POST', url: '/', payload, headers: { 'content-type': 'application/json' } })
    if (response.statusCode !== status) throw new Error(`status ${response.statusCode}, not ${status}`)
  }
  for (let i = 0; i < 3; i++) await once()
  const samples: number[] = []
  const cpuSamples: number[] = []
  for (let round = 0; round < 5; round++) {
    const start = process.hrtime.bigint()
    const cpu = process.cpuUsage()
    let runs = 0
    do {
      await once()
      runs++
    } while (Number(process.hrtime.bigint() - start) < SAMPLE_NS / 5)
    const used = process.cpuUsage(cpu)
    samples.push(Number(process.hrtime.bigint() - start) / runs)
    cpuSamples.push((used.user + used.system) * 1000 / runs)
  }
  return { ns: median(samples), cpuNs: median(cpuSamples) }
}

interface PatternRow { name: string, pattern: string, bytes: number, states: number, acceptedNs: number, worstNs: number, ratio: number, acceptedCpuNs: number, worstCpuNs: number, stepsPerChar: number, beforeStepsPerChar?: number, testNs: number, pathsTestNs: number }
const patternRows: PatternRow[] = []
for (const [name, pattern, worstText, acceptedText] of patternCases) {
  const n = fill(0)
  const worst = JSON.stringify({ text: worstText(n) })
  const accepted = JSON.stringify({ text: acceptedText(n) })
  const app = Fastify()
  await app.register(gpt, { form: { type: 'object', properties: { text: { type: 'string', pattern } } }, act: () => ({ ok: true }), rateLimit: false, lint: false })
  await app.ready()
  const { ns: acceptedNs, cpuNs: acceptedCpuNs } = await act(app, accepted, 200)
  const { ns: worstNs, cpuNs: worstCpuNs } = await act(app, worst, 204)
  await app.close()
  // steps do not depend on the machine: the engine's now, and what the copied automaton (as
  // compiled before counters, up to 10,000 states) does per character on a 10 KB text
  const m = compilePattern(pattern)
  m.test(worstText(n))
  // the pattern alone on the worst text: as it runs now, and with the simulation of all paths
  // where the DFA gives up (as before the bit-parallel simulation), in the same run
  const paths = compilePattern(pattern, { bits: false })
  const testNs = cost((t) => m.test(t as string), worstText(n))
  const pathsTestNs = cost((t) => paths.test(t as string), worstText(n))
  m.test(worstText(n))
  const row: PatternRow = { name, pattern, bytes: worst.length, states: m.states, acceptedNs, worstNs, ratio: worstNs / acceptedNs, acceptedCpuNs, worstCpuNs, stepsPerChar: m.steps / (n + 1), testNs, pathsTestNs }
  const copied = compilePattern(pattern, { maxStates: 10_000 })
  if (copied.states !== m.states && !quick) {
    const short = worstText(10_240)
    copied.test(short)
    row.beforeStepsPerChar = copied.steps / (short.length + 1)
  }
  patternRows.push(row)
}
// the same size, the same run: the cheapest accepted act is the common yardstick, elapsed and in CPU time
const yardstick = Math.min(...patternRows.map((r) => r.acceptedNs))
const yardstickCpu = Math.min(...patternRows.map((r) => r.acceptedCpuNs))
const worstPattern = patternRows.reduce((a, b) => (b.worstNs > a.worstNs ? b : a))
const worstCpuPattern = patternRows.reduce((a, b) => (b.worstCpuNs > a.worstCpuNs ? b : a))
const patterns = {
  bound: STEPS_PER_CHAR,
  yardstickNs: yardstick,
  worstRatio: worstPattern.worstNs / yardstick,
  worst: worstPattern.pattern,
  yardstickCpuNs: yardstickCpu,
  worstCpuRatio: worstCpuPattern.worstCpuNs / yardstickCpu,
  worstCpu: worstCpuPattern.pattern,
  rows: patternRows
}

const fmt = (ns: number): string => (ns >= 1e6 ? `${(ns / 1e6).toFixed(1)} ms` : `${(ns / 1e3).toFixed(1)} µs`)
console.log('| form | body | bytes | before: worst | before: ratio | after: worst | after: ratio |')
console.log('|---|---|---|---|---|---|---|')
for (const row of rows) {
  const before = row.before === undefined ? '(not run: too slow)' : `${fmt(row.before.worstNs)} | ${row.before.ratio.toFixed(1)}`
  console.log(`| ${row.form} | ${row.size} | ${row.bytes} | ${row.before === undefined ? `${before} | ` : before} | ${fmt(row.after.worstNs)} | ${row.after.ratio.toFixed(2)} |`)
}
console.log(`\nsearch: ${search.forms} random forms; ${search.rejectedCompared} rejected bodies against accepted bodies of the same form: ` +
  `worst ratio ${search.worstRatio?.toFixed(2)}, median ${search.medianRatio.toFixed(2)}; at most ${search.mostRefCallsPerByte.toFixed(2)} $ref calls per byte`)
if (search.worst !== undefined) console.log(`the worst: ${fmt(search.worst.ns)} for ${search.worst.bytes} bytes: ${JSON.stringify(search.worst.body)} against ${JSON.stringify(search.worst.form)}`)

console.log(`\npatterns with many states, acts of ${patternRows[0]?.bytes} bytes through an address (bound: ${STEPS_PER_CHAR} steps per character):`)
console.log('| pattern | states | accepted act | worst act | worst ÷ accepted | worst ÷ cheapest accepted | CPU: accepted act | CPU: worst act | CPU: worst ÷ cheapest accepted | steps/char | before: steps/char | test of the worst text | the same, simulation of all paths |')
console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|')
for (const r of patternRows) {
  console.log(`| ${r.name} \`${r.pattern.replace(/\|/g, '\\|')}\` | ${r.states} | ${fmt(r.acceptedNs)} | ${fmt(r.worstNs)} | ${r.ratio.toFixed(2)} | ${(r.worstNs / yardstick).toFixed(2)} | ` +
    `${fmt(r.acceptedCpuNs)} | ${fmt(r.worstCpuNs)} | ${(r.worstCpuNs / yardstickCpu).toFixed(2)} | ${r.stepsPerChar.toFixed(1)} | ${r.beforeStepsPerChar?.toFixed(0) ?? '(same)'} | ${fmt(r.testNs)} | ${fmt(r.pathsTestNs)} |`)
}
console.log(`worst ratio with patterns: ${patterns.worstRatio.toFixed(2)} elapsed (\`${patterns.worst}\` against the cheapest accepted act of the same size, ${fmt(yardstick)}); ` +
  `${patterns.worstCpuRatio.toFixed(2)} in CPU time (\`${patterns.worstCpu}\`, against ${fmt(yardstickCpu)})`)

if (!quick) {
  mkdirSync(new URL('results/', import.meta.url), { recursive: true })
  writeFileSync(new URL('results/adversarial-latest.json', import.meta.url), JSON.stringify({ ...machine(), rows, search, patterns }, null, 2) + '\n')
}
