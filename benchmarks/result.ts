// What judging an act's result costs (the `result` option, src/address/result.ts), in process: per
// result, JSON.stringify alone (an address without `result`), the judge that writes the result with
// JSON.stringify and validates its text read back (every result form not in the compiled
// serializer's subset, and any result that is not plain data), and the judge that validates the
// value as it is and writes it with the compiled serializer (src/address/serialize.ts).
//   npm run bench:result [-- --rounds 7]
// CPU time per result, medians over the rounds; timings only, never asserted.
import { parseArgs } from 'node:util'
import { resolveResult } from '../src/address/result.ts'
import { DEFAULT_LIMITS } from '../src/limits.ts'
import { bodies, noteReceipt, noteResult, todoForm } from './peer-forms.ts'

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '7' } } })
const rounds = Number(values.rounds)

/** A result that echoes the to-do list it was sent: the list's form inside the result form. */
const listResult = { type: 'object', properties: { saved: { type: 'boolean' }, list: todoForm }, required: ['saved', 'list'], additionalProperties: false }
const cases = [
  { name: 'the note board\'s receipt, 70 B', schema: noteResult, value: noteReceipt(JSON.parse(bodies.note)) },
  { name: 'a to-do list echoed, 1 KB', schema: listResult, value: { saved: true, list: JSON.parse(bodies.todo1k) } },
  { name: 'a to-do list echoed, 4 KB', schema: listResult, value: { saved: true, list: JSON.parse(bodies.todo4k) } }
]

/** CPU ns per call of `work`, after as many calls to warm it. */
function nsPer (work: () => unknown, calls: number): number {
  for (let i = 0; i < calls; i++) work()
  const start = process.cpuUsage()
  for (let i = 0; i < calls; i++) work()
  const used = process.cpuUsage(start)
  return (used.user + used.system) * 1000 / calls
}
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN

for (const { name, schema, value } of cases) {
  const form = resolveResult(schema, '/bench', DEFAULT_LIMITS)
  if (form === undefined) throw new Error('no result form')
  const calls = Math.max(10_000, Math.round(2e8 / JSON.stringify(value).length / 1000))
  const runs: Record<'stringify' | 'readBack' | 'compiled', number[]> = { stringify: [], readBack: [], compiled: [] }
  for (let round = 0; round < rounds; round++) {
    runs.stringify.push(nsPer(() => JSON.stringify(value), calls))
    runs.readBack.push(nsPer(() => {
      const json = JSON.stringify(value)
      return form.refuses(json) ?? json
    }, calls))
    runs.compiled.push(nsPer(() => form.judge(value), calls))
  }
  const [stringify, readBack, compiled] = [runs.stringify, runs.readBack, runs.compiled].map(median) as [number, number, number]
  console.log(`${name}: JSON.stringify alone ${stringify.toFixed(0)} ns; judged, read back ${readBack.toFixed(0)} ns; judged, compiled ${compiled.toFixed(0)} ns ` +
    `(JSON.stringify ÷ compiled ${(stringify / compiled).toFixed(2)}, read back ÷ compiled ${(readBack / compiled).toFixed(2)})`)
}
