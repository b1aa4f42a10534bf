// What the `idempotency` option costs an act (docs/idempotency.md), side by side in one run with a
// bare Fastify POST route and with the same address without the option. Every host in its own
// process (benchmarks/host.ts: the small order of benchmarks/workload.ts, `rateLimit: false`),
// the keys kept an hour and never full; a real redis-server for the shared keys.
//   bare           Fastify with `schema: { body: form }`, the baseline
//   address        fastify-gpt without the option
//   no-key         with `idempotency: true`, a POST without an Idempotency-Key
//   first          a fresh key every request: the claim, the act, the answer kept
//   replay         the same key and bytes every request: the kept answer sent again, the act never run
//   shared-*       the three with `share: { redis }`: the claim and the kept answer in Redis
//   npm run bench:idempotency   hosts on core 1 and autocannon on core 0 (taskset), 50 connections;
//                               per case a warm-up of 20,000 requests, then 5 runs of 60,000 on each
//                               case in turn (the order rotated every run); host CPU per request from
//                               /proc/<pid>/stat (redis-server's too, on the shared cases), req/s
//                               and p99 from autocannon. Writes benchmarks/results/idempotency.json
//   --smoke                     no warm-up, 1 run of 200 requests, 10 connections: that every
//                               request was answered 200, each act ran as often as it should, and a
//                               replay is marked replayed; the figures mean nothing
// Options: --runs N (5) --requests N (60,000) --warmup N (20,000) --connections N (50)
//          --only bare,address,... --out FILE --verbose
//          --before PATH (another build's index.js: its own cases before-first, before-replay,
//          before-shared-first and before-shared-replay, measured in the same runs)
import { Buffer } from 'node:buffer'
import type { ChildProcess } from 'node:child_process'
import { resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { freePort } from '../test/helpers/port.ts'
import { startRedis, stopRedis, waitForRedis } from '../test/helpers/redis.ts'
import { exitCodeOf, requireCounts } from './checks.ts'
import type { LoadJob, LoadSummary } from './load.ts'
import { canPin, cpuSeconds, HOST_CORE, LOAD_CORE, machine, median, ROOT, rssBytes, startChild, TICKS, writeResults, type Child } from './processes.ts'
import { bodies } from './workload.ts'

const { values } = parseArgs({
  options: {
    smoke: { type: 'boolean', default: false },
    runs: { type: 'string' },
    requests: { type: 'string' },
    warmup: { type: 'string' },
    connections: { type: 'string' },
    only: { type: 'string' },
    before: { type: 'string' },
    out: { type: 'string' },
    verbose: { type: 'boolean', default: false }
  }
})
const smoke = values.smoke
const runs = Number(values.runs ?? (smoke ? 1 : 5))
const requests = Number(values.requests ?? (smoke ? 200 : 60_000))
const warmup = Number(values.warmup ?? 20_000)
const connections = Number(values.connections ?? (smoke ? 10 : 50))
requireCounts({ runs, requests, warmup, connections })
const out = resolve(ROOT, values.out ?? (smoke ? 'benchmarks/results/idempotency-smoke.tmp.json' : 'benchmarks/results/idempotency.json'))

type HostName = 'bare' | 'address' | 'local' | 'shared' | 'before-local' | 'before-shared'
interface Case {
  readonly name: string
  readonly what: string
  readonly host: HostName
  /** No Idempotency-Key, a fresh one each request, or one key every request. */
  readonly key: 'none' | 'fresh' | 'fixed'
}
const CASES: readonly Case[] = [
  { name: 'bare', what: 'bare Fastify, `schema: { body: form }`', host: 'bare', key: 'none' },
  { name: 'address', what: 'fastify-gpt without the option', host: 'address', key: 'none' },
  { name: 'no-key', what: '`idempotency: true`, no Idempotency-Key', host: 'local', key: 'none' },
  { name: 'first', what: '`idempotency: true`, a fresh key each request (claim, act, keep)', host: 'local', key: 'fresh' },
  { name: 'replay', what: '`idempotency: true`, one key and the same bytes (the kept answer)', host: 'local', key: 'fixed' },
  { name: 'shared-no-key', what: 'with `share: { redis }`, no Idempotency-Key', host: 'shared', key: 'none' },
  { name: 'shared-first', what: 'with `share: { redis }`, a fresh key each request', host: 'shared', key: 'fresh' },
  { name: 'shared-replay', what: 'with `share: { redis }`, one key and the same bytes', host: 'shared', key: 'fixed' },
  ...(values.before === undefined
    ? []
    : [
        { name: 'before-first', what: 'the build --before, a fresh key each request', host: 'before-local', key: 'fresh' },
        { name: 'before-replay', what: 'the build --before, one key and the same bytes', host: 'before-local', key: 'fixed' },
        { name: 'before-shared-first', what: 'the build --before with `share`, a fresh key each request', host: 'before-shared', key: 'fresh' },
        { name: 'before-shared-replay', what: 'the build --before with `share`, one key and the same bytes', host: 'before-shared', key: 'fixed' }
      ] as const)
]
const only = values.only?.split(',')
const chosen = only === undefined ? CASES : CASES.filter((c) => only.includes(c.name))
if (chosen.length === 0) throw new Error(`--only names no case; there are: ${CASES.map((c) => c.name).join(', ')}`)

// ---- hosts ----

interface Host { name: HostName, child: Child, url: string, pid: number }
const problems: string[] = []

async function startHost (name: HostName, redisPort: number): Promise<Host> {
  const before = name.startsWith('before-') ? ['--module', resolve(values.before as string)] : []
  const kind = name.replace('before-', '')
  const args = name === 'bare'
    ? ['--side', 'baseline']
    : ['--side', 'gpt', ...before, ...(kind === 'local' ? ['--idempotency', 'local'] : kind === 'shared' ? ['--idempotency', 'shared', '--redis-port', String(redisPort)] : [])]
  const child = startChild('host.ts', args, HOST_CORE)
  const { port, pid } = await child.ready as { port: number, pid: number }
  return { name, child, url: `http://127.0.0.1:${port}/`, pid }
}

const fixedKey = (c: Case): string => `"replay-${c.name}"`
const post = (url: string, key?: string): Promise<Response> =>
  fetch(url, { method: 'POST', body: bodies.small, headers: { 'content-type': 'application/json', ...(key === undefined ? {} : { 'idempotency-key': key }) } })

/** A replayed case's key, used once: the first answer is the act's, the second the kept one, marked. */
async function prime (c: Case, host: Host): Promise<void> {
  const first = await post(host.url, fixedKey(c))
  const firstText = await first.text()
  const again = await post(host.url, fixedKey(c))
  const againText = await again.text()
  if (first.status !== 200 || first.headers.get('idempotent-replayed') !== null) problems.push(`${c.name}: the key's first request answered ${first.status}, replayed ${first.headers.get('idempotent-replayed')}`)
  if (again.status !== 200 || again.headers.get('idempotent-replayed') !== 'true' || againText !== firstText) {
    problems.push(`${c.name}: a retry answered ${again.status}, replayed ${again.headers.get('idempotent-replayed')}, ${againText === firstText ? 'the same' : 'other'} bytes`)
  }
}

// ---- runs ----

interface Run { rps: number, p99: number, loadCpu: number, cpuPerRequest: number, redisCpuPerRequest?: number }

function jobOf (c: Case, host: Host, amount: number): LoadJob {
  const key = c.key === 'fresh' ? '"[<id>]"' : c.key === 'fixed' ? fixedKey(c) : undefined
  return {
    url: host.url,
    method: 'POST',
    body: bodies.small,
    connections,
    pipelining: 1,
    amount,
    // every case's requests rebuilt alike, so that the load generator does the same work for each
    idReplacement: true,
    ...(key === undefined ? {} : { headers: { 'idempotency-key': key } })
  }
}

const actsOf = async (host: Host): Promise<number> => (await host.child.ask<{ acts: number }>({ type: 'usage' })).acts

async function measure (loader: Child, c: Case, host: Host, redis: ChildProcess | undefined, amount: number): Promise<Run> {
  const actsBefore = await actsOf(host)
  const before = cpuSeconds(host.pid)
  const redisBefore = redis?.pid === undefined ? 0 : cpuSeconds(redis.pid)
  const summary = await loader.ask<LoadSummary>({ type: 'run', job: jobOf(c, host, amount) })
  const cpu = cpuSeconds(host.pid) - before
  const redisCpu = redis?.pid === undefined ? 0 : cpuSeconds(redis.pid) - redisBefore
  const acts = await actsOf(host) - actsBefore
  const wrong = summary.responses - (summary.statuses['200'] ?? 0)
  if (summary.responses === 0 || wrong > 0 || summary.errors > 0 || summary.timeouts > 0) {
    problems.push(`${c.name}: ${wrong} of ${summary.responses} not 200 (${JSON.stringify(summary.statuses)}), ${summary.errors} errors, ${summary.timeouts} timeouts`)
  }
  // a replay never acts; every other request does, once
  const expected = c.key === 'fixed' ? 0 : summary.responses
  if (acts !== expected) problems.push(`${c.name}: the act ran ${acts} times for ${summary.responses} responses (${expected} expected)`)
  const per = (seconds: number): number => 1e6 * seconds / Math.max(1, summary.responses)
  return { rps: summary.rps, p99: summary.p99, loadCpu: summary.loadCpu, cpuPerRequest: per(cpu), ...(c.host.endsWith('shared') ? { redisCpuPerRequest: per(redisCpu) } : {}) }
}

/** Every case warmed up, then the runs, every case first in turn. */
async function measureAll (loader: Child, hosts: ReadonlyMap<HostName, Host>, redis: ChildProcess): Promise<Map<string, Run[]>> {
  const measured = new Map<string, Run[]>(chosen.map((c) => [c.name, []]))
  const hostOf = (c: Case): Host => hosts.get(c.host) as Host
  const redisOf = (c: Case): ChildProcess | undefined => c.host.endsWith('shared') ? redis : undefined
  for (const c of chosen) if (c.key === 'fixed') await prime(c, hostOf(c))
  if (!smoke) {
    for (const c of chosen) await measure(loader, c, hostOf(c), redisOf(c), warmup)
    console.log('warm-up done')
  }
  for (let run = 0; run < runs; run++) {
    const order = chosen.map((_, i) => chosen[(i + run) % chosen.length] as Case)
    for (const c of order) {
      const result = await measure(loader, c, hostOf(c), redisOf(c), requests)
      if (values.verbose) console.log(`  ${c.name}: ${result.cpuPerRequest.toFixed(1)} µs/req, ${Math.round(result.rps)} req/s`)
      measured.get(c.name)?.push(result)
    }
    if (!smoke) console.log(`run ${run + 1} of ${runs} done`)
  }
  return measured
}

// ---- report ----

const round = (value: number, places = 1): number => Math.round(value * 10 ** places) / 10 ** places

interface Row {
  name: string
  what: string
  cpuPerRequest: number
  rps: number
  p99: number
  /** The load generator's CPU over the run's length: near 1, it and not the host set the req/s. */
  loadCpu: number
  redisCpuPerRequest?: number
  /** bare's µs/req ÷ this case's, and the address's without the option ÷ this case's. */
  ratios: { bare?: number, address?: number }
  /** µs/req over the address without the option. */
  overAddress?: number
  cpuRuns: number[]
}

function rowsOf (measured: ReadonlyMap<string, Run[]>): Row[] {
  const cpu = (name: string): number | undefined => {
    const list = measured.get(name)
    return list === undefined ? undefined : median(list.map((r) => r.cpuPerRequest))
  }
  const bare = cpu('bare')
  const address = cpu('address')
  return chosen.map((c) => {
    const list = measured.get(c.name) ?? []
    const mine = median(list.map((r) => r.cpuPerRequest))
    const redisRuns = list.map((r) => r.redisCpuPerRequest).filter((v) => v !== undefined)
    return {
      name: c.name,
      what: c.what,
      cpuPerRequest: round(mine),
      rps: Math.round(median(list.map((r) => r.rps))),
      p99: median(list.map((r) => r.p99)),
      loadCpu: round(median(list.map((r) => r.loadCpu)), 2),
      ...(redisRuns.length === 0 ? {} : { redisCpuPerRequest: round(median(redisRuns)) }),
      ratios: {
        ...(bare === undefined ? {} : { bare: round(bare / mine, 3) }),
        ...(address === undefined ? {} : { address: round(address / mine, 3) })
      },
      ...(address === undefined ? {} : { overAddress: round(mine - address) }),
      cpuRuns: list.map((r) => round(r.cpuPerRequest))
    }
  })
}

function print (rows: readonly Row[]): void {
  const head = ['case', 'host µs/req', 'bare/case', 'address/case', 'µs over address', 'redis µs/req', 'req/s', 'p99 ms', 'load CPU']
  const line = (cells: readonly string[]): string => cells.map((cell, i) => i === 0 ? cell.padEnd(14) : cell.padStart(Math.max(9, (head[i]?.length ?? 0) + 1))).join(' ')
  console.log(`\nhost CPU per request (medians; a ratio a/case is a's µs/req ÷ the case's: < 1 where the case costs more)\n${line(head)}`)
  for (const row of rows) {
    console.log(line([
      row.name,
      row.cpuPerRequest.toFixed(1),
      String(row.ratios.bare ?? '-'),
      String(row.ratios.address ?? '-'),
      row.overAddress === undefined ? '-' : row.overAddress.toFixed(1),
      row.redisCpuPerRequest?.toFixed(1) ?? '-',
      String(row.rps),
      String(row.p99),
      row.loadCpu.toFixed(2)
    ]))
  }
  if (smoke) console.log('(smoke: statuses, act counts and the replayed mark only, the figures mean nothing)')
}

async function main (): Promise<number> {
  const began = Date.now()
  console.log(`idempotency: ${chosen.map((c) => c.name).join(', ')}; hosts in their own processes; ${smoke ? 'no warm-up' : `a warm-up of ${warmup} per case`}, then ${runs} runs of ${requests} requests per case in turn, ${connections} connections; ` +
    `host CPU from /proc/<pid>/stat (${TICKS} ticks/s); ${canPin ? `hosts on core ${HOST_CORE}, autocannon on core ${LOAD_CORE}` : 'no taskset: not pinned'}`)
  const redisPort = await freePort()
  const redis = startRedis(redisPort)
  const hosts = new Map<HostName, Host>()
  const loader = startChild('load.ts', [], LOAD_CORE)
  let measured: Map<string, Run[]>
  const rssMb: Partial<Record<HostName, number>> = {}
  try {
    await waitForRedis(redisPort)
    await loader.ready
    for (const name of new Set(chosen.map((c) => c.host))) hosts.set(name, await startHost(name, redisPort))
    measured = await measureAll(loader, hosts, redis)
    // what each host holds after the runs: the local keys' kept answers are in its heap
    for (const host of hosts.values()) rssMb[host.name] = round(rssBytes(host.pid) / 2 ** 20)
  } finally {
    await Promise.all([...hosts.values()].map((host) => host.child.stop()))
    await loader.stop()
    await stopRedis(redis)
  }
  const rows = rowsOf(measured)
  print(rows)
  console.log(`\nRSS after the runs (MB): ${Object.entries(rssMb).map(([name, mb]) => `${name} ${mb}`).join(', ')}`)
  const report = {
    ...machine(),
    mode: 'idempotency',
    smoke,
    runs,
    requestsPerRun: requests,
    warmup: smoke ? 0 : warmup,
    connections,
    bodyBytes: Buffer.byteLength(bodies.small),
    clockTicksPerSecond: TICKS,
    totalSeconds: Math.round((Date.now() - began) / 1000),
    rows,
    rssMb,
    problems
  }
  writeResults(out, report)
  return exitCodeOf(problems)
}

process.exitCode = await main()
