// fastify-gpt against the bare Fastify baseline in steady state, measured from outside the hosts.
//   npm run bench:steady   per scenario, one baseline host and one fastify-gpt host started once
//                          and kept warm: a warm-up run on each, then N runs on each in turn
//                          (baseline first in even runs, fastify-gpt first in odd ones) of M
//                          requests; host CPU per request from /proc/<pid>/stat, req/s from
//                          autocannon; medians and ratios, written to benchmarks/results/steady-latest.json
//   --smoke                1 run of 1,000 requests: checks every scenario's status codes only
// Options: --runs N (5) --requests N (60,000; a tenth of it for 64 KB bodies) --only name,name
//          --connections N (20) --pipelining N (1) --verbose --out file
//          --baseline-keeps-tick (the baseline keeps a nextTick object alive as fastify-gpt does)
//          --module PATH (the gpt side loads another build's index.js, to measure a change)
//          --pairs N (1): the whole of it on N pairs of hosts in turn, medians over all their runs
// Hosts on core 1, autocannon on core 0 (taskset). See docs/benchmarks.md.
import { existsSync, readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { exitCodeOf, requireCounts, runProblems, sameAnswers } from './checks.ts'
import type { LoadSummary } from './load.ts'
import { canPin, cpuSeconds, HOST_CORE, LOAD_CORE, machine, median, ROOT, startChild, TICKS, writeResults, type Child } from './processes.ts'
import { jobOf, scenarios, type Scenario, type Side } from './workload.ts'

const { values } = parseArgs({
  options: {
    smoke: { type: 'boolean', default: false },
    runs: { type: 'string' },
    pairs: { type: 'string', default: '1' },
    requests: { type: 'string' },
    only: { type: 'string' },
    connections: { type: 'string', default: '20' },
    pipelining: { type: 'string', default: '1' },
    out: { type: 'string' },
    module: { type: 'string' },
    'baseline-keeps-tick': { type: 'boolean', default: false },
    verbose: { type: 'boolean', default: false }
  }
})
const smoke = values.smoke
const runs = Number(values.runs ?? (smoke ? 1 : 5))
const pairs = Number(values.pairs)
const requests = Number(values.requests ?? (smoke ? 1000 : 60_000))
const connections = Number(values.connections)
const pipelining = Number(values.pipelining)
requireCounts({ runs, pairs, requests, connections, pipelining })
const out = resolve(ROOT, values.out ?? (smoke ? 'benchmarks/results/steady-smoke.tmp.json' : 'benchmarks/results/steady-latest.json'))
const SIDES: readonly Side[] = ['baseline', 'gpt']

interface Steady {
  scenario: Scenario
  /** host.ts arguments beyond --side */
  host: readonly string[]
  /** the least ratio asked, of CPU per request and of req/s */
  target: number
  /** requests per run */
  amount: number
  /** whether the hosts answer an act at / (the sides' answers are compared after measuring) */
  acts: boolean
}

const named = (name: string): Scenario => scenarios.find((s) => s.name === name) as Scenario
const load = (scenario: Scenario): Scenario => ({ ...scenario, connections, pipelining })
const PLAIN = ['--rate-limit', 'off']
const steadies: readonly Steady[] = [
  { scenario: load(named('get')), host: PLAIN, target: 0.97, amount: requests, acts: true },
  { scenario: load(named('post-200B')), host: PLAIN, target: 0.95, amount: requests, acts: true },
  { scenario: load(named('post-2KB')), host: PLAIN, target: 0.95, amount: requests, acts: true },
  // a 64 KB act costs some 30 times a small one: a tenth of the requests still takes longest
  { scenario: load(named('post-64KB')), host: PLAIN, target: 0.90, amount: Math.max(1, Math.round(requests / 10)), acts: true },
  {
    scenario: {
      name: 'beside',
      what: 'GET a plain route (bytes sent as application/json); fastify-gpt\'s host also has an address at /other',
      rateLimit: false,
      method: 'GET',
      connections,
      pipelining,
      expect: { baseline: 200, gpt: 200 }
    },
    host: [...PLAIN, '--beside'],
    target: 0.97,
    amount: requests,
    acts: false
  }
]
const chosen = values.only === undefined ? steadies : steadies.filter((s) => values.only?.split(',').includes(s.scenario.name))
if (chosen.length === 0) throw new Error(`--only names no scenario; there are: ${steadies.map((s) => s.scenario.name).join(', ')}`)

interface Host { child: Child, url: string, pid: number }
interface Run { rps: number, p99: number, cpuPerRequest: number }

const problems: string[] = []

async function startHost (side: Side, steady: Steady): Promise<Host> {
  const other = side === 'gpt'
    ? (values.module === undefined ? [] : ['--module', values.module])
    : (values['baseline-keeps-tick'] ? ['--keep-tick'] : [])
  const child = startChild('host.ts', ['--side', side, ...steady.host, ...other], HOST_CORE)
  // The host's own pid: under taskset, the spawned pid is taskset's until it execs node.
  const { port, pid } = await child.ready as { port: number, pid: number }
  if (!readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('host.ts')) throw new Error(`pid ${pid} is not the ${side} host`)
  return { child, url: `http://127.0.0.1:${port}/`, pid }
}

/** One run on one host, its CPU read from outside: the host hears nothing over IPC. */
async function measure (loader: Child, host: Host, side: Side, steady: Steady): Promise<Run> {
  const { scenario } = steady
  const job = jobOf(host.url, scenario, { amount: steady.amount })
  const before = cpuSeconds(host.pid)
  const summary = await loader.ask<LoadSummary>({ type: 'run', job })
  const cpu = cpuSeconds(host.pid) - before
  problems.push(...runProblems(summary, scenario, side))
  return { rps: summary.rps, p99: summary.p99, cpuPerRequest: 1e6 * cpu / Math.max(1, summary.responses) }
}

interface SideFigures { rps: number, p99: number, cpuPerRequest: number, runs: Run[] }
interface Row {
  scenario: string
  what: string
  requestsPerRun: number
  baseline: SideFigures
  gpt: SideFigures
  /** median baseline µs/req over median gpt µs/req */
  cpuRatio: number
  /** median gpt req/s over median baseline req/s */
  rpsRatio: number
  target: number
  met: { cpu: boolean, rps: boolean }
}

const round2 = (value: number): number => Math.round(value * 100) / 100

function figures (measured: readonly Run[]): SideFigures {
  return {
    rps: Math.round(median(measured.map((r) => r.rps))),
    p99: median(measured.map((r) => r.p99)),
    cpuPerRequest: round2(median(measured.map((r) => r.cpuPerRequest))),
    runs: measured.map((r) => ({ rps: Math.round(r.rps), p99: r.p99, cpuPerRequest: round2(r.cpuPerRequest) }))
  }
}

/** Warm-up and alternating runs on one fresh pair of hosts; nothing but the load reaches them until the end. */
async function onePair (loader: Child, steady: Steady, measured: Record<Side, Run[]>): Promise<void> {
  const { scenario } = steady
  const hosts: Partial<Record<Side, Host>> = {}
  try {
    for (const side of SIDES) hosts[side] = await startHost(side, steady)
    const pair = hosts as Record<Side, Host>
    for (const side of SIDES) await measure(loader, pair[side], side, steady)
    for (let run = 0; run < runs; run++) {
      for (const side of run % 2 === 0 ? SIDES : [...SIDES].reverse()) {
        const result = await measure(loader, pair[side], side, steady)
        if (values.verbose) console.log(`  ${scenario.name} ${side}: ${result.cpuPerRequest.toFixed(2)} µs/req, ${result.rps.toFixed(0)} req/s`)
        measured[side].push(result)
      }
    }
    // only now, with the measuring over, does anything but the load reach the hosts
    problems.push(...(await sameAnswers({ baseline: pair.baseline.url, gpt: pair.gpt.url }, !steady.acts)).map((p) => `${scenario.name}: ${p}`))
  } finally {
    await Promise.all(Object.values(hosts).map((host) => host.child.stop()))
  }
}

async function scenarioRow (loader: Child, steady: Steady): Promise<Row> {
  const measured: Record<Side, Run[]> = { baseline: [], gpt: [] }
  for (let pair = 0; pair < pairs; pair++) await onePair(loader, steady, measured)
  const baseline = figures(measured.baseline)
  const gpt = figures(measured.gpt)
  const cpuRatio = baseline.cpuPerRequest / gpt.cpuPerRequest
  const rpsRatio = gpt.rps / baseline.rps
  return {
    scenario: steady.scenario.name,
    what: steady.scenario.what,
    requestsPerRun: steady.amount,
    baseline,
    gpt,
    cpuRatio: Math.round(cpuRatio * 1000) / 1000,
    rpsRatio: Math.round(rpsRatio * 1000) / 1000,
    target: steady.target,
    met: { cpu: cpuRatio >= steady.target, rps: rpsRatio >= steady.target }
  }
}

function table (rows: readonly Row[]): string {
  const mark = (met: boolean): string => smoke ? ' ' : met ? '✓' : '✗'
  const columns: [string, number, (row: Row) => string][] = [
    ['scenario', -10, (r) => r.scenario],
    ['base µs/req', 11, (r) => r.baseline.cpuPerRequest.toFixed(2)],
    ['gpt µs/req', 10, (r) => r.gpt.cpuPerRequest.toFixed(2)],
    ['CPU ratio', 11, (r) => `${r.cpuRatio.toFixed(3)} ${mark(r.met.cpu)}`],
    ['base req/s', 10, (r) => String(r.baseline.rps)],
    ['gpt req/s', 9, (r) => String(r.gpt.rps)],
    ['req/s ratio', 11, (r) => `${r.rpsRatio.toFixed(3)} ${mark(r.met.rps)}`],
    ['target', 6, (r) => `≥ ${r.target.toFixed(2)}`]
  ]
  const line = (cells: string[]): string => cells.map((c, i) => {
    const width = (columns[i] as [string, number, unknown])[1]
    return width < 0 ? c.padEnd(-width) : c.padStart(width)
  }).join('  ')
  return [line(columns.map(([head]) => head)), ...rows.map((row) => line(columns.map(([, , cell]) => cell(row))))].join('\n')
}

async function main (): Promise<number> {
  if (!existsSync(`/proc/${process.pid}/stat`)) throw new Error('the steady-state bench reads host CPU from /proc: Linux only')
  const began = Date.now()
  console.log(`fastify-gpt vs Fastify baseline in steady state: per scenario, ${pairs === 1 ? 'one host' : `${pairs} hosts in turn`} per side kept warm, 1 warm-up run then ${runs} alternating run(s) of ` +
    `${requests} requests (a tenth for 64 KB), ${connections} connections × ${pipelining}; host CPU from /proc/<pid>/stat (${TICKS} ticks/s); ` +
    `${canPin ? `hosts on core ${HOST_CORE}, autocannon on core ${LOAD_CORE}` : 'no taskset: not pinned'}`)
  const loader = startChild('load.ts', [], LOAD_CORE)
  const rows: Row[] = []
  try {
    await loader.ready
    for (const steady of chosen) {
      rows.push(await scenarioRow(loader, steady))
      if (!smoke) console.log(`${steady.scenario.name} done (${Math.round((Date.now() - began) / 1000)} s)`)
    }
  } finally {
    await loader.stop()
  }
  console.log(`\n${table(rows)}`)
  console.log('(medians of the runs; µs/req = host CPU time per response, read from /proc; CPU ratio = base µs/req / gpt µs/req;\n' +
    ` req/s ratio = gpt / base; ✓ where the ratio meets the target${smoke ? '; smoke: statuses only, the figures mean nothing' : ''})`)
  const report = {
    ...machine(),
    mode: 'steady',
    gptImportedFrom: 'dist/ (the built package, as users import it)',
    smoke,
    runs,
    pairs,
    requestsPerRun: requests,
    connections,
    pipelining,
    clockTicksPerSecond: TICKS,
    totalSeconds: Math.round((Date.now() - began) / 1000),
    rows,
    problems
  }
  writeResults(out, report)
  return exitCodeOf(problems)
}

process.exitCode = await main()
