// Where fastify-gpt's CPU per request goes beyond bare Fastify's: an ablation ladder. Each rung is
// a host in its own process (benchmarks/ladder-host.ts), bare Fastify with one more of the pieces
// fastify-gpt installs than the rung before, up to fastify-gpt itself; all are started at once and
// measured in the same runs, in rotated order, as `bench:peers` measures (benchmarks/peers.ts):
// hosts on core 1, autocannon on core 0, NODE_ENV=production, 50 connections, host CPU per request
// from /proc/<pid>/stat. Every run of a rung is paired with a run of bare-kept right before or after
// it, and a rung's ratio is the median of its pairs' ratios. The step where the cost appears is the
// finding (docs/benchmarks.md).
//   npm run bench:ladder [-- --runs N --requests N --warmup N --rungs a,b,... --only get,post-70B
//                         --before PATH --out FILE --verbose --smoke]
// --before PATH adds a rung `before`: fastify-gpt from another build's index.js (html on).
// Writes benchmarks/results/ladder-latest.json.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { resolve } from 'node:path'
import ts from 'typescript'
import { parseArgs } from 'node:util'
import type { LoadJob, LoadSummary } from './load.ts'
import { bodies } from './peer-forms.ts'
import { canPin, cpuSeconds, HOST_CORE, LOAD_CORE, machine, median, ROOT, startChild, TICKS, writeResults, type Child } from './processes.ts'
import { exitCodeOf, requireCounts } from './checks.ts'

const RUNGS = ['bare-kept', 'fp-child', 'child', 'decorate', 'accepts', 'on-route', 'on-send', 'parser', 'strict',
  'errors', 'validator', 'handlers', 'gpt-plain', 'gpt']
// not in the ladder by default: the `parser` rung with Fastify reading the body, or without the 'close'
// listener; `child` without a prefix
const VARIANTS = ['parser-buffer', 'parser-noclose', 'parser-nomap', 'parser-min', 'child-noprefix']

const { values } = parseArgs({
  options: {
    smoke: { type: 'boolean', default: false },
    rungs: { type: 'string', default: RUNGS.join(',') },
    runs: { type: 'string' },
    requests: { type: 'string' },
    warmup: { type: 'string' },
    connections: { type: 'string' },
    only: { type: 'string', default: 'get,post-70B' },
    before: { type: 'string' },
    out: { type: 'string' },
    verbose: { type: 'boolean', default: false }
  }
})
const smoke = values.smoke
const runs = Number(values.runs ?? (smoke ? 1 : 6))
const requests = Number(values.requests ?? (smoke ? 100 : 10_000))
const warmup = Number(values.warmup ?? requests)
const connections = Number(values.connections ?? (smoke ? 10 : 50))
requireCounts({ runs, requests, warmup, connections })
const rungs = [...values.rungs.split(','), ...(values.before === undefined ? [] : ['before'])]
for (const rung of rungs) if (!RUNGS.includes(rung) && !VARIANTS.includes(rung) && rung !== 'before') throw new Error(`--rungs: no rung ${rung}; there are ${RUNGS.join(', ')}`)
const out = resolve(ROOT, values.out ?? (smoke ? 'benchmarks/results/ladder-smoke.tmp.json' : 'benchmarks/results/ladder-latest.json'))

const isGpt = (rung: string): boolean => rung === 'gpt' || rung === 'gpt-plain' || rung === 'before'
/** A body the form refuses: 400 from Fastify, 200 once validation is attached (the rung's handler
 * acts regardless), the bare 204 from fastify-gpt's handler on (draft §5.3). */
function refusedStatus (rung: string): number {
  const at = RUNGS.indexOf(rung)
  if (isGpt(rung) || at >= RUNGS.indexOf('handlers')) return 204
  return at >= RUNGS.indexOf('validator') ? 200 : 400
}
interface Scenario { name: string, ask: (rung: string) => Omit<LoadJob, 'connections' | 'pipelining' | 'url'> & { path: string, status: number } }
const JSON_HEADERS = { 'content-type': 'application/json' }
const SCENARIOS: readonly Scenario[] = [
  { name: 'get', ask: () => ({ method: 'GET', path: '/note', status: 200 }) },
  { name: 'post-70B', ask: () => ({ method: 'POST', path: '/note', body: bodies.note, headers: JSON_HEADERS, status: 200 }) },
  { name: 'post-1KB', ask: () => ({ method: 'POST', path: '/todo', body: bodies.todo1k, headers: JSON_HEADERS, status: 200 }) },
  { name: 'refused', ask: (rung) => ({ method: 'POST', path: '/note', body: bodies.refused, headers: JSON_HEADERS, status: refusedStatus(rung) }) }
]
const chosen = SCENARIOS.filter((s) => values.only.split(',').includes(s.name))
if (chosen.length === 0) throw new Error(`--only names no scenario; there are: ${SCENARIOS.map((s) => s.name).join(', ')}`)

// The rungs' hosts run as plain JavaScript, compiled here the way tsc compiles the package: through
// the tsx loader every closure a request creates would go through its naming helper
// (Object.defineProperty of its name), which costs microseconds per request and is not what a
// user runs. One directory below the root, as benchmarks/ is, so relative imports hold; removed
// once the hosts are stopped.
const BUILT = resolve(ROOT, '.ladder-build')
function buildHosts (): string {
  mkdirSync(BUILT, { recursive: true })
  for (const name of ['ladder-host', 'processes', 'peer-forms']) {
    const source = readFileSync(resolve(ROOT, 'benchmarks', `${name}.ts`), 'utf8')
    const { outputText } = ts.transpileModule(source, {
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, rewriteRelativeImportExtensions: true, verbatimModuleSyntax: true }
    })
    writeFileSync(resolve(BUILT, `${name}.js`), outputText)
  }
  return resolve(BUILT, 'ladder-host.js')
}
const hostScript = buildHosts()

interface Host { rung: string, child: Child, url: string, pid: number }
const problems: string[] = []

async function startHost (rung: string): Promise<Host> {
  const child = rung === 'before'
    ? startChild('peer-host.ts', ['--stack', 'gpt', '--module', values.before as string], HOST_CORE)
    : startChild(hostScript, ['--rung', rung], HOST_CORE)
  const { port, pid } = await child.ready as { port: number, pid: number }
  return { rung, child, url: `http://127.0.0.1:${port}`, pid }
}

async function measure (loader: Child, host: Host, scenario: Scenario, amount: number): Promise<number> {
  const { status, path, ...request } = scenario.ask(host.rung)
  const job: LoadJob = { ...request, url: `${host.url}${path}`, connections, pipelining: 1, amount: Math.max(connections, amount) }
  const before = cpuSeconds(host.pid)
  const summary = await loader.ask<LoadSummary>({ type: 'run', job })
  const cpu = cpuSeconds(host.pid) - before
  const wrong = summary.responses - (summary.statuses[String(status)] ?? 0)
  if (summary.responses === 0 || wrong > 0 || summary.errors > 0 || summary.timeouts > 0) {
    problems.push(`${scenario.name} on ${host.rung}: ${wrong} of ${summary.responses} not ${status} (${JSON.stringify(summary.statuses)}), ${summary.errors} errors`)
  }
  return 1e6 * cpu / Math.max(1, summary.responses)
}

async function main (): Promise<number> {
  const began = Date.now()
  process.env['NODE_ENV'] = 'production'
  console.log(`ladder: ${rungs.length} hosts, each in its own process; per scenario a warm-up of ${warmup}, then ${runs} runs of ${requests} requests per host in turn, ` +
    `${connections} connections; host CPU from /proc/<pid>/stat (${TICKS} ticks/s); ${canPin ? `hosts on core ${HOST_CORE}, autocannon on core ${LOAD_CORE}` : 'not pinned'}`)
  const loader = startChild('load.ts', [], LOAD_CORE)
  const measured: Record<string, Record<string, number[]>> = {}
  const ratios: Record<string, Record<string, number[]>> = {}
  const hosts: Host[] = []
  try {
    await loader.ready
    hosts.push(...await Promise.all(rungs.map(startHost)))
    for (const scenario of chosen) {
      const of = (measured[scenario.name] ??= {})
      if (!smoke) for (const host of hosts) await measure(loader, host, scenario, warmup)
      const pairs = (ratios[scenario.name] ??= {})
      const base = hosts.find((host) => host.rung === 'bare-kept')
      for (let run = 0; run < runs; run++) {
        for (let i = 0; i < hosts.length; i++) {
          const host = hosts[(i + run) % hosts.length] as Host
          if (host === base) continue
          // each rung right beside a bare-kept run, first in turn: the load of a shared machine
          // drifts over minutes, and only measurements taken next to each other compare
          const pair = base === undefined ? [host] : run % 2 === 0 ? [base, host] : [host, base]
          const cpu: Record<string, number> = {}
          for (const one of pair) {
            cpu[one.rung] = await measure(loader, one, scenario, requests)
            ;(of[one.rung] ??= []).push(cpu[one.rung] as number)
          }
          if (base !== undefined) (pairs[host.rung] ??= []).push((cpu['bare-kept'] as number) / (cpu[host.rung] as number))
          if (values.verbose) console.log(`  ${scenario.name} ${host.rung}: ${(cpu[host.rung] as number).toFixed(1)} µs/req, bare-kept ${cpu['bare-kept']?.toFixed(1)}`)
        }
      }
      console.log(`${scenario.name} done`)
    }
  } finally {
    await Promise.all(hosts.map((host) => host.child.stop()))
    await loader.stop()
    rmSync(BUILT, { recursive: true, force: true })
  }
  const round = (value: number): number => Math.round(value * 100) / 100
  const rows = rungs.map((rung) => {
    const row: Record<string, unknown> = { rung }
    for (const scenario of chosen) {
      const cpu = median(measured[scenario.name]?.[rung] ?? [Number.NaN])
      // the median of the ratios of pairs measured side by side (1 for bare-kept itself)
      const paired = rung === 'bare-kept' ? [1] : ratios[scenario.name]?.[rung] ?? [Number.NaN]
      row[scenario.name] = { cpuPerRequest: round(cpu), ofBare: round(median(paired)), runs: (measured[scenario.name]?.[rung] ?? []).map(round), pairRatios: paired.map(round) }
    }
    return row
  })
  console.log(`\nhost CPU µs per request, medians (÷: bare-kept µs ÷ this rung's, median over pairs measured side by side)\n${['rung'.padEnd(10), ...chosen.map((s) => s.name.padStart(18))].join(' ')}`)
  for (const row of rows) {
    console.log([String(row['rung']).padEnd(10), ...chosen.map((s) => {
      const cell = row[s.name] as { cpuPerRequest: number, ofBare: number }
      return `${cell.cpuPerRequest.toFixed(1)} (${cell.ofBare.toFixed(2)})`.padStart(18)
    })].join(' '))
  }
  if (smoke) console.log('(smoke: statuses only, the figures mean nothing)')
  const report = { ...machine(), mode: 'ladder', nodeEnv: 'production', rungs, runs, requestsPerRun: requests, warmup, connections, totalSeconds: Math.round((Date.now() - began) / 1000), rows, problems }
  writeResults(out, report)
  return exitCodeOf(problems)
}

process.exitCode = await main()
