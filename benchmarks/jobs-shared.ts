// What `share` costs jobs (docs/jobs.md, "Across instances"), against the same jobs in memory in
// the same run: the GET of a finished job's address (every instance reads Redis), and events a
// second through one job's NDJSON stream, read on another instance than the one running the act.
// Hosts, load and a real redis-server share the machine, so ratios mean more than rates.
//   npm run bench:jobs-shared [-- --quick]
// Writes benchmarks/results/jobs-shared-latest.json.
import { mkdirSync, writeFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { parseArgs } from 'node:util'
import Fastify, { type FastifyInstance } from 'fastify'
import { Redis } from 'ioredis'
import gpt, { type GptOptions } from '../src/index.ts'
import { redisServer } from '../test/helpers/redis.ts'

const { quick } = parseArgs({ options: { quick: { type: 'boolean', default: false } } }).values
const [rounds, gets, eventCount] = quick ? [1, 200, 1000] : [5, 2000, 20_000]

const redis = await redisServer()
const { port } = redis
const clients: Redis[] = []
const client = (): Redis => {
  const redis = new Redis({ port, host: '127.0.0.1', enableOfflineQueue: false, maxRetriesPerRequest: 0 })
  redis.on('error', () => {})
  clients.push(redis)
  return redis
}

/** A host whose act yields `n` values as fast as it can (a breath every 1000) and returns. */
async function host (shared: boolean): Promise<{ app: FastifyInstance, url: string }> {
  const app = Fastify()
  await app.register(gpt, {
    form: { type: 'integer' },
    rateLimit: false,
    lint: false,
    background: { after: 60_000, keep: 600_000 },
    ...(shared ? { share: { redis: client(), key: 'bench' } } : {}),
    async * act (n: number) {
      for (let i = 1; i <= n; i++) {
        yield { i }
        if (i % 1000 === 0) await new Promise((resolve) => setImmediate(resolve))
      }
      return { events: n }
    }
  } as unknown as GptOptions)
  return { app, url: await app.listen({ port: 0, host: '127.0.0.1' }) }
}

const local = await host(false)
const owner = await host(true)
const reader = await host(true)

const start = async (url: string, n: number): Promise<{ href: string, events: string }> =>
  await (await fetch(`${url}/`, { method: 'POST', body: String(n), headers: { prefer: 'respond-async' } })).json() as { href: string, events: string }

/** Reads a stream to its end: the events it carried (heartbeats left out) and the status of the last. */
async function stream (url: string): Promise<{ lines: number, last: string }> {
  const events = (await (await fetch(url)).text()).split('\n').filter((line) => line !== '')
  return { lines: events.length, last: (JSON.parse(events.at(-1)!) as { status: string }).status }
}

// The GET of a finished job's address: in memory on its host, and from Redis on another instance.
const done = async (url: string): Promise<string> => {
  const { href, events } = await start(url, 3)
  await stream(url + events)
  return href
}
const targets = { memory: { app: local.app, href: await done(local.url) }, shared: { app: reader.app, href: await done(owner.url) } }
const rates: Record<'memory' | 'shared', number[]> = { memory: [], shared: [] }
for (let round = 0; round < rounds; round++) {
  for (const name of ['memory', 'shared'] as const) {
    const { app, href } = targets[name]
    const began = performance.now()
    for (let i = 0; i < gets; i++) {
      const response = await app.inject(href)
      if (response.statusCode !== 200) throw new Error(`GET ${name}: ${response.statusCode}`)
    }
    rates[name].push(gets / ((performance.now() - began) / 1000))
  }
}
const median = (list: number[]): number => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)]!
const getRates = { memory: Math.round(median(rates.memory)), shared: Math.round(median(rates.shared)) }
console.log(`GET of a finished job's address (inject, median of ${rounds}): memory ${getRates.memory}/s, shared ${getRates.shared}/s, ratio ${(getRates.shared / getRates.memory).toFixed(2)}`)

// Events through the stream: the act on one host, the stream read from another (or the same, in memory).
const through = async (runs: string, reads: string): Promise<{ lines: number, seconds: number, perSecond: number, last: string }> => {
  const began = performance.now()
  const { events } = await start(runs, eventCount)
  const { lines, last } = await stream(reads + events)
  const seconds = (performance.now() - began) / 1000
  return { lines, seconds, perSecond: Math.round(lines / seconds), last }
}
const streams = { memory: await through(local.url, local.url), shared: await through(owner.url, reader.url) }
for (const [name, result] of Object.entries(streams)) {
  console.log(`stream (${name}): ${eventCount} events yielded, ${result.lines} read, ending ${result.last}, in ${result.seconds.toFixed(2)} s: ${result.perSecond} events/s read`)
}

for (const app of [local.app, owner.app, reader.app]) await app.close()
for (const redis of clients) redis.disconnect()
await redis.stop()

if (!quick) {
  const out = resolve(import.meta.dirname, '..', 'benchmarks/results/jobs-shared-latest.json')
  mkdirSync(resolve(out, '..'), { recursive: true })
  writeFileSync(out, JSON.stringify({ date: new Date().toISOString(), node: process.version, rounds, gets: getRates, streams }, null, 2) + '\n')
}
process.exit(0) // the hosts' Redis subscribers would hold it open
