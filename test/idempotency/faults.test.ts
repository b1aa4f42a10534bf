// Idempotency-Key with `share` when Redis stops answering (frozen by SIGSTOP, as a stalled or
// swapped-out server is): every Redis call on the act's path has a deadline (REDIS_DEADLINE), so a
// keyed act is answered 503 with Retry-After within 2 s, and is never run later for that request.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import Fastify, { type FastifyInstance, type LightMyRequestResponse } from 'fastify'
import gpt from '../../src/index.ts'
import { REDIS_DEADLINE } from '../../src/idempotency/shared.ts'
import { noteForm } from '../helpers/host.ts'
import { redisServer, type RedisServer } from '../helpers/redis.ts'

let redis: RedisServer
before(async () => { redis = await redisServer() })
after(async () => { await redis.stop() })

async function keyed (actMs = 0, lease = 10_000): Promise<{ app: FastifyInstance, runs: () => number }> {
  let runs = 0
  const app = Fastify()
  const act = async (): Promise<{ run: number }> => {
    const run = ++runs
    if (actMs > 0) await sleep(actMs)
    return { run }
  }
  await app.register(gpt, { form: noteForm, rateLimit: false, idempotency: { lease }, share: { redis: redis.client(), key: `faults:${Math.random()}` }, act })
  await app.ready()
  return { app, runs: () => runs }
}

const post = (app: FastifyInstance, key: string, note = 'a'): Promise<LightMyRequestResponse> =>
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
      // k1's claim reached Redis after its deadline, with nobody to run its act or renew it: a retry
      // waits (409) until its lease lapses, then gets the bare 500; never a run
      const retried = await post(app, 'k1')
      assert.equal(retried.statusCode, 409)
      assert.ok(Number(retried.headers['retry-after']) >= 5, 'until the late claim\'s lease (10 s) lapses')
      assert.equal(runs(), before)
      assert.equal((await post(app, 'fresh')).statusCode, 200, 'a new key runs once Redis answers')
      assert.equal((await post(app, 'warm')).headers['idempotent-replayed'], 'true', 'and a kept answer replays')
    } finally {
      redis.thaw()
      await app.close()
    }
  })
})

describe('a keyed act whose claim Redis loses while it runs', () => {
  // Retries of the key while the act runs: each must be 409 or 503, never a second act (the last
  // may meet the answer just kept: a replay, 200 marked replayed, is as good).
  async function retriesDuring (app: FastifyInstance, first: Promise<LightMyRequestResponse>): Promise<Array<number | 'replayed'>> {
    const statuses: Array<number | 'replayed'> = []
    const state = { done: false }
    first.then(() => { state.done = true }, () => { state.done = true })
    while (!state.done) {
      const retry = await post(app, 'lost')
      statuses.push(retry.statusCode === 200 && retry.headers['idempotent-replayed'] === 'true' ? 'replayed' : retry.statusCode)
      await sleep(50)
    }
    return statuses
  }

  /** The key's act, with Redis losing its claim 300 ms in (`lose`): it runs once, every retry meanwhile waits, its answer is kept. */
  async function losing (actMs: number, lose: () => Promise<unknown>): Promise<Array<number | 'replayed'>> {
    const { app, runs } = await keyed(actMs, 600)
    try {
      const first = post(app, 'lost')
      await sleep(300)
      await lose()
      const during = await retriesDuring(app, first)
      assert.equal((await first).statusCode, 200)
      assert.ok(during.every((status) => status === 409 || status === 503 || status === 'replayed'), JSON.stringify(during))
      assert.equal(runs(), 1)
      const again = await post(app, 'lost')
      assert.deepEqual([again.statusCode, again.headers['idempotent-replayed'], again.body], [200, 'true', (await first).body], 'its answer kept')
      return during
    } finally {
      await app.close()
    }
  }

  it('FLUSHALL mid-act: no retry is taken for a new key, the act runs once, and its answer is kept', async () => {
    const admin = redis.client()
    const during = await losing(1500, () => admin.flushall())
    assert.ok(during.length > 5, JSON.stringify(during))
    assert.ok(during.includes(409), 'the running act wrote its claim back')
  })

  it('redis-server killed mid-act and restarted empty: the same', async () => {
    await losing(2500, () => redis.restart())
  })

  it('redis-server away as the act ends and back empty: the answer is stored once it is back, and a retry after the grace is its replay, not a second run', async () => {
    const { app, runs } = await keyed(600, 600)
    try {
      const first = post(app, 'late')
      await sleep(300)
      await redis.kill()
      assert.equal((await first).statusCode, 200, 'the act ended while Redis was away')
      await redis.restart()
      // the first retry finds the epoch gone: for a lease no key is claimed anew, while the
      // owner sends its answer again every third of its lease
      const during = await post(app, 'late')
      assert.ok(during.statusCode === 503 || during.headers['idempotent-replayed'] === 'true', String(during.statusCode))
      await sleep(800)
      const again = await post(app, 'late')
      assert.deepEqual([again.statusCode, again.headers['idempotent-replayed'], again.body, runs()], [200, 'true', (await first).body, 1])
    } finally {
      await app.close()
    }
  })
})

describe('a keyed act while Redis is full (maxmemory reached, noeviction)', () => {
  it('is answered 503 with Retry-After and not run; it runs once Redis has room again', async () => {
    const { app, runs } = await keyed()
    const admin = redis.client({ enableOfflineQueue: true })
    try {
      assert.equal((await post(app, 'roomy')).statusCode, 200)
      await admin.config('SET', 'maxmemory', '1')
      const full = await post(app, 'full')
      assert.deepEqual([full.statusCode, full.headers['retry-after'], full.body], [503, '1', ''])
      assert.equal(runs(), 1, 'not run')
      await admin.config('SET', 'maxmemory', '0')
      assert.equal((await post(app, 'full')).statusCode, 200)
      assert.equal(runs(), 2)
    } finally {
      await admin.config('SET', 'maxmemory', '0')
      await app.close()
    }
  })
})

describe('Redis\'s memory policy', () => {
  it('warns at start where it may evict the keys, and says nothing under noeviction', async () => {
    const admin = redis.client()
    const warnings = async (): Promise<string[]> => {
      const lines: string[] = []
      const app = Fastify({ logger: { level: 'warn', stream: { write: (line: string) => { lines.push(JSON.parse(line).msg as string) } } } })
      await app.register(gpt, { form: noteForm, rateLimit: false, idempotency: true, share: { redis: redis.client(), key: `policy:${Math.random()}` }, act: () => null })
      await app.ready()
      await app.close()
      return lines.filter((line) => line.includes('maxmemory-policy'))
    }
    assert.deepEqual(await warnings(), [])
    await admin.config('SET', 'maxmemory-policy', 'allkeys-lru')
    try {
      const said = await warnings()
      assert.equal(said.length, 1)
      assert.match(said[0] as string, /maxmemory-policy is allkeys-lru: it may evict idempotency keys/)
    } finally {
      await admin.config('SET', 'maxmemory-policy', 'noeviction')
    }
  })
})
