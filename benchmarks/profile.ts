// Where a host's time goes under one scenario: loads the host as compare.ts does while V8's CPU
// profiler (the one `node --cpu-prof` runs) samples it, around the measured load only (not start-up
// or warm-up), then prints the top functions by self time, self time by module, and the time
// inside the act's stages (inclusive).
//   npm run bench:profile -- --scenario post-200B [--side gpt|baseline] [--seconds 10] [--top 25]
// The profile is kept as benchmarks/results/profiles/<side>-<scenario>.cpuprofile (not committed;
// open it in Chrome DevTools > Performance, or VS Code).
import { mkdirSync, readFileSync } from 'node:fs'
import { relative, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import type { LoadJob, LoadSummary } from './load.ts'
import { HOST_CORE, LOAD_CORE, ROOT, startChild } from './processes.ts'
import { jobOf, scenarios, type Side } from './workload.ts'

const { values } = parseArgs({
  options: {
    scenario: { type: 'string', default: 'post-200B' },
    side: { type: 'string', default: 'gpt' },
    seconds: { type: 'string', default: '10' },
    warmup: { type: 'string', default: '3' },
    top: { type: 'string', default: '25' }
  }
})
const scenario = scenarios.find((s) => s.name === values.scenario)
if (scenario === undefined) throw new Error(`no scenario ${values.scenario}; there are: ${scenarios.map((s) => s.name).join(', ')}`)
const side = values.side as Side
if (side !== 'gpt' && side !== 'baseline') throw new Error('--side must be gpt or baseline')

interface CallFrame { functionName: string, url: string, lineNumber: number, columnNumber: number }
interface ProfileNode { id: number, callFrame: CallFrame, children?: number[] }
interface Profile { nodes: ProfileNode[], samples: number[], timeDeltas: number[] }

const dir = resolve(ROOT, 'benchmarks/results/profiles')
mkdirSync(dir, { recursive: true })
const file = resolve(dir, `${side}-${scenario.name}.cpuprofile`)

const load = startChild('load.ts', [], LOAD_CORE)
const host = startChild('host.ts', ['--side', side, '--rate-limit', scenario.rateLimit ? 'on' : 'off'], HOST_CORE)
let summary: LoadSummary
let cpuMicros: number
try {
  await load.ready
  const { port } = await host.ready as { port: number }
  const job = (seconds: number): LoadJob => jobOf(`http://127.0.0.1:${port}/`, scenario, { duration: seconds })
  await load.ask({ type: 'run', job: job(Number(values.warmup)) })
  await host.ask({ type: 'profile-start' })
  const before = await host.ask<{ cpuMicros: number }>({ type: 'usage' })
  summary = await load.ask<LoadSummary>({ type: 'run', job: job(Number(values.seconds)) })
  const after = await host.ask<{ cpuMicros: number }>({ type: 'usage' })
  cpuMicros = after.cpuMicros - before.cpuMicros
  await host.ask({ type: 'profile-stop', file })
} finally {
  await host.stop()
  await load.stop()
}

const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile
const byId = new Map(profile.nodes.map((n) => [n.id, n]))
const parent = new Map<number, number>()
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id)

const where = (url: string): string => {
  if (url === '') return ''
  const path = url.startsWith('file://') ? relative(ROOT, new URL(url).pathname) : url
  return path.replace(/^node_modules\//, '')
}
const key = (f: CallFrame): string =>
  `${f.functionName === '' ? '(anonymous)' : f.functionName} ${where(f.url)}${f.url === '' ? '' : `:${f.lineNumber + 1}`}`
/** The module a frame belongs to: a file of the plugin, a package, a part of Node, or V8. */
function moduleOf (f: CallFrame): string {
  const path = where(f.url)
  if (path === '') {
    if (/^validate\d+$/.test(f.functionName)) return 'Ajv-generated validator'
    if (f.functionName.startsWith('(')) return f.functionName
    return 'native (syscalls, builtins)'
  }
  if (path.startsWith('dist/')) return `fastify-gpt ${path}`
  if (path.startsWith('node:')) return path.replace(/^node:(internal\/)?/, 'node:').split('/')[0] as string
  const [first, second] = path.split('/')
  return first?.startsWith('@') === true ? `${first}/${second}` : first as string
}

const self = new Map<string, number>()
const modules = new Map<string, number>()
const inclusive = new Map<string, number>()
let total = 0
profile.samples.forEach((id, i) => {
  const delta = profile.timeDeltas[i] ?? 0
  const frame = (byId.get(id) as ProfileNode).callFrame
  if (frame.functionName === '(idle)') return
  total += delta
  self.set(key(frame), (self.get(key(frame)) ?? 0) + delta)
  modules.set(moduleOf(frame), (modules.get(moduleOf(frame)) ?? 0) + delta)
  const seen = new Set<string>()
  for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
    const name = key((byId.get(at) as ProfileNode).callFrame)
    if (seen.has(name)) continue
    seen.add(name)
    inclusive.set(name, (inclusive.get(name) ?? 0) + delta)
  }
})

const perResponse = (micros: number): string => `${(micros / summary.responses).toFixed(2).padStart(6)} µs`
const share = (micros: number): string => `${(100 * micros / total).toFixed(1).padStart(5)} %  ${perResponse(micros)}`
const sorted = (map: Map<string, number>): [string, number][] => [...map].sort((a, b) => b[1] - a[1])
const top = Number(values.top)

console.log(`${side} ${scenario.name}: ${summary.rps.toFixed(0)} req/s, ${summary.responses} responses; host CPU ` +
  `${(cpuMicros / summary.responses).toFixed(1)} µs per response, sampled busy ${perResponse(total)}`)
console.log('\nself time by module (share of sampled busy time, µs per response):')
for (const [name, micros] of sorted(modules).slice(0, 16)) console.log(`  ${share(micros)}  ${name}`)
console.log(`\ntop ${top} functions by self time:`)
for (const [name, micros] of sorted(self).slice(0, top)) console.log(`  ${share(micros)}  ${name}`)
// The plugin's own functions and the request pipeline's stages, inclusive of what they call.
const STAGE = /^\S+ dist\/|^validate\d+ $|fastify\/lib\/(handle-request|content-type-parser|validation|reply)\.js|^(rateLimit|onRequest)\S* @fastify\/rate-limit/
console.log('\ninclusive time of the plugin\'s functions and Fastify\'s stages:')
for (const [name, micros] of sorted(inclusive).filter(([n]) => STAGE.test(n)).slice(0, top)) console.log(`  ${share(micros)}  ${name}`)
console.log(`\nprofile: ${relative(ROOT, file)}`)
