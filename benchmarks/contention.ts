// Shared editions under contention, for docs/benchmarks.md: N host processes serving the example's
// note board (lint on) through one redis-server, and `per` concurrent pins sent to each at once.
// Reports updates per second, each pin's latency (p50, p99, worst), pins refused, and whether every
// instance ends on one ETag holding every pin once. Beside it, in the same rounds, the same pins sent
// to as many boards that share nothing: what the load costs this machine without Redis, so that the
// latency sharing adds is the difference.
//   npm run bench:contention [-- --per 300 --rounds 3 --baseline /path/to/other/dist/index.js]
// --baseline: another build of the package (say, the commit before, built with `npm run build`),
// measured in the same rounds, alternated with this one's dist/.
import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { resolve } from 'node:path'
import { performance } from 'node:perf_hooks'
import { parseArgs } from 'node:util'
import { Redis } from 'ioredis'
import { freePort } from '../test/helpers/port.ts'
import { startRedis, stopRedis, waitForRedis } from '../test/helpers/redis.ts'
import { median, ROOT } from './processes.ts'

const { values } = parseArgs({ options: { per: { type: 'string', default: '300' }, rounds: { type: 'string', default: '3' }, baseline: { type: 'string' } } })
const per = Number(values.per)
const builds: [string, string][] = [['this build', resolve(ROOT, 'dist/index.js')]]
if (values.baseline !== undefined) builds.unshift(['baseline', resolve(values.baseline)])

const redisPort = await freePort()
const server = startRedis(redisPort)
await waitForRedis(redisPort)
const raw = new Redis({ host: '127.0.0.1', port: redisPort })

async function host (module: string, shared: boolean): Promise<{ child: ChildProcess, url: string }> {
  const child = spawn(process.execPath, ['--import', './test/register.js', 'test/fixtures/editions-host.ts', shared ? String(redisPort) : '0', ''], {
    cwd: ROOT, env: { ...process.env, GPT_MODULE: module, NODE_ENV: 'production' }, stdio: ['ignore', 'pipe', 'inherit']
  })
  const [line] = await once(child.stdout!, 'data') as [Buffer]
  return { child, url: line.toString().trim() }
}

// lost and etags: undefined where the boards share nothing (each holds its own pins)
interface Run { seconds: number, latencies: number[], refused: number, lost?: number, etags?: number }

async function run (module: string, instances: number, shared: boolean): Promise<Run> {
  await raw.flushall()
  const hosts = await Promise.all(Array.from({ length: instances }, () => host(module, shared)))
  const sent = Array.from({ length: instances * per }, (_, i) => `pin ${i}`)
  const latencies: number[] = []
  const start = performance.now()
  const statuses = await Promise.all(sent.map(async (note, i) => {
    const began = performance.now()
    const response = await fetch(hosts[i % instances]!.url, { method: 'POST', body: JSON.stringify({ note }) })
    await response.arrayBuffer()
    latencies.push(performance.now() - began)
    return response.status
  }))
  const seconds = (performance.now() - start) / 1000
  const refused = statuses.filter((status) => status !== 200).length
  if (!shared) {
    for (const { child } of hosts) child.kill()
    await Promise.all(hosts.map(({ child }) => once(child, 'exit')))
    return { seconds, latencies, refused }
  }
  // Every instance converges on one edition: then count what it holds.
  let seen: { etag: string | null, notes: string[] }[] = []
  for (let i = 0; i < 400; i++) {
    seen = await Promise.all(hosts.map(async ({ url }) => {
      const response = await fetch(url)
      const { m } = await response.json() as { m: { content: string }[] }
      return { etag: response.headers.get('etag'), notes: m.map((message) => message.content) }
    }))
    if (seen.every((s) => s.etag === seen[0]!.etag)) break
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
  const held = new Set(seen[0]!.notes)
  const stored = sent.filter((_, i) => statuses[i] === 200)
  for (const { child } of hosts) child.kill()
  await Promise.all(hosts.map(({ child }) => once(child, 'exit')))
  return {
    seconds,
    latencies,
    refused,
    lost: stored.filter((note) => !held.has(note)).length,
    etags: new Set(seen.map((s) => s.etag)).size
  }
}

const quantile = (xs: number[], q: number): number => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * q))] as number
const results = new Map<string, Run[]>()
for (let round = 0; round < Number(values.rounds); round++) {
  for (const instances of [1, 3]) {
    const runs: [string, string, boolean][] = [...builds.map(([name, module]): [string, string, boolean] => [name, module, true]), ['not shared', resolve(ROOT, 'dist/index.js'), false]]
    for (const [name, module, shared] of round % 2 === 0 ? runs : [...runs].reverse()) {
      const key = `${name}|${instances}`
      results.set(key, [...results.get(key) ?? [], await run(module, instances, shared)])
    }
  }
}

console.log(`${per} concurrent pins per instance, median of ${values.rounds} rounds (latencies: all pins of all rounds)`)
console.log('build | instances | updates | updates/s | p50 ms | p99 ms | worst ms | refused | lost | ETags at the end')
for (const [key, runs] of results) {
  const [name, instances] = key.split('|') as [string, string]
  const updates = Number(instances) * per
  const latencies = runs.flatMap((r) => r.latencies)
  console.log([name, instances, updates, Math.round(median(runs.map((r) => updates / r.seconds))),
    Math.round(quantile(latencies, 0.5)), Math.round(quantile(latencies, 0.99)), Math.round(Math.max(...latencies)),
    runs.reduce((n, r) => n + r.refused, 0),
    runs[0]!.lost === undefined ? '-' : runs.reduce((n, r) => n + (r.lost ?? 0), 0),
    runs[0]!.etags === undefined ? '-' : Math.max(...runs.map((r) => r.etags ?? 0))].join(' | '))
}
raw.disconnect()
await stopRedis(server)
