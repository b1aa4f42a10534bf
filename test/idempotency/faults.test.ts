// Idempotency-Key with `share` when Redis stops answering (frozen by SIGSTOP, as a stalled or
// swapped-out server is): every Redis call on the act's path has a deadline (REDIS_DEADLINE), so a
// keyed act is answered 503 with Retry-After within 2 s, and is never run later for that request.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import Fastify, { type FastifyInstance } from 'fastify'
import gpt from '../../src/index.ts'
import { REDIS_DEADLINE } from '../../src/idempotency/shared.ts'
import { noteForm } from '../helpers/host.ts'
import { redisServer, type RedisServer } from '../helpers/redis.ts'

let redis: RedisServer
before(async () => { redis = await redisServer() })
after(async () => { await redis.stop() })

async function keyed (): Promise<{ app: FastifyInstance, runs: () => number }> {
  let runs = 0
  const app = Fastify()
  await app.register(gpt, { form: noteForm, rateLimit: false, idempotency: true, share: { redis: redis.client(), key: `faults:${Math.random()}` }, act: () => ({ run: ++runs }) })
  await app.ready()
  return { app, runs: () => runs }
}

const post = (app: FastifyInstance, key: string, note = 'a'): ReturnType<FastifyInstance['inject']> =>
  app.inject({ method: 'POST', url: '/', payload: JSON.stringify({ note }), headers: { 'content-type': 'application/json', 'idempotency-key': `"${key}"` } })

describe('a keyed act while Redis is frozen', () => {
  it('is answered 503 with Retry-After within 2 s, never run for that request, and runs once Redis answers again', async () => {
    const { app, runs } = await keyed()
    try {
      assert.equal((await post(app, 'warm')).statusCode, 200)
      assert.ok(REDIS_DEADLINE * 2 < 2000)
      redis.freeze()
      const started = Date.now()
      const answers = await Promise.all([post(app, 'k1'), post(app, 'k2'), post(app, 'warm')])
      const took = Date.now() - started
      for (const answer of answers) assert.deepEqual([answer.statusCode, answer.headers['retry-after'], answer.body], [503, '1', ''])
      assert.ok(took < 2000, `answered in ${took} ms`)
      const before = runs()
      await sleep(300)
      redis.thaw()
      await sleep(300)
      assert.equal(runs(), before, 'nothing ran for the requests Redis did not answer in time')
      // the look-up that timed out stored nothing: a retry of k1 runs it, once
      assert.equal((await post(app, 'k1')).statusCode, 200)
      assert.equal(runs(), before + 1)
      assert.equal((await post(app, 'fresh')).statusCode, 200, 'a new key runs once Redis answers')
      assert.equal((await post(app, 'warm')).headers['idempotent-replayed'], 'true', 'and a kept answer replays')
    } finally {
      redis.thaw()
      await app.close()
    }
  })
})
