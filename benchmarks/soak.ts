// Memory soak: at least 1,000,000 requests against one fastify-gpt host, mixing the arrival,
// accepted acts and every kind of rejection, with the host's memory read after a forced GC
// (the host runs with --expose-gc and answers over IPC, outside its routes) after a warm-up
// and after each phase. Growth must stay flat.
//   npm run bench:soak [-- --requests 1000000 --phases 5 --warmup 100000]
// Writes benchmarks/results/soak-latest.json; exits non-zero on a wrong status or if the heap
// grew by more than --max-growth-mb (default 2) between the first and the last phase.
import { mkdirSync, writeFileSync } from 'node:fs'
import { relative, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import type { LoadJob, LoadSummary } from './load.ts'
import { canPin, HOST_CORE, LOAD_CORE, machine, ROOT, startChild } from './processes.ts'
import { bodies } from './workload.ts'

const { values } = parseArgs({
  options: {
    requests: { type: 'string', default: '1000000' },
    phases: { type: 'string', default: '5' },
    warmup: { type: 'string', default: '100000' },
    'max-growth-mb': { type: 'string', default: '2' },
    out: { type: 'string', default: 'benchmarks/results/soak-latest.json' }
  }
})
const total = Number(values.requests)
const phases = Number(values.phases)
const warmup = Number(values.warmup)
const maxGrowth = Number(values['max-growth-mb']) * 1e6
const out = resolve(ROOT, values.out)

const json = { 'content-type': 'application/json' }
/** One cycle of the mix; each connection goes through it in order, again and again. */
const MIX = [
  { kind: 'GET arrival', method: 'GET' as const, path: '/', status: 200 },
  { kind: 'act 200 B', method: 'POST' as const, path: '/', body: bodies.small, headers: json, status: 200 },
  { kind: 'act 2 KB', method: 'POST' as const, path: '/', body: bodies.medium, headers: json, status: 200 },
  { kind: 'duplicate key', method: 'POST' as const, path: '/', body: bodies.duplicate, headers: json, status: 204 },
  { kind: 'fails the form', method: 'POST' as const, path: '/', body: bodies.small.replace('"qty":', '"qty":-'), headers: json, status: 204 },
  { kind: 'not JSON', method: 'POST' as const, path: '/', body: bodies.small.slice(0, 120), headers: { 'content-type': 'text/plain' }, status: 204 },
  { kind: 'GET arrival', method: 'GET' as const, path: '/', status: 200 },
  { kind: 'over the limit', method: 'POST' as const, path: '/', body: bodies.oversize, headers: json, status: 204 }
]

interface Memory { rss: number, heapTotal: number, heapUsed: number, external: number, arrayBuffers: number }
interface Sample { after: string, requests: number, seconds: number, rps: number, memory: Memory, acts: number }

const problems: string[] = []
const began = Date.now()
const mb = (bytes: number): string => (bytes / 1e6).toFixed(1)
console.log(`soak: ${warmup} warm-up requests, then ${total} in ${phases} phases, one fastify-gpt host` +
  ` (rate limiting on, never tripping); ${canPin ? `host on core ${HOST_CORE}, autocannon on core ${LOAD_CORE}` : 'not pinned'}`)
console.log(`mix per connection: ${MIX.map((m) => m.kind).join(', ')}`)

const load = startChild('load.ts', [], LOAD_CORE)
const host = startChild('host.ts', ['--side', 'gpt', '--rate-limit', 'on'], HOST_CORE, ['--expose-gc'])
const samples: Sample[] = []
let sent = 0
try {
  await load.ready
  const { port } = await host.ready as { port: number }
  const sample = async (after: string, summary?: LoadSummary): Promise<void> => {
    const { memory, collected } = await host.ask<{ memory: Memory, collected: boolean }>({ type: 'memory' })
    if (!collected) throw new Error('the host cannot collect garbage on request (--expose-gc)')
    const { acts } = await host.ask<{ acts: number }>({ type: 'usage' })
    samples.push({ after, requests: sent, seconds: summary?.seconds ?? 0, rps: Math.round(summary?.rps ?? 0), memory, acts })
    console.log(`  ${after.padEnd(14)} ${String(sent).padStart(8)} requests  rss ${mb(memory.rss).padStart(6)} MB` +
      `  heap ${mb(memory.heapUsed).padStart(6)} MB  external ${mb(memory.external).padStart(5)} MB` +
      (summary === undefined ? '' : `  ${summary.rps.toFixed(0)} req/s`))
  }
  const run = async (amount: number): Promise<LoadSummary> => {
    const job: LoadJob = {
      url: `http://127.0.0.1:${port}/`,
      method: 'GET',
      connections: 16,
      pipelining: 1,
      amount,
      requests: MIX.map(({ method, path, body, headers }) => ({ method, path, ...(body === undefined ? {} : { body }), ...(headers === undefined ? {} : { headers }) }))
    }
    const summary = await load.ask<LoadSummary>({ type: 'run', job })
    sent += summary.responses
    const unexpected = Object.keys(summary.statuses).filter((code) => code !== '200' && code !== '204')
    if (unexpected.length > 0 || summary.errors > 0 || summary.timeouts > 0) {
      problems.push(`unexpected: ${JSON.stringify(summary.statuses)}, ${summary.errors} errors, ${summary.timeouts} timeouts`)
    }
    // per cycle: 4 answers are 200 (2 GET, 2 acts) and 4 are 204
    const ok = summary.statuses['200'] ?? 0
    const rejected = summary.statuses['204'] ?? 0
    if (Math.abs(ok - rejected) > 16 * MIX.length) problems.push(`200s and 204s out of balance: ${ok} vs ${rejected}`)
    return summary
  }

  await sample('start')
  await sample('warm-up', await run(warmup))
  for (let phase = 1; phase <= phases; phase++) await sample(`phase ${phase}/${phases}`, await run(Math.ceil(total / phases)))
} finally {
  await host.stop()
  await load.stop()
}

const measured = samples.slice(1) // from the end of the warm-up
const firstPhase = measured[0] as Sample
const last = measured.at(-1) as Sample
const growth = {
  requests: last.requests - firstPhase.requests,
  heapUsedBytes: last.memory.heapUsed - firstPhase.memory.heapUsed,
  rssBytes: last.memory.rss - firstPhase.memory.rss,
  externalBytes: last.memory.external - firstPhase.memory.external
}
const perRequest = growth.heapUsedBytes / growth.requests
console.log(`\nafter the warm-up and ${growth.requests} more requests: heap ${growth.heapUsedBytes >= 0 ? '+' : ''}${mb(growth.heapUsedBytes)} MB` +
  ` (${perRequest.toFixed(3)} B/request), rss ${growth.rssBytes >= 0 ? '+' : ''}${mb(growth.rssBytes)} MB, external ${mb(growth.externalBytes)} MB`)
if (growth.heapUsedBytes > maxGrowth) problems.push(`the heap grew by ${mb(growth.heapUsedBytes)} MB (limit ${mb(maxGrowth)} MB)`)
const acts = last.acts - (samples[0]?.acts ?? 0)
console.log(`acts run: ${acts} (the mix has 2 accepted acts in 8 requests)`)

const report = {
  ...machine(),
  mix: MIX.map((m) => ({ kind: m.kind, method: m.method, bytes: m.body === undefined ? 0 : Buffer.byteLength(m.body), status: m.status })),
  connections: 16,
  warmupRequests: warmup,
  requests: sent,
  acts,
  totalSeconds: Math.round((Date.now() - began) / 1000),
  samples,
  growth: { ...growth, heapBytesPerRequest: Number(perRequest.toFixed(4)) },
  problems
}
mkdirSync(resolve(out, '..'), { recursive: true })
writeFileSync(out, `${JSON.stringify(report, null, 2)}\n`)
console.log(`written to ${relative(ROOT, out)} in ${report.totalSeconds} s`)
if (problems.length > 0) {
  console.error(`\n${problems.length} problem(s):\n${problems.map((p) => `  ${p}`).join('\n')}`)
  process.exitCode = 1
}
