// What serving the API catalog costs (docs/catalog.md): GET /.well-known/api-catalog of a host of
// 1,000 addresses with fastify-gpt/catalog, against a bare Fastify route sending the same bytes,
// each host in its own process (benchmarks/catalog-host.ts), measured in the same runs in rotated
// order: host CPU per request from /proc/<pid>/stat, req/s and p99 from autocannon.
//   gpt     the catalog, on the host of 1,000 addresses
//   beside  a plain route of that same host sending the same bytes: the catalog's own cost, apart
//           from what a host of 1,000 addresses costs every route (its heap, its router)
//   bare    a plain route sending the same bytes, alone in its process: the baseline
//   npm run bench:catalog     hosts on core 1 and autocannon on core 0 (taskset), 10 connections;
//                             a warm-up of 1,000 requests a host, then 5 runs of 5,000 on each in
//                             turn. Writes benchmarks/results/catalog-latest.json
//   --smoke                   100 addresses, no warm-up, 1 run of 50 requests, 5 connections: that
//                             every route answers 200 with the same bytes; the figures mean nothing
// Options: --addresses N (1,000) --runs N (5) --requests N (5,000) --warmup N (1,000)
//          --connections N (10) --out FILE --verbose
import { Buffer } from 'node:buffer'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { exitCodeOf, requireCounts } from './checks.ts'
import type { LoadJob, LoadSummary } from './load.ts'
import { canPin, cpuSeconds, HOST_CORE, LOAD_CORE, machine, median, ROOT, startChild, TICKS, writeResults, type Child } from './processes.ts'

const { values } = parseArgs({
  options: {
    smoke: { type: 'boolean', default: false },
    addresses: { type: 'string' },
    runs: { type: 'string' },
    requests: { type: 'string' },
    warmup: { type: 'string' },
    connections: { type: 'string' },
    out: { type: 'string' },
    verbose: { type: 'boolean', default: false }
  }
})
const smoke = values.smoke
const addresses = Number(values.addresses ?? (smoke ? 100 : 1000))
const runs = Number(values.runs ?? (smoke ? 1 : 5))
const requests = Number(values.requests ?? (smoke ? 50 : 5000))
const warmup = Number(values.warmup ?? 1000)
const connections = Number(values.connections ?? (smoke ? 5 : 10))
requireCounts({ addresses, runs, requests, warmup, connections })
const out = resolve(ROOT, values.out ?? (smoke ? 'benchmarks/results/catalog-smoke.tmp.json' : 'benchmarks/results/catalog-latest.json'))
const PATH = '/.well-known/api-catalog'

type Side = 'bare' | 'beside' | 'gpt'
const SIDES: readonly Side[] = ['bare', 'beside', 'gpt']
interface Host { side: Side, child: Child, url: string, pid: number }
interface Run { cpuPerRequest: number, rps: number, p99: number, loadCpu: number }
const problems: string[] = []

async function startHost (side: Side, args: readonly string[]): Promise<Host> {
  const child = startChild('catalog-host.ts', ['--side', side, ...args], HOST_CORE)
  const { port, pid } = await child.ready as { port: number, pid: number }
  return { side, child, url: `http://127.0.0.1:${port}${PATH}`, pid }
}

async function measure (loader: Child, host: Host, amount: number): Promise<Run> {
  const job: LoadJob = { url: host.url, method: 'GET', connections, pipelining: 1, amount: Math.max(connections, amount) }
  const before = cpuSeconds(host.pid)
  const summary = await loader.ask<LoadSummary>({ type: 'run', job })
  const cpu = cpuSeconds(host.pid) - before
  const wrong = summary.responses - (summary.statuses['200'] ?? 0)
  if (summary.responses === 0 || wrong > 0 || summary.errors > 0 || summary.timeouts > 0) {
    problems.push(`${host.side}: ${wrong} of ${summary.responses} not 200 (${JSON.stringify(summary.statuses)}), ${summary.errors} errors, ${summary.timeouts} timeouts`)
  }
  return { cpuPerRequest: 1e6 * cpu / Math.max(1, summary.responses), rps: summary.rps, p99: summary.p99, loadCpu: summary.loadCpu }
}

const round = (value: number, places = 1): number => Math.round(value * 10 ** places) / 10 ** places

async function main (): Promise<number> {
  const began = Date.now()
  console.log(`catalog: GET ${PATH} of ${addresses} addresses, fastify-gpt/catalog against a bare route sending the same bytes; hosts in their own processes; ` +
    `${smoke ? 'no warm-up' : `a warm-up of ${warmup} a host`}, then ${runs} runs of ${requests} requests a host in turn, ${connections} connections; ` +
    `host CPU from /proc/<pid>/stat (${TICKS} ticks/s); ${canPin ? `hosts on core ${HOST_CORE}, autocannon on core ${LOAD_CORE}` : 'no taskset: not pinned'}`)
  const folder = mkdtempSync(join(tmpdir(), 'catalog-bench-'))
  const loader = startChild('load.ts', [], LOAD_CORE)
  const hosts: Host[] = []
  const measured: Record<Side, Run[]> = { bare: [], beside: [], gpt: [] }
  let bytes = 0
  try {
    await loader.ready
    const gpt = await startHost('gpt', ['--addresses', String(addresses)])
    hosts.push(gpt)
    const body = Buffer.from(await (await fetch(gpt.url)).arrayBuffer())
    bytes = body.length
    writeFileSync(join(folder, 'catalog.json'), body)
    const bare = await startHost('bare', ['--bytes', join(folder, 'catalog.json')])
    hosts.push(bare, { ...gpt, side: 'beside', url: gpt.url.replace(PATH, '/beside') })
    for (const host of hosts) {
      const sent = Buffer.from(await (await fetch(host.url)).arrayBuffer())
      if (!sent.equals(body)) problems.push(`${host.side}: GET does not send the catalog's bytes`)
    }
    const listed = (JSON.parse(body.toString()) as { linkset: Array<{ item?: unknown[] }> }).linkset[0]?.item?.length
    if (listed !== addresses) problems.push(`gpt: the catalog lists ${listed} addresses, not ${addresses}`)
    if (!smoke) for (const host of hosts) await measure(loader, host, warmup)
    for (let run = 0; run < runs; run++) {
      for (const host of hosts.map((_, i) => hosts[(i + run) % hosts.length] as Host)) {
        const result = await measure(loader, host, requests)
        if (values.verbose) console.log(`  ${host.side}: ${result.cpuPerRequest.toFixed(1)} µs/req, ${Math.round(result.rps)} req/s`)
        measured[host.side].push(result)
      }
      if (!smoke) console.log(`run ${run + 1} of ${runs} done`)
    }
  } finally {
    await Promise.all(hosts.filter((host) => host.side !== 'beside').map((host) => host.child.stop()))
    await loader.stop()
    rmSync(folder, { recursive: true, force: true })
  }
  const row = (side: Side): Record<string, number | number[]> => ({
    cpuPerRequest: round(median(measured[side].map((r) => r.cpuPerRequest))),
    rps: Math.round(median(measured[side].map((r) => r.rps))),
    p99: median(measured[side].map((r) => r.p99)),
    loadCpu: round(median(measured[side].map((r) => r.loadCpu)), 2),
    cpuRuns: measured[side].map((r) => round(r.cpuPerRequest))
  })
  const rows = { bare: row('bare'), beside: row('beside'), gpt: row('gpt') }
  const cpu = (side: Side): number => rows[side].cpuPerRequest as number
  const rps = (side: Side): number => rows[side].rps as number
  // Ratios as the other benchmarks give them: x ÷ gpt for CPU (< 1 where the catalog costs more), gpt ÷ x for req/s.
  const ratios = {
    cpu: { bare: round(cpu('bare') / cpu('gpt'), 3), beside: round(cpu('beside') / cpu('gpt'), 3) },
    rps: { bare: round(rps('gpt') / rps('bare'), 3), beside: round(rps('gpt') / rps('beside'), 3) }
  }
  console.log(`\n${bytes} bytes a response (medians)\n${'host'.padEnd(7)} ${'µs/req'.padStart(9)} ${'req/s'.padStart(9)} ${'p99 ms'.padStart(9)} ${'load CPU'.padStart(9)}`)
  for (const side of SIDES) {
    console.log(`${side.padEnd(7)} ${String(cpu(side).toFixed(1)).padStart(9)} ${String(rps(side)).padStart(9)} ${String(rows[side].p99).padStart(9)} ${String(rows[side].loadCpu).padStart(9)}`)
  }
  console.log(`ratios: CPU per request bare/gpt ${ratios.cpu.bare}, beside/gpt ${ratios.cpu.beside}; req/s gpt/bare ${ratios.rps.bare}, gpt/beside ${ratios.rps.beside}`)
  if (smoke) console.log('(smoke: statuses and bytes only, the figures mean nothing)')
  const report = {
    ...machine(),
    mode: 'catalog',
    smoke,
    addresses,
    bytes,
    runs,
    requestsPerRun: requests,
    warmup: smoke ? 0 : warmup,
    connections,
    clockTicksPerSecond: TICKS,
    totalSeconds: Math.round((Date.now() - began) / 1000),
    rows,
    ratios,
    problems
  }
  writeResults(out, report)
  return exitCodeOf(problems)
}

process.exitCode = await main()
