import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { once } from 'node:events'
import { after, before, describe, it } from 'node:test'
import type { FastifyBaseLogger } from 'fastify'
import { Redis } from 'ioredis'
import { SharedJobs } from '../../src/jobs/shared.ts'
import { UNAVAILABLE } from '../../src/jobs/source.ts'
import { DEFAULT_BACKGROUND } from '../../src/jobs/settings.ts'
import { JobStore } from '../../src/jobs/store.ts'
import { redisServer, until, type RedisServer } from '../helpers/redis.ts'

// The Redis-backed job source on its own, against a real redis-server: what it answers when the
// connection goes between two calls, and when what Redis holds is not what it wrote.

interface Logged { level: string, message: string }

function logger (lines: Logged[]): FastifyBaseLogger {
  const at = (level: string) => (_object: unknown, message: string): void => { lines.push({ level, message }) }
  const log = { level: 'info', fatal: at('fatal'), error: at('error'), warn: at('warn'), info: at('info'), debug: at('debug'), trace: at('trace'), silent: () => {}, child: () => log }
  return log as unknown as FastifyBaseLogger
}

const digestOf = (id: string): string => createHash('sha256').update(id).digest('base64url')

describe('the shared job source, alone', () => {
  let redis: RedisServer
  let key = 0

  const opened: SharedJobs[] = []

  before(async () => { redis = await redisServer() })
  // Each source's subscriber is its own connection: all closed, whatever a test did, before Redis goes.
  after(async () => {
    await Promise.allSettled(opened.map((jobs) => jobs.close()))
    await redis.stop()
  })

  async function source (settings = DEFAULT_BACKGROUND): Promise<{ jobs: SharedJobs, store: JobStore, client: Redis, lines: Logged[], prefix: string }> {
    const client = redis.client()
    if (client.status !== 'ready') await once(client, 'ready') // it fails fast: nothing is sent before it is connected
    const lines: Logged[] = []
    const store = new JobStore(settings)
    const prefix = `source-${++key}`
    const jobs = new SharedJobs({ redis: client, key: prefix }, settings, store, logger(lines), '/source')
    opened.push(jobs)
    await jobs.start()
    return { jobs, store, client, lines, prefix }
  }

  it('a job id Redis has never held is no job', async () => {
    const { jobs } = await source()
    assert.equal(await jobs.get('never-written-anywhere-0000000000'), undefined)
    await jobs.close()
  })

  it('an event line that is not JSON makes the job unreadable: no job, said once at warn by key, never by id', async () => {
    const { jobs, client, lines, prefix } = await source()
    const id = 'a-job-written-by-someone-else-000'
    const hash = `${prefix}:job:${digestOf(id)}`
    await client.hset(hash, { status: 'completed', started: '1', version: '1', owner: 'x', progressed: '', result: '1', expires: String(Date.now() + 60_000) })
    await client.rpush(`${hash}:events`, '{"seq":1,"status":"completed" not json}\nDone.')
    assert.equal(await jobs.get(id), undefined)
    const warned = lines.filter((line) => line.level === 'warn')
    assert.equal(warned.length, 1)
    assert.ok(!JSON.stringify(lines).includes(id), 'the id is a capability: never logged')
    await jobs.close()
  })

  it('a cancel or a forget when the connection is gone says Redis is away, not that there is no job', async () => {
    const { jobs, client } = await source()
    await jobs.close()
    client.disconnect()
    assert.equal(await jobs.cancel('any-job-id-at-all-000000000000000'), UNAVAILABLE)
    assert.equal(await jobs.forget('any-job-id-at-all-000000000000000'), UNAVAILABLE)
  })

  it('progress that cannot be written is said at warn, and the job goes on here; an end Redis missed is written at the next sign of life', async () => {
    const { jobs, store, client, lines, prefix } = await source({ ...DEFAULT_BACKGROUND, lease: 300 })
    assert.equal(store.reserve(), true)
    const job = store.admit(Date.now())
    assert.equal(await store.announce(job), true, 'stored while Redis is there')
    client.disconnect()
    job.progress({ message: 'one step' })
    await until(() => lines.some((line) => line.level === 'warn' && /could not be written/.test(line.message)), 'the failed write said at warn')
    assert.equal(job.status, 'working', 'a write Redis missed does not end the job where it runs')
    assert.equal(job.last(1)[0]?.message, 'one step')
    job.complete({ steps: 1 }, Date.now()) // while Redis is still away: not written
    const missed = (): number => lines.filter((line) => /could not be written/.test(line.message)).length
    await until(() => missed() === 2, 'the end missed too')
    await client.connect()
    const hash = `${prefix}:job:${digestOf(job.id)}`
    await until(async () => await client.hget(hash, 'status') === 'completed', 'the end written once Redis is back')
    assert.equal(await client.hget(hash, 'result'), '{"steps":1}')
    await jobs.close()
  })
})
