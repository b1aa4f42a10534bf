// An example host with three GPT addresses: a note board at /, a poll at /poll and a slow act at
// /slow, which the board names; at /mcp, the same three as MCP tools (docs/mcp.md); at
// /.well-known/api-catalog, the host's API catalog listing them all (docs/catalog.md).
//   npm start                     listens on 127.0.0.1:3000 (PORT and HOST override)
//   curl -s localhost:3000        the note board's arrival: {p, m, s}
//   curl -s localhost:3000/.well-known/api-catalog
//                                 every address of the host, each titled by its first sentence
//   curl -s localhost:3000 -d '{"note":"hello"}'
//   claude mcp add --transport http board http://127.0.0.1:3000/mcp
//   REDIS_URL=redis://127.0.0.1:6379 npm start
//                                 rate limits, the board and /slow's jobs shared through Redis
//                                 (needs ioredis), with every other host given the same REDIS_URL
//   RATE_MAX=0                    no rate limit (RATE_MAX=n: n requests a minute per client)
//   SLOW_STEP_MS=250              /slow counts a word every 250 ms instead of every second
//   WORKER_HEADER=1               every answer names the process that sent it (x-worker: <pid>),
//                                 to see which worker of example/cluster.js answered
//   OTEL=console                  OpenTelemetry spans and metrics on stderr, one line each: why
//                                 each body was refused (stage, keyword), each act's outcome
import Fastify from 'fastify'
import gpt from 'fastify-gpt'
import catalog from 'fastify-gpt/catalog'
import mcp from 'fastify-gpt/mcp'
import { noteBoard, poll, slow } from './addresses.js'

const redis = process.env.REDIS_URL === undefined ? undefined : await redisClient(process.env.REDIS_URL)
const app = Fastify({ logger: { level: process.env.LOG_LEVEL ?? 'info' } })
// Before the addresses register: a hook reaches only the contexts created after it.
if (process.env.OTEL === 'console') await (await import('./telemetry.js')).telemetry(app)
if (process.env.WORKER_HEADER === '1') app.addHook('onSend', async (_request, reply) => { reply.header('x-worker', String(process.pid)) })

// With Redis, the board and /slow's jobs are one across every host: any of them answers a job.
const share = redis === undefined ? {} : { share: { redis } }
const stepMs = process.env.SLOW_STEP_MS === undefined ? {} : { stepMs: Number(process.env.SLOW_STEP_MS) }

// The board names the poll and the slow act in its arrival's l (docs/links.md): GET / | jq .l
await app.register(gpt, { ...noteBoard(share), links: ['/poll', '/slow'], ...limits() })
await app.register(gpt, { ...poll(), ...limits() })
await app.register(gpt, { ...slow({ ...share, ...stepMs }), ...limits() })
// Every address above as an MCP tool: the board at / is the tool "root", the others "poll" and "slow".
await app.register(mcp)
// RFC 9727: /.well-known/api-catalog lists the three, and the MCP endpoint; every arrival names it
// in its Link header (rel="api-catalog").
await app.register(catalog, { mcp: '/mcp' })

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
