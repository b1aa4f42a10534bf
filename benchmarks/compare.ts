// fastify-gpt against a bare Fastify baseline on the same form, side by side.
//   npm run bench            8 rounds of 1 s per scenario and side (fresh hosts and a short
//                            warm-up each round), medians and ratios,
//                            written to benchmarks/results/latest.json
//   npm run bench:smoke      1 round of 1 s, no warm-up: checks every scenario's status codes only
// Options: --rounds N --duration S (whole seconds: autocannon rounds up) --warmup N (requests per
// connection and pipelined slot, 0 for none) --only name,name --verbose --out file
// Each host runs in its own process on core 1, autocannon in another on core 0 (taskset);
// within a round, runs alternate between the sides (baseline, gpt, baseline, gpt, ...; gpt first
// in odd rounds).
// See docs/benchmarks.md.
import { resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { exitCodeOf, runProblems, sameAnswers } from './checks.ts'
import type { LoadSummary } from './load.ts'
import { canPin, HOST_CORE, LOAD_CORE, machine, median, ROOT, startChild, writeResults, type Child } from './processes.ts'
import { jobOf, scenarios, type Scenario, type Side } from './workload.ts'

const { values } = parseArgs({
  options: {
    smoke: { type: 'boolean', default: false },
    rounds: { type: 'string' },
    duration: { type: 'string' },
    warmup: { type: 'string' },
    only: { type: 'string' },
    out: { type: 'string' },
    verbose: { type: 'boolean', default: false }
  }
})
const smoke = values.smoke
const rounds = Number(values.rounds ?? (smoke ? 1 : 8))
const duration = Number(values.duration ?? 1)
/** Warm-up requests per connection and pipelined slot: 20 x 500 for the small scenarios. */
const warmup = Number(values.warmup ?? (smoke ? 0 : 20))
const out = resolve(ROOT, values.out ?? (smoke ? 'benchmarks/results/smoke.tmp.json' : 'benchmarks/results/latest.json'))
const chosen = values.only === undefined ? scenarios : scenarios.filter((s) => values.only?.split(',').includes(s.name))
if (chosen.length === 0) throw new Error(`--only names no scenario; there are: ${scenarios.map((s) => s.name).join(', ')}`)
const verbose = values.verbose
const SIDES: readonly Side[] = ['baseline', 'gpt']

interface Host { child: Child, url: string }
interface Measure extends LoadSummary { cpuPerRequest: number, serverCpu: number, wrong: number }

const problems: string[] = []

async function startHost (side: Side, rateLimit: boolean): Promise<Host> {
  const child = startChild('host.ts', ['--side', side, '--rate-limit', rateLimit ? 'on' : 'off'], HOST_CORE)
  const { port } = await child.ready as { port: number }
  return { child, url: `http://127.0.0.1:${port}/` }
}

/** One run of one scenario against one host, with the host's CPU time around it. */
async function measure (load: Child, host: Host, side: Side, scenario: Scenario, length: { duration: number } | { amount: number }): Promise<Measure> {
  const job = jobOf(host.url, scenario, length)
  const before = await host.child.ask<{ cpuMicros: number }>({ type: 'usage' })
  const summary = await load.ask<LoadSummary>({ type: 'run', job })
  const after = await host.child.ask<{ cpuMicros: number }>({ type: 'usage' })
  const cpu = after.cpuMicros - before.cpuMicros
  const wrong = summary.responses - (summary.statuses[String(scenario.expect[side])] ?? 0)
  problems.push(...runProblems(summary, scenario, side))
  return { ...summary, cpuPerRequest: cpu / Math.max(1, summary.responses), serverCpu: cpu / 1e6 / summary.seconds, wrong }
}

/** Both sides must serve the same bytes on GET and the same result to an accepted act. */
async function preflight (hosts: Readonly<Record<Side, Host>>): Promise<void> {
  problems.push(...await sameAnswers({ baseline: hosts.baseline.url, gpt: hosts.gpt.url }))
}

const round2 = (value: number): number => Math.round(value * 100) / 100
const fixed = (value: number, digits = 0): string => value.toFixed(digits)
const pad = (text: string, width: number): string => text.padStart(width)

function table (rows: readonly Row[]): string {
  const head = ['scenario', 'base req/s', 'gpt req/s', 'ratio', 'base p99', 'gpt p99', 'base µs/req', 'gpt µs/req', 'CPU ratio', 'target']
  const widths = [15, 10, 9, 5, 8, 7, 11, 10, 9, 11]
  const mark = (value: number, target: number | undefined): string => target === undefined ? '' : value >= target ? '✓' : '✗'
  const lines = [head.map((h, i) => i === 0 ? h.padEnd(widths[0] as number) : pad(h, widths[i] as number)).join('  ')]
  for (const row of rows) {
    const cells = [
      row.scenario.padEnd(widths[0] as number),
      fixed(row.baseline.rps), fixed(row.gpt.rps), fixed(row.ratio, 2),
      `${fixed(row.baseline.p99)} ms`, `${fixed(row.gpt.p99)} ms`,
      fixed(row.baseline.cpuPerRequest, 1), fixed(row.gpt.cpuPerRequest, 1), fixed(row.cpuRatio, 2),
      row.target === undefined ? '-' : `${fixed(row.target, 2)} ${mark(row.ratio, row.target)} ${mark(row.cpuRatio, row.target)}`
    ]
    lines.push(cells.map((c, i) => i === 0 ? c : pad(c, widths[i] as number)).join('  '))
  }
  return lines.join('\n')
}

interface SideFigures {
  rps: number
  p99: number
  p50: number
  cpuPerRequest: number
  /** host CPU seconds per second of load: near 1 means the host's core was saturated */
  serverCpu: number
  /** autocannon's CPU seconds per second of load */
  loadCpu: number
  runs: { rps: number, p99: number, cpuPerRequest: number, serverCpu: number, loadCpu: number }[]
}
interface Row {
  scenario: string
  what: string
  connections: number
  pipelining: number
  baseline: SideFigures
  gpt: SideFigures
  /** median gpt req/s over median baseline req/s */
  ratio: number
  /** median gpt p99 over median baseline p99 */
  p99Ratio: number
  /** median baseline µs/req over median gpt µs/req: the req/s ratio at equal host CPU */
  cpuRatio: number
  /** per-round gpt/baseline req/s, to show the spread */
  roundRatios: number[]
  target?: number
}

function figures (runs: readonly Measure[]): SideFigures {
  return {
    rps: median(runs.map((r) => r.rps)),
    p99: median(runs.map((r) => r.p99)),
    p50: median(runs.map((r) => r.p50)),
    cpuPerRequest: median(runs.map((r) => r.cpuPerRequest)),
    serverCpu: median(runs.map((r) => r.serverCpu)),
    loadCpu: median(runs.map((r) => r.loadCpu)),
    runs: runs.map((r) => ({
      rps: Math.round(r.rps),
      p99: r.p99,
      cpuPerRequest: round2(r.cpuPerRequest),
      serverCpu: round2(r.serverCpu),
      loadCpu: round2(r.loadCpu)
    }))
  }
}

async function main (): Promise<number> {
  const began = Date.now()
  console.log(`fastify-gpt vs Fastify baseline: ${rounds} round(s) of ${duration} s per scenario and side` +
    `, fresh hosts and ${warmup} warm-up requests per connection slot each round; ${canPin ? `hosts on core ${HOST_CORE}, autocannon on core ${LOAD_CORE}` : 'no taskset: not pinned'}`)
  const load = startChild('load.ts', [], LOAD_CORE)
  const pairs = new Map<boolean, Record<Side, Host>>()
  const stopHosts = async (): Promise<void> => {
    await Promise.all([...pairs.values()].flatMap((pair) => SIDES.map((side) => pair[side].child.stop())))
    pairs.clear()
  }
  try {
    await load.ready
    const runs = new Map(chosen.map((s) => [s.name, { baseline: [] as Measure[], gpt: [] as Measure[] }]))
    for (let round = 0; round < rounds; round++) {
      // Fresh host processes every round: two processes running the very same code differ by up
      // to ~15 % in CPU per request (memory layout, JIT), so each round is an independent pair.
      for (const rateLimit of new Set(chosen.map((s) => s.rateLimit))) {
        const [baseline, gpt] = await Promise.all([startHost('baseline', rateLimit), startHost('gpt', rateLimit)])
        pairs.set(rateLimit, { baseline, gpt })
        await preflight({ baseline, gpt })
      }
      const hostsOf = (scenario: Scenario): Record<Side, Host> => pairs.get(scenario.rateLimit) as Record<Side, Host>
      if (warmup > 0) {
        for (const scenario of chosen) {
          for (const side of SIDES) await measure(load, hostsOf(scenario)[side], side, scenario, { amount: warmup * scenario.connections * scenario.pipelining })
        }
      }
      // baseline first in even rounds, fastify-gpt first in odd ones: no side always goes first
      const order = round % 2 === 0 ? SIDES : [...SIDES].reverse()
      for (const scenario of chosen) {
        for (const side of order) {
          const result = await measure(load, hostsOf(scenario)[side], side, scenario, { duration })
          if (verbose) {
            console.log(`  ${scenario.name} ${side}: ${fixed(result.rps)} req/s, p99 ${result.p99} ms, ` +
              `${fixed(result.cpuPerRequest, 1)} µs/req, host CPU ${fixed(result.serverCpu, 2)}, autocannon CPU ${fixed(result.loadCpu, 2)}`)
          }
          runs.get(scenario.name)?.[side].push(result)
        }
      }
      await stopHosts()
      if (!smoke) console.log(`round ${round + 1}/${rounds} done (${fixed((Date.now() - began) / 1000)} s)`)
    }

    const rows: Row[] = chosen.map((scenario) => {
      const { baseline, gpt } = runs.get(scenario.name) as { baseline: Measure[], gpt: Measure[] }
      const b = figures(baseline)
      const g = figures(gpt)
      return {
        scenario: scenario.name,
        what: scenario.what,
        connections: scenario.connections,
        pipelining: scenario.pipelining,
        baseline: b,
        gpt: g,
        ratio: g.rps / b.rps,
        p99Ratio: g.p99 / b.p99,
        cpuRatio: b.cpuPerRequest / g.cpuPerRequest,
        roundRatios: gpt.map((r, i) => Number((r.rps / (baseline[i] as Measure).rps).toFixed(3))),
        ...(scenario.target === undefined ? {} : { target: scenario.target })
      }
    })
    console.log(`\n${table(rows)}`)
    console.log('(medians of the rounds; ratio = gpt/baseline req/s; µs/req = host CPU time per response;\n' +
      ' CPU ratio = base µs/req / gpt µs/req; target: the least ratio asked, met by req/s, by CPU)')
    const busy = median(rows.flatMap((r) => [...r.baseline.runs, ...r.gpt.runs].map((run) => run.serverCpu)))
    const verdicts = [
      `host CPU use during the runs: median ${fixed(100 * busy)} % of a core (near 100 %: the host was the bottleneck;` +
        ' far below: other processes took its core or the load generator\'s, so trust µs/req over req/s)',
      ...verdictsOf(rows)
    ]
    for (const line of verdicts) console.log(line)

    const report = {
      ...machine(),
      gptImportedFrom: 'dist/ (the built package, as users import it)',
      smoke,
      rounds,
      durationSeconds: duration,
      warmupRequestsPerSlot: warmup,
      totalSeconds: Math.round((Date.now() - began) / 1000),
      rows,
      verdicts,
      problems
    }
    writeResults(out, report)
  } finally {
    await stopHosts()
    await load.stop()
  }
  return exitCodeOf(problems)
}

/** The targets that are not a plain ratio, told in words (never asserted). */
function verdictsOf (rows: readonly Row[]): string[] {
  const lines: string[] = []
  const find = (name: string): Row | undefined => rows.find((r) => r.scenario === name)
  const accepted = find('post-2KB')
  const duplicate = find('post-duplicate')
  if (accepted !== undefined && duplicate !== undefined) {
    const cost = duplicate.gpt.cpuPerRequest / accepted.gpt.cpuPerRequest
    lines.push(`rejected (duplicate key) vs accepted 2 KB act on fastify-gpt: ${fixed(duplicate.gpt.cpuPerRequest, 1)} vs ` +
      `${fixed(accepted.gpt.cpuPerRequest, 1)} µs/req (${fixed(cost, 2)}x), ${fixed(duplicate.gpt.rps)} vs ${fixed(accepted.gpt.rps)} req/s`)
  }
  const large = find('post-64KB')
  const oversize = find('post-oversize')
  if (large !== undefined && oversize !== undefined) {
    lines.push(`oversize vs accepted 64 KB act on fastify-gpt: ${fixed(oversize.gpt.cpuPerRequest, 1)} vs ` +
      `${fixed(large.gpt.cpuPerRequest, 1)} µs/req, for a body three times as large`)
  }
  return lines
}

process.exitCode = await main()
