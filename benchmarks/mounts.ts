// Scale of mounts: 1, 10, 100 and 1,000 addresses on one host (prefixes /a0 ... /a999), all with
// the form of workload.ts. Reports the registration time (`app.ready()`), the heap it leaves,
// and GET/POST throughput and host CPU per request on one address (the last registered), so
// that the per-request cost can be compared across sizes. Registration is also measured with the
// `lint` option off (a second host per size, registered and stopped), and for the example host's
// forms (`--examples` addresses each, in this process), to give lint's share side by side. Every
// figure is a median over rounds, each round with fresh hosts.
//   npm run bench:mounts [-- --rounds 5 --duration 2 --warmup 20 --sizes 1,10,100,1000 --examples 50]
// Writes benchmarks/results/mounts-latest.json. See docs/benchmarks.md.
import { mkdirSync, writeFileSync } from 'node:fs'
import { relative, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import type { LoadJob, LoadSummary } from './load.ts'
import { canPin, HOST_CORE, LOAD_CORE, machine, median, ROOT, startChild, type Child } from './processes.ts'
import { examples, onAndOff } from './registering.ts'
import { bodies } from './workload.ts'

const { values } = parseArgs({
  options: {
    sizes: { type: 'string', default: '1,10,100,1000' },
    rounds: { type: 'string', default: '5' },
    duration: { type: 'string', default: '2' },
    warmup: { type: 'string', default: '20' },
    examples: { type: 'string', default: '50' },
    out: { type: 'string', default: 'benchmarks/results/mounts-latest.json' }
  }
})
const sizes = values.sizes.split(',').map(Number)
const rounds = Number(values.rounds)
const duration = Number(values.duration)
const warmup = Number(values.warmup)
const exampleForms = examples(Number(values.examples))
const out = resolve(ROOT, values.out)

interface Memory { heapUsed: number, rss: number }
interface Mounted { size: number, child: Child, url: string, registrationMs: number, memory: Memory }
interface Run { rps: number, p99: number, cpuPerRequest: number }
interface Figures extends Run { runs: Run[] }
interface Registration { registrationMs: number, registrationMsEach: number[], msPerAddress: number, heapUsedMB: number, rssMB: number }

const ratio = (on: number, off: number): number => Math.round(100 * on / Math.max(off, 1e-9)) / 100

const CONNECTIONS = 50
const PIPELINING = 10
const problems: string[] = []
const KINDS = [
  { name: 'GET', method: 'GET' as const, expect: '200' },
  { name: 'POST 200 B', method: 'POST' as const, body: bodies.small, expect: '200' }
]

/** A fresh host with `size` addresses; the load goes to its last one. */
async function mount (size: number, lint = true): Promise<Mounted> {
  const child = startChild('host.ts', ['--side', 'gpt', '--mounts', String(size), '--lint', lint ? 'on' : 'off'], HOST_CORE, ['--expose-gc'])
  const { port, registrationMs } = await child.ready as { port: number, registrationMs: number }
  const { memory } = await child.ask<{ memory: Memory }>({ type: 'memory' })
  return { size, child, url: `http://127.0.0.1:${port}/a${size - 1}`, registrationMs, memory }
}

async function measure (load: Child, host: Mounted, kind: typeof KINDS[number], length: { duration: number } | { amount: number }): Promise<Run> {
  const job: LoadJob = {
    url: host.url,
    method: kind.method,
    ...(kind.body === undefined ? {} : { body: kind.body }),
    connections: CONNECTIONS,
    pipelining: PIPELINING,
    ...length
  }
  const before = await host.child.ask<{ cpuMicros: number }>({ type: 'usage' })
  const summary = await load.ask<LoadSummary>({ type: 'run', job })
  const after = await host.child.ask<{ cpuMicros: number }>({ type: 'usage' })
  const wrong = summary.responses - (summary.statuses[kind.expect] ?? 0)
  if (summary.responses === 0 || wrong > 0 || summary.errors > 0) {
    problems.push(`${kind.name} on ${host.size} addresses: ${JSON.stringify(summary.statuses)}, ${summary.errors} errors`)
  }
  return { rps: summary.rps, p99: summary.p99, cpuPerRequest: (after.cpuMicros - before.cpuMicros) / Math.max(1, summary.responses) }
}

const began = Date.now()
console.log(`mounts ${sizes.join(', ')}: ${rounds} round(s), each with fresh hosts (one per size, started one after` +
  ` another), ${warmup} warm-up requests per connection slot and ${duration} s per size and request;` +
  ` ${canPin ? `hosts on core ${HOST_CORE}, autocannon on core ${LOAD_CORE}` : 'not pinned'}`)
const load = startChild('load.ts', [], LOAD_CORE)
let hosts: Mounted[] = []
const registered = new Map(sizes.map((size) => [size, [] as Mounted[]]))
const unlinted = new Map(sizes.map((size) => [size, [] as Mounted[]]))
const runs = new Map(sizes.map((size) => [size, KINDS.map(() => [] as Run[])]))
try {
  await load.ready
  for (let round = 0; round < rounds; round++) {
    // Fresh processes every round: two processes running the very same code differ by up to
    // ~15 % in CPU per request, so no size keeps a lucky (or unlucky) process throughout.
    for (const size of sizes) {
      // lint off: registered and stopped at once, before or after its lint-on twin in turn
      const off = async (): Promise<void> => {
        const host = await mount(size, false)
        unlinted.get(size)?.push(host)
        await host.child.stop()
      }
      if (round % 2 === 1) await off()
      hosts.push(await mount(size))
      if (round % 2 === 0) await off()
    }
    for (const host of hosts) registered.get(host.size)?.push(host)
    for (const host of hosts) for (const kind of KINDS) await measure(load, host, kind, { amount: warmup * CONNECTIONS * PIPELINING })
    // every size in turn, in the other direction every other round
    const order = round % 2 === 0 ? hosts : [...hosts].reverse()
    for (const [k, kind] of KINDS.entries()) {
      for (const host of order) runs.get(host.size)?.[k]?.push(await measure(load, host, kind, { duration }))
    }
    await Promise.all(hosts.map((h) => h.child.stop()))
    hosts = []
    console.log(`round ${round + 1}/${rounds} done (${((Date.now() - began) / 1000).toFixed(0)} s)`)
  }
  const exampleRuns = await onAndOff(exampleForms, rounds)

  const rows = sizes.map((size) => {
    const [get, post] = (runs.get(size) as Run[][]).map((list): Figures => ({
      rps: median(list.map((r) => r.rps)),
      p99: median(list.map((r) => r.p99)),
      cpuPerRequest: median(list.map((r) => r.cpuPerRequest)),
      runs: list.map((r) => ({ rps: Math.round(r.rps), p99: r.p99, cpuPerRequest: Math.round(r.cpuPerRequest * 100) / 100 }))
    })) as [Figures, Figures]
    const registration = (mounted: readonly Mounted[]): Registration => {
      const registrationMs = median(mounted.map((m) => m.registrationMs))
      return {
        registrationMs: Math.round(registrationMs),
        registrationMsEach: mounted.map((m) => Math.round(m.registrationMs)),
        msPerAddress: Math.round(100 * registrationMs / size) / 100,
        heapUsedMB: Math.round(median(mounted.map((m) => m.memory.heapUsed)) / 1e5) / 10,
        rssMB: Math.round(median(mounted.map((m) => m.memory.rss)) / 1e5) / 10
      }
    }
    const on = registration(registered.get(size) as Mounted[])
    const lintOff = registration(unlinted.get(size) as Mounted[])
    return { addresses: size, ...on, lintOff, lintRatio: ratio(on.registrationMs, lintOff.registrationMs), get, post }
  })
  const exampleRows = exampleForms.map(({ name, addresses }, i) => {
    const { on, off } = exampleRuns[i] as { on: number[], off: number[] }
    return {
      form: name,
      addresses,
      registrationMs: Math.round(median(on)),
      msPerAddress: Math.round(100 * median(on) / addresses) / 100,
      lintOff: { registrationMs: Math.round(median(off)), msPerAddress: Math.round(100 * median(off) / addresses) / 100 },
      lintRatio: ratio(median(on), median(off)),
      runsOn: on.map(Math.round),
      runsOff: off.map(Math.round)
    }
  })
  const first = rows[0]
  const lines = ['addresses  ready ms  ms/address  heap MB  GET req/s  GET µs/req  cost ×  POST req/s  POST µs/req  cost ×']
  for (const row of rows) {
    lines.push([
      String(row.addresses).padStart(9), String(row.registrationMs).padStart(8), row.msPerAddress.toFixed(2).padStart(10),
      row.heapUsedMB.toFixed(1).padStart(7), row.get.rps.toFixed(0).padStart(9), row.get.cpuPerRequest.toFixed(1).padStart(10),
      (row.get.cpuPerRequest / (first?.get.cpuPerRequest ?? 1)).toFixed(2).padStart(6), row.post.rps.toFixed(0).padStart(10),
      row.post.cpuPerRequest.toFixed(1).padStart(11), (row.post.cpuPerRequest / (first?.post.cpuPerRequest ?? 1)).toFixed(2).padStart(6)
    ].join('  '))
  }
  console.log(`\n${lines.join('\n')}`)
  console.log(`(medians; load on /a<N-1>; µs/req = host CPU per response; cost × = µs/req against ${first?.addresses ?? 1} address(es);` +
    ' heap after a forced GC)')
  const registrationLines = ['registration of                    addresses  ms/address lint on  off  on/off']
  const registrationLine = (name: string, addresses: number, on: number, off: number, times: number): string =>
    [name.padEnd(34), String(addresses).padStart(9), on.toFixed(2).padStart(18), off.toFixed(2).padStart(5), times.toFixed(2).padStart(6)].join('  ')
  for (const row of rows) registrationLines.push(registrationLine('order (workload.ts, a host)', row.addresses, row.msPerAddress, row.lintOff.msPerAddress, row.lintRatio))
  for (const row of exampleRows) registrationLines.push(registrationLine(`${row.form} (in process)`, row.addresses, row.msPerAddress, row.lintOff.msPerAddress, row.lintRatio))
  console.log(`\n${registrationLines.join('\n')}`)
  console.log('(medians of app.ready(); on/off = lint on against lint off)')

  const report = {
    ...machine(),
    rounds,
    durationSeconds: duration,
    warmupRequestsPerSlot: warmup,
    connections: CONNECTIONS,
    pipelining: PIPELINING,
    totalSeconds: Math.round((Date.now() - began) / 1000),
    rows,
    examples: exampleRows,
    problems
  }
  mkdirSync(resolve(out, '..'), { recursive: true })
  writeFileSync(out, `${JSON.stringify(report, null, 2)}\n`)
  console.log(`\nwritten to ${relative(ROOT, out)} in ${report.totalSeconds} s`)
} finally {
  await Promise.all(hosts.map((h) => h.child.stop()))
  await load.stop()
}
if (problems.length > 0) {
  console.error(`\n${problems.length} problem(s):\n${problems.map((p) => `  ${p}`).join('\n')}`)
  process.exitCode = 1
}
