import assert from 'node:assert/strict'
import { after, afterEach, before, beforeEach, describe, it } from 'node:test'
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify'
import { Redis } from 'ioredis'
import gpt, { type ActContext, type BackgroundOptions, type GptOptions } from '../../src/index.ts'
import { PROGRESS_BYTES, RESULT_BYTES } from '../../src/jobs/shared.ts'
import { eventually, gate, slowHost, type Gate, type Stepper } from '../helpers/jobs.ts'
import { redisServer, type RedisServer } from '../helpers/redis.ts'

// Instances of one address in this process, each with its own Redis client, on a redis-server of
// this file's own, which the tests stop and start: what sharing does when things go wrong.
// (test/jobs/shared.test.ts runs separate host processes.)
const LEASE = 200
const SHARED: BackgroundOptions = { after: 60_000, keep: 60_000, heartbeat: 50, lease: LEASE }
const ASYNC = { prefer: 'respond-async' }

describe('jobs shared through Redis, when things go wrong', () => {
  let redis: RedisServer
  let port: number
  const apps: FastifyInstance[] = []
  const clients: Redis[] = []
  let key = 0

  before(async () => {
    redis = await redisServer()
    port = redis.port
  })
  beforeEach(() => { key++ })
  // Each test's instances are gone before the next starts: none is left reconnecting when one stops Redis.
  afterEach(async () => {
    for (const app of apps.splice(0)) await app.close()
    for (const client of clients.splice(0)) client.disconnect()
  })
  after(async () => { await redis.stop() })

  // The instances' clients fail fast while Redis is away (docs/deploying.md); the test's own waits.
  const client = (enableOfflineQueue = false): Redis => {
    const redis = new Redis({ port, host: '127.0.0.1', enableOfflineQueue, maxRetriesPerRequest: 0, retryStrategy: () => 20 })
    redis.on('error', () => {})
    clients.push(redis)
    return redis
  }

  /** Two instances of /slow sharing one key: the stepping act of test/helpers/jobs.ts. */
  async function pair (background: BackgroundOptions = SHARED, server: FastifyServerOptions = {}): Promise<{ a: FastifyInstance, b: FastifyInstance, stepper: Stepper }> {
    const { app: a, stepper } = await slowHost(background, { share: { redis: client(), key: `k${key}` } } as Partial<GptOptions>, server)
    const { app: b } = await slowHost(background, { share: { redis: client(), key: `k${key}` } } as Partial<GptOptions>)
    apps.push(a, b)
    return { a, b, stepper }
  }

  const begin = async (app: FastifyInstance, steps: number): Promise<string> => {
    const response = await app.inject({ method: 'POST', url: '/slow', headers: ASYNC, payload: { steps } })
    assert.equal(response.statusCode, 200, response.body)
    return response.json<{ href: string }>().href
  }
  const statusOf = async (app: FastifyInstance, href: string): Promise<string | number> => {
    const response = await app.inject(href)
    return response.statusCode === 200 ? response.json<{ status: string }>().status : response.statusCode
  }

  it('another instance taking the job for dead (its lease gone) fails it, and the act running it is told to stop', async () => {
    const { a, b, stepper } = await pair()
    const href = await begin(a, 3)
    const raw = client(true)
    await eventually(async () => (await statusOf(b, href)) === 'working', 'the job on B')
    assert.equal((await raw.keys(`k${key}:owner:*`)).length, 2, 'one lease per instance')
    // Its owner's lease is not found (as after a pause longer than the lease): it reads failed...
    const [job] = (await raw.keys(`k${key}:job:*`)).filter((name) => !name.endsWith(':events'))
    await raw.hset(job!, 'owner', 'a process that stopped')
    assert.equal(await statusOf(b, href), 'failed')
    // ...and the act, still running, hears it and is stopped.
    await eventually(() => stepper.signals[0]?.aborted === true, 'the act is told to stop')
    stepper.gates[1]!.open()
    assert.equal(await statusOf(a, href), 'failed')
  })

  it('a job forgotten on another instance frees its place in maxJobs where it ran', async () => {
    const { a, b, stepper } = await pair({ ...SHARED, maxJobs: 1 })
    const href = await begin(a, 1)
    assert.equal((await a.inject({ method: 'POST', url: '/slow', headers: ASYNC, payload: { steps: 1 } })).statusCode, 503, 'maxJobs held')
    stepper.gates[1]!.open()
    await eventually(async () => (await statusOf(b, href)) === 'completed', 'completed')
    assert.equal((await b.inject({ method: 'POST', url: href, payload: '{"do":"forget"}' })).body, '{"status":"forgotten"}')
    assert.equal(await statusOf(a, href), 404)
    await eventually(async () => (await a.inject({ method: 'POST', url: '/slow', headers: ASYNC, payload: { steps: 1 } })).statusCode === 200, 'a place again on A')
  })

  it(`progress larger than ${PROGRESS_BYTES} bytes is left out of what instances see; a result larger than ${RESULT_BYTES} bytes fails the job`, async () => {
    const gates: Gate[] = [gate(), gate()]
    const signals: AbortSignal[] = []
    const host = async (): Promise<FastifyInstance> => {
      const app = Fastify()
      apps.push(app)
      await app.register(gpt, {
        prefix: '/big',
        form: { type: 'integer' },
        rateLimit: false,
        share: { redis: client(), key: `k${key}` },
        background: SHARED,
        async * act (n: number, _request: unknown, _reply: unknown, { signal }: ActContext) {
          signals.push(signal)
          yield 'small'
          yield 'x'.repeat(PROGRESS_BYTES)
          yield 'small again'
          await gates[n]!.promise
          return 'y'.repeat(n === 0 ? RESULT_BYTES : 1000)
        }
      } as unknown as GptOptions)
      return app
    }
    const [a, b] = [await host(), await host()]
    const start = async (n: number): Promise<string> => (await a.inject({ method: 'POST', url: '/big', headers: ASYNC, payload: String(n) })).json<{ href: string }>().href
    const [huge, fine] = [await start(0), await start(1)]
    await eventually(async () => (await b.inject(huge)).json<{ m: unknown[] }>().m.length === 2, 'the small ones on B')
    assert.deepEqual((await b.inject(huge)).json<{ m: Array<{ content: string }> }>().m.map((m) => m.content), ['small', 'small again'])
    gates[0]!.open()
    gates[1]!.open()
    await eventually(async () => (await statusOf(b, huge)) === 'failed', 'the huge result fails its job')
    await eventually(async () => (await statusOf(b, fine)) === 'completed', 'a result under the bound completes')
    assert.equal((await b.inject(fine)).json<{ result: string }>().result.length, 1000)
    assert.equal(await statusOf(a, huge), 'failed', 'on the instance that ran it too')
  })

  it('Redis away: job addresses and control acts answer 503, an act cannot become a job (its signal aborted); Redis back empty: a running job stops', async () => {
    const logged: string[] = []
    const { a, b, stepper } = await pair(SHARED, { logger: { level: 'warn', stream: { write: (line: string) => { logged.push(line) } } } })
    const href = await begin(a, 3)
    await redis.kill()
    try {
      await away(a, b, href, stepper)
      // The owner's signs of life fail meanwhile, and it says so (its job goes on).
      await eventually(() => logged.some((line) => line.includes('could not renew the lease')), 'the failed renewal logged')
    } finally {
      // Back, with nothing of what it held (no persistence).
      await redis.restart()
    }
    await eventually(async () => (await statusOf(b, href)) === 404, 'the job is gone')
    await eventually(() => stepper.signals[0]?.aborted === true, 'the act of a job no instance can read is stopped')
    // Closed only once both instances' subscribers (editions and jobs) are back: a client closed
    // while it resubscribes leaves the resubscription's promise rejected with no one to hear it.
    const raw = client(true)
    await eventually(async () => (await raw.client('LIST') as string).split('\n').filter((line) => / sub=[1-9]/.test(line)).length === 4, 'four subscribers back')
  })

  async function away (a: FastifyInstance, b: FastifyInstance, href: string, stepper: Stepper): Promise<void> {
    for (const request of [{ url: href }, { url: href, method: 'POST' as const, payload: '{"do":"cancel"}' }]) {
      const response = await b.inject(request)
      assert.equal(response.statusCode, 503)
      assert.equal(response.headers['retry-after'], '2')
    }
    const refused = await a.inject({ method: 'POST', url: '/slow', headers: ASYNC, payload: { steps: 1 } })
    assert.equal(refused.statusCode, 503)
    assert.ok(refused.headers['retry-after'] !== undefined)
    assert.equal(refused.headers.link, undefined)
    assert.equal(stepper.signals[1]?.aborted, true, 'the act that could not become a job is told to stop')
    assert.equal(stepper.signals[0]?.aborted, false, 'the running one goes on meanwhile')
  }
})
