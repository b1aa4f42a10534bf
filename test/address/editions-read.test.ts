// A shared edition that cannot be read when an instance is told of a new one (Redis refusing the
// read, or gone between the announcement and the read): the instance says so and serves on with
// the edition it has; a later announcement is read again.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import Fastify from 'fastify'
import type { Redis } from 'ioredis'
import gpt from '../../src/index.ts'
import { redisServer, until, type RedisServer } from '../helpers/redis.ts'

let redis: RedisServer
before(async () => { redis = await redisServer() })
after(async () => { await redis.stop() })

/** The server's client, whose scripts fail while `failing.now` is set. */
function refusing (real: Redis, failing: { now: boolean }): Redis {
  return new Proxy(real, {
    get (target, name) {
      const value: unknown = Reflect.get(target, name, target)
      if (name === 'eval') return (...args: unknown[]) => failing.now ? Promise.reject(new Error('read refused')) : (value as (...a: unknown[]) => unknown).apply(target, args)
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value
    }
  })
}

describe('a shared edition that cannot be read after an announcement', () => {
  it('is logged as not read, and the address serves the edition it has; the next announcement is read', async () => {
    const failing = { now: false }
    const warnings: string[] = []
    const app = Fastify({ logger: { level: 'warn', stream: { write: (line: string) => { warnings.push(JSON.parse(line).msg as string) } } } })
    const key = `edition-read:${Math.random()}`
    let address: { update: (change: object) => Promise<void> } | undefined
    await app.register(gpt, { form: { type: 'string' }, act: () => null, rateLimit: false, share: { redis: refusing(redis.client(), failing), key }, onAddress: (made) => { address = made } })
    await app.ready()
    const admin = redis.client({ enableOfflineQueue: true })
    try {
      const etag = (await app.inject('/')).headers.etag
      failing.now = true
      await admin.publish(key, '99')
      await until(() => warnings.includes('gpt: could not read the shared edition'), 'the failed read said')
      const served = await app.inject('/')
      assert.deepEqual([served.statusCode, served.headers.etag], [200, etag], 'the edition it had')
      failing.now = false
      await address!.update({ prompt: 'Changed.' })
      assert.equal(JSON.parse((await app.inject('/')).body).p, 'Changed.', 'and it goes on sharing')
    } finally {
      await app.close()
    }
  })
})
