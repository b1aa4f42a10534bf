// The example host on several processes: node:cluster shares one listening port between workers.
//   WORKERS=2 node example/cluster.js          (WORKERS defaults to the number of cores)
//   REDIS_URL=redis://127.0.0.1:6379 ...       rate limits shared by all workers (needs ioredis)
// Without REDIS_URL each worker limits on its own, so a client may get up to WORKERS x max.
import cluster from 'node:cluster'
import { availableParallelism } from 'node:os'
import Fastify from 'fastify'
import gpt from 'fastify-gpt'
import { noteBoard, poll } from './addresses.js'

const workers = Number(process.env.WORKERS ?? availableParallelism())

if (cluster.isPrimary) {
  for (let i = 0; i < workers; i++) cluster.fork()
  cluster.on('exit', (worker, code) => {
    if (code !== 0) cluster.fork() // keep the pool full after a crash
  })
} else {
  const rateLimit = process.env.REDIS_URL === undefined
    ? {}
    : { redis: await redisClient(process.env.REDIS_URL) }
  const app = Fastify({ logger: { level: process.env.LOG_LEVEL ?? 'warn' } })
  await app.register(gpt, { ...noteBoard(), ...limits(rateLimit) })
  await app.register(gpt, { ...poll(), ...limits(rateLimit) })
  await app.listen({ port: Number(process.env.PORT ?? 3000), host: process.env.HOST ?? '127.0.0.1' })
}

function limits (extra) {
  const max = Number(process.env.RATE_MAX ?? 60)
  return max === 0 ? { rateLimit: false } : { rateLimit: { max, timeWindow: 60_000, ...extra } }
}

async function redisClient (url) {
  const { Redis } = await import('ioredis')
  // Fail fast while Redis is away instead of queueing commands: requests then pass unlimited.
  const redis = new Redis(url, { enableOfflineQueue: false, maxRetriesPerRequest: 0 })
  redis.on('error', (error) => console.error('redis:', error.message))
  return redis
}
