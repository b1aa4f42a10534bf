import assert from 'node:assert/strict'
import type { ChildProcess } from 'node:child_process'
import { after, before, describe, it } from 'node:test'
import Fastify, { type FastifyInstance } from 'fastify'
import { Redis, type RedisOptions } from 'ioredis'
import gpt, { type SharedGptAddress } from '../src/index.ts'
import { registrationError } from './helpers/host.ts'
import { freePort } from './helpers/port.ts'
import { startRedis, stopRedis, until, waitForRedis } from './helpers/redis.ts'

// Several instances of one address in this process, each with its own Redis client: what a
// host sees of sharing, short of separate processes (test/editions.test.ts has those).
describe('shared editions, instances in one process', () => {
  let port: number
  let server: ChildProcess
  const clients: Redis[] = []
  const apps: FastifyInstance[] = []

  before(async () => {
    port = await freePort()
    server = startRedis(port)
    await waitForRedis(port)
  })
  after(async () => {
    for (const app of apps) await app.close()
    for (const client of clients) client.disconnect()
    await stopRedis(server)
  })

  const client = (options: RedisOptions = {}): Redis => {
    const redis = new Redis({ port, host: '127.0.0.1', enableOfflineQueue: false, maxRetriesPerRequest: 0, ...options })
    redis.on('error', () => {})
    clients.push(redis)
    return redis
  }

  async function instance (key: string, options: Record<string, unknown> = {}, logged: string[] = []): Promise<{ app: FastifyInstance, address: SharedGptAddress }> {
    let handle: SharedGptAddress | undefined
    const app = Fastify({ logger: { level: 'error', stream: { write: (line: string) => { logged.push(line) } } } })
    apps.push(app)
    await app.register(gpt, {
      form: { type: 'integer' },
      act: (n) => n,
      rateLimit: false,
      share: { redis: client(), key },
      onAddress: (address) => { handle = address },
      ...options
    })
    await app.ready()
    return { app, address: handle! }
  }

  it('function updates from two instances, interleaved, all land once on both', async () => {
    const [a, b] = [await instance('interleaved'), await instance('interleaved')]
    const sent = Array.from({ length: 120 }, (_, i) => `m${i}`)
    await Promise.all(sent.map((content, i) => [a, b][i % 2]!.address.update((current) => ({
      messages: [...current.messages, { role: 'user', content }]
    }))))
    await until(() => a.address.etag === b.address.etag && a.address.messages.length === sent.length, 'both instances hold every message')
    assert.deepEqual([...a.address.messages.map((m) => m.content)].sort(), [...sent].sort())
    assert.equal((await a.app.inject('/')).body, (await b.app.inject('/')).body)
  })

  it('a plain change applies to the latest edition: what it leaves out stays as stored', async () => {
    const [a, b] = [await instance('plain'), await instance('plain')]
    await a.address.update({ messages: [{ role: 'user', content: 'kept' }] })
    await b.address.update({ prompt: 'changed' }) // b may not have seen a's edition yet: the conflict brings it
    await until(() => a.address.prompt === 'changed', 'the prompt reaches a')
    assert.deepEqual(a.address.messages, [{ role: 'user', content: 'kept' }])
    assert.deepEqual(b.address.messages, [{ role: 'user', content: 'kept' }])
  })

  it('update() returns a promise that rejects by name, changing nothing, for a bad change', async () => {
    const { app, address } = await instance('bad', { prefix: '/shared' })
    const before = { etag: address.etag, body: (await app.inject('/shared')).body }
    for (const [change, code] of [[5, 'GPT_ERR_OPTION_INVALID'], [{ nope: 1 }, 'GPT_ERR_OPTION_UNKNOWN'], [{ form: { type: 'text' } }, 'GPT_ERR_FORM_INVALID'], [() => null, 'GPT_ERR_OPTION_INVALID']] as const) {
      const pending = address.update(change as never)
      assert.ok(pending instanceof Promise, 'no synchronous throw with sharing on')
      await assert.rejects(pending, (error: Error & { code?: string }) => {
        assert.equal(error.code, code)
        assert.match(error.message, /address \/shared:/)
        return true
      })
    }
    const thrown = new Error('from the function')
    await assert.rejects(address.update(() => { throw thrown }), thrown)
    assert.deepEqual({ etag: address.etag, body: (await app.inject('/shared')).body }, before)
    await address.update({ prompt: 'still works' })
    assert.equal(address.prompt, 'still works')
  })

  it('a stored edition an instance cannot build is logged once and left; the next update builds on the last edition served and stores above it', async () => {
    const logged: string[] = []
    const { address } = await instance('unbuildable', {}, logged)
    const other = await instance('unbuildable')
    const before = address.etag
    const raw = client({ enableOfflineQueue: true })
    for (const [version, content] of [[50, '{"prompt":"","messages":[],"form":{"type":"text"}}'], [51, 'not json']] as const) {
      await raw.hset('unbuildable', 'version', version, 'content', content)
      await raw.publish('unbuildable', String(version))
      await until(() => logged.length === version - 49, `edition ${version} logged`)
      await raw.publish('unbuildable', String(version)) // announced again: not logged again
    }
    assert.match(logged[0]!, /GPT_ERR_FORM_INVALID/)
    assert.match(logged[1]!, /GPT_ERR_FORM_NOT_JSON/)
    assert.equal(address.etag, before)
    assert.equal(other.address.etag, before)
    await address.update({ prompt: 'after the refusals' })
    assert.equal(address.prompt, 'after the refusals')
    assert.equal(await raw.hget('unbuildable', 'version'), '52')
    await until(() => other.address.prompt === 'after the refusals', 'the update reaches the other instance')
    // A good edition stored later is taken by both.
    await raw.hset('unbuildable', 'version', 60, 'content', '{"prompt":"good","messages":[],"form":{"type":"integer"}}')
    await raw.publish('unbuildable', '60')
    await until(() => address.prompt === 'good' && other.address.prompt === 'good', 'the good edition everywhere')
    assert.equal(logged.length, 2)
  })

  it('a client connecting lazily is connected; addresses at different paths keep different keys', async () => {
    let one: SharedGptAddress | undefined
    let two: SharedGptAddress | undefined
    const app = Fastify()
    apps.push(app)
    const redis = client({ lazyConnect: true })
    await app.register(gpt, { form: {}, act: () => 1, rateLimit: false, share: { redis }, onAddress: (a) => { one = a } })
    await app.register(gpt, { prefix: '/two', form: {}, act: () => 1, rateLimit: false, share: { redis }, onAddress: (a) => { two = a } })
    await app.ready()
    await one!.update({ prompt: 'one' })
    assert.equal(two!.prompt, '')
    assert.deepEqual(await client({ enableOfflineQueue: true }).hget('fastify-gpt:edition:/', 'content'), JSON.stringify({ prompt: 'one', messages: [], form: {} }))
  })

  it('registration fails by name when Redis cannot be reached', async () => {
    const redis = client({ port: await freePort(), retryStrategy: () => null })
    const error = await registrationError({ form: {}, share: { redis } }, '/away') as Error & { code?: string }
    assert.equal(error.code, 'GPT_ERR_EDITION_NOT_STORED')
    assert.match(error.message, /address \/away:.*gave up/)
  })

  it('refuses a share option that is not { redis, key? } by name', async () => {
    const redis = client()
    for (const [share, detail] of [[5, /"share"/], [{ redis: {} }, /"share.redis"/], [{ redis, key: '' }, /"share.key"/], [{ redis, ttl: 1 }, /"ttl"/]] as const) {
      const error = await registrationError({ form: {}, share }, '/opt') as Error & { code?: string }
      assert.equal(error.code, 'GPT_ERR_OPTION_INVALID')
      assert.match(error.message, /address \/opt:/)
      assert.match(error.message, detail)
    }
  })
})
