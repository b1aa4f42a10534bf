// An example host with three GPT addresses: a note board at /, a poll at /poll and a slow act at
// /slow, which the board names.
//   npm start                     listens on 127.0.0.1:3000 (PORT and HOST override)
//   curl -s localhost:3000        the note board's arrival: {p, m, s}
//   curl -s localhost:3000 -d '{"note":"hello"}'
//   REDIS_URL=redis://127.0.0.1:6379 npm start
//                                 rate limits and the board shared through Redis (needs ioredis),
//                                 with every other host given the same REDIS_URL
//   RATE_MAX=0                    no rate limit (RATE_MAX=n: n requests a minute per client)
import Fastify from 'fastify'
import gpt from 'fastify-gpt'
import { noteBoard, poll, slow } from './addresses.js'

const redis = process.env.REDIS_URL === undefined ? undefined : await redisClient(process.env.REDIS_URL)
const app = Fastify({ logger: { level: process.env.LOG_LEVEL ?? 'info' } })

// The board names the poll and the slow act in its arrival's l (docs/links.md): GET / | jq .l
await app.register(gpt, { ...noteBoard(redis === undefined ? {} : { share: { redis } }), links: ['/poll', '/slow'], ...limits() })
await app.register(gpt, { ...poll(), ...limits() })
await app.register(gpt, { ...slow(), ...limits() })

const port = Number(process.env.PORT ?? 3000)
const host = process.env.HOST ?? '127.0.0.1'
await app.listen({ port, host })

function limits () {
  const max = Number(process.env.RATE_MAX ?? 60)
  if (max === 0) return { rateLimit: false }
  return { rateLimit: { max, timeWindow: 60_000, ...(redis === undefined ? {} : { redis }) } }
}

async function redisClient (url) {
  const { Redis } = await import('ioredis')
  // Fail fast while Redis is away instead of queueing commands: requests then pass unlimited,
  // and pinning a note answers 503 instead of waiting.
  const client = new Redis(url, { enableOfflineQueue: false, maxRetriesPerRequest: 0 })
  client.on('error', (error) => console.error('redis:', error.message))
  return client
}
