// Shared editions (the `share` option), for docs/deploying.md:
//   npm run bench:editions [-- --updates 500 --samples 300 --rounds 3 --duration 3]
// - the cost of an update: local (no Redis) and shared (stored in Redis, compare-and-set);
// - the propagation delay: from an update stored by this process to another process serving it
//   (polled over HTTP, so it includes up to one GET's time);
// - GET of the arrival with sharing on and off (autocannon against host processes, alternated).
// Starts its own redis-server on a free loopback port.
import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { performance } from 'node:perf_hooks'
import { parseArgs } from 'node:util'
import autocannon from 'autocannon'
import Fastify from 'fastify'
import { Redis } from 'ioredis'
import { noteBoard } from '../example/addresses.js'
import gpt, { type GptAddress, type GptOptions, type SharedGptAddress } from '../src/index.ts'
import { freePort } from '../test/helpers/port.ts'
import { startRedis, stopRedis, waitForRedis } from '../test/helpers/redis.ts'

const { values } = parseArgs({
  options: {
    updates: { type: 'string', default: '500' },
    samples: { type: 'string', default: '300' },
    rounds: { type: 'string', default: '3' },
    duration: { type: 'string', default: '3' }
  }
})
const updates = Number(values.updates)
const samples = Number(values.samples)

const redisPort = await freePort()
const server = startRedis(redisPort)
await waitForRedis(redisPort)
const client = (): Redis => new Redis({ port: redisPort, host: '127.0.0.1', enableOfflineQueue: false, maxRetriesPerRequest: 0 })

async function board (share: boolean): Promise<{ address: GptAddress | SharedGptAddress, close: () => Promise<void> }> {
  let address: GptAddress | SharedGptAddress | undefined
  const redis = share ? client() : undefined
  const options = noteBoard({ keep: 20, ...(redis === undefined ? {} : { share: { redis } }) })
  const app = Fastify()
  await app.register(gpt, { ...options, rateLimit: false, onAddress: (a: GptAddress) => { address = a; options.onAddress(a) } } as unknown as GptOptions)
  await app.ready()
  return { address: address!, close: async () => { await app.close(); await redis?.quit() } }
}

// A pinned note, as the example's act pins it: a function of the current board, keeping 20.
const pin = (i: number) => (current: { messages: readonly { role: string, content: string }[] }) =>
  ({ messages: [...current.messages.slice(0, 2), ...[...current.messages.slice(2), { role: 'user', content: `note ${i}` }].slice(-20)] })

const quantile = (xs: number[], q: number): number => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * q))] as number
const us = (ms: number): string => `${(ms * 1000).toFixed(0)} µs`

async function updateCost (share: boolean): Promise<number[]> {
  const { address, close } = await board(share)
  const times: number[] = []
  for (let i = 0; i < updates; i++) {
    const start = performance.now()
    await address.update(pin(i))
    times.push(performance.now() - start)
  }
  await close()
  return times
}

async function host (share: boolean): Promise<{ child: ChildProcess, url: string }> {
  const child = spawn(process.execPath, ['--import', './test/register.js', 'test/fixtures/editions-host.ts', share ? String(redisPort) : '0'], { stdio: ['ignore', 'pipe', 'inherit'] })
  const [line] = await once(child.stdout!, 'data') as [Buffer]
  return { child, url: line.toString().trim() }
}

async function stop ({ child }: { child: ChildProcess }): Promise<void> {
  child.kill()
  await once(child, 'exit')
}

for (const share of [false, true]) {
  const times = await updateCost(share)
  console.log(`update ${share ? 'shared' : 'local'}: median ${us(quantile(times, 0.5))}, p99 ${us(quantile(times, 0.99))} (${updates} updates)`)
}

// Propagation: this process stores, a host process serves.
{
  const other = await host(true)
  const { address, close } = await board(true)
  const delays: number[] = []
  for (let i = 0; i < samples; i++) {
    await address.update(pin(i))
    const stored = performance.now()
    let etag: string | null = null
    while (etag !== address.etag) etag = (await fetch(other.url)).headers.get('etag')
    delays.push(performance.now() - stored)
  }
  console.log(`propagation: median ${us(quantile(delays, 0.5))}, p90 ${us(quantile(delays, 0.9))}, p99 ${us(quantile(delays, 0.99))}, worst ${us(Math.max(...delays))} (${samples} updates)`)
  await close()
  await stop(other)
}

// GET with sharing on and off: same board content, alternated rounds.
const rps: Record<string, number[]> = { off: [], on: [] }
for (let round = 0; round < Number(values.rounds); round++) {
  for (const share of [false, true]) {
    const h = await host(share)
    const result = await autocannon({ url: h.url, connections: 50, pipelining: 10, duration: Number(values.duration) })
    if (result.non2xx > 0 || result.errors > 0) throw new Error(`GET: ${result.non2xx} non-2xx, ${result.errors} errors`)
    rps[share ? 'on' : 'off']!.push(result.requests.average)
    await stop(h)
  }
}
const off = quantile(rps['off']!, 0.5)
const on = quantile(rps['on']!, 0.5)
console.log(`GET req/s: sharing off ${Math.round(off)}, on ${Math.round(on)}, ratio ${(on / off).toFixed(2)} (median of ${values.rounds} rounds)`)
await stopRedis(server)
