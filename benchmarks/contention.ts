// Shared editions under contention, for docs/benchmarks.md: N host processes serving the example's
// note board (lint on) through one redis-server, and `per` concurrent pins sent to each at once.
// Reports updates per second, each pin's latency (p50, p99, worst), pins refused, and whether every
// instance ends on one ETag holding every pin once. Beside it, in the same rounds, the same pins sent
// to as many boards that share nothing: what the load costs this machine without Redis, so that the
// latency sharing adds is the difference.
//   npm run bench:contention [-- --per 300 --rounds 3 --before /path/to/other/dist/index.js]
// --before (or --baseline): another build of the package (say, main's, built with `npm run build`
// in a copy of it), measured in the same rounds, alternated with this one's dist/.
// The pins are sent with node:http, one connection each (a keep-alive agent without a cap): on this
// 2-core machine, fetch's client spent about 3 times the CPU of the three hosts together, and its
// queue was most of each pin's latency. The hosts' own CPU per pin is read from /proc (Linux), so
// that what the package costs is seen apart from what the machine and the client add.
import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { readFileSync } from 'node:fs'
import { Agent, request } from 'node:http'
import { resolve } from 'node:path'
import { performance } from 'node:perf_hooks'
import { parseArgs } from 'node:util'
import { Redis } from 'ioredis'
import { freePort } from '../test/helpers/port.ts'
import { startRedis, stopRedis, waitForRedis } from '../test/helpers/redis.ts'
import { median, ROOT } from './processes.ts'

const { values } = parseArgs({ options: { per: { type: 'string', default: '300' }, rounds: { type: 'string', default: '3' }, baseline: { type: 'string' }, before: { type: 'string' } } })
const per = Number(values.per)
const builds: [string, string][] = [['this build', resolve(ROOT, 'dist/index.js')]]
const before = values.before ?? values.baseline
if (before !== undefined) builds.unshift(['before', resolve(before)])

const agent = new Agent({ keepAlive: true, maxSockets: Infinity })
/** POSTs `body` and reads the whole answer: its status. */
const post = (url: string, body: string): Promise<number> => new Promise((resolve, reject) => {
  const sent = request(url, { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (response) => {
    response.resume()
    response.on('end', () => { resolve(response.statusCode ?? 0) })
    response.on('error', reject)
  })
  sent.on('error', reject)
  sent.end(body)
})

/** CPU milliseconds a process has used (user + system), or NaN where /proc cannot tell. */
function cpuOf (pid: number | undefined): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
    return (Number(fields[11]) + Number(fields[12])) * 10 // clock ticks of 10 ms (USER_HZ 100)
  } catch {
    return NaN
  }
}

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
interface Run { seconds: number, latencies: number[], refused: number, cpu: number, lost?: number, etags?: number }

async function run (module: string, instances: number, shared: boolean): Promise<Run> {
  await raw.flushall()
  const hosts = await Promise.all(Array.from({ length: instances }, () => host(module, shared)))
  const sent = Array.from({ length: instances * per }, (_, i) => `pin ${i}`)
  const latencies: number[] = []
  const cpuBefore = hosts.map(({ child }) => cpuOf(child.pid))
  const start = performance.now()
  const statuses = await Promise.all(sent.map(async (note, i) => {
    const began = performance.now()
    const status = await post(hosts[i % instances]!.url, JSON.stringify({ note }))
    latencies.push(performance.now() - began)
    return status
  }))
  const seconds = (performance.now() - start) / 1000
  const cpu = hosts.reduce((sum, { child }, i) => sum + cpuOf(child.pid) - cpuBefore[i]!, 0)
  const refused = statuses.filter((status) => status !== 200).length
  if (!shared) {
    for (const { child } of hosts) child.kill()
    await Promise.all(hosts.map(({ child }) => once(child, 'exit')))
    return { seconds, latencies, refused, cpu }
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
    cpu,
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
console.log('build | instances | updates | updates/s | p50 ms | p99 ms | worst ms | hosts\' CPU ms per update | refused | lost | ETags at the end')
for (const [key, runs] of results) {
  const [name, instances] = key.split('|') as [string, string]
  const updates = Number(instances) * per
  const latencies = runs.flatMap((r) => r.latencies)
  console.log([name, instances, updates, Math.round(median(runs.map((r) => updates / r.seconds))),
    Math.round(quantile(latencies, 0.5)), Math.round(quantile(latencies, 0.99)), Math.round(Math.max(...latencies)),
    (median(runs.map((r) => r.cpu)) / updates).toFixed(2),
    runs.reduce((n, r) => n + r.refused, 0),
    runs[0]!.lost === undefined ? '-' : runs.reduce((n, r) => n + (r.lost ?? 0), 0),
    runs[0]!.etags === undefined ? '-' : Math.max(...runs.map((r) => r.etags ?? 0))].join(' | '))
}
agent.destroy()
raw.disconnect()
await stopRedis(server)
