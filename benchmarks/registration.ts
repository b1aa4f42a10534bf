// What linting at registration costs: `app.ready()` of a host with N addresses of one form, with
// the `lint` option on (the default) and off, for the example forms and for 1,000 addresses of the
// order form of workload.ts. Each round builds one host of each kind, in one process, lint on and
// off in turn (the other way round every other round); the figures are medians over the rounds.
//   npm run bench:registration [-- --rounds 9 --count 50 --many 1000]
// Writes benchmarks/results/registration-latest.json. See docs/benchmarks.md.
import { mkdirSync, writeFileSync } from 'node:fs'
import { relative, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { lint } from 'fastify-gpt/lint'
import { machine, median, ROOT } from './processes.ts'
import { examples, onAndOff, order, tree } from './registering.ts'

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '9' },
    count: { type: 'string', default: '50' },
    many: { type: 'string', default: '1000' },
    out: { type: 'string', default: 'benchmarks/results/registration-latest.json' }
  }
})
const rounds = Number(values.rounds)
const count = Number(values.count)
const many = Number(values.many)

const FORMS: Array<{ name: string, form: object, addresses: number }> = [
  ...examples(count),
  { name: 'order (workload.ts)', form: order, addresses: count },
  { name: 'tree unrolled to depth 8', form: tree, addresses: count },
  { name: `order × ${many}`, form: order, addresses: many }
]

const began = Date.now()
const runs = await onAndOff(FORMS, rounds, (round) => console.log(`round ${round + 1}/${rounds} done (${((Date.now() - began) / 1000).toFixed(0)} s)`))

// lint() alone, per form: the median of 200 calls.
const lintMs = (form: object): number => median(Array.from({ length: 200 }, () => {
  const started = performance.now()
  lint(form)
  return performance.now() - started
}))

const rows = FORMS.map(({ name, form, addresses }, i) => {
  const on = median(runs[i]?.on ?? [])
  const off = median(runs[i]?.off ?? [])
  return {
    form: name,
    addresses,
    readyMsLintOn: Math.round(on),
    readyMsLintOff: Math.round(off),
    msPerAddressOn: Math.round(100 * on / addresses) / 100,
    msPerAddressOff: Math.round(100 * off / addresses) / 100,
    lintMs: Math.round(1000 * lintMs(form)) / 1000,
    runsOn: runs[i]?.on.map(Math.round),
    runsOff: runs[i]?.off.map(Math.round)
  }
})
const lines = ['form                          addresses  ready ms on  ready ms off  ms/address on  off   lint() ms']
for (const row of rows) {
  lines.push([row.form.padEnd(28), String(row.addresses).padStart(9), String(row.readyMsLintOn).padStart(11),
    String(row.readyMsLintOff).padStart(12), row.msPerAddressOn.toFixed(2).padStart(13), row.msPerAddressOff.toFixed(2).padStart(5),
    row.lintMs.toFixed(3).padStart(10)].join('  '))
}
console.log(`\n${lines.join('\n')}\n(medians over ${rounds} rounds; one process; the machine may be shared: compare on with off within a row)`)
const out = resolve(ROOT, values.out)
mkdirSync(resolve(out, '..'), { recursive: true })
writeFileSync(out, `${JSON.stringify({ ...machine(), rounds, rows }, null, 2)}\n`)
console.log(`written to ${relative(ROOT, out)}`)
