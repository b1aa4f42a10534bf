import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { once } from 'node:events'
import { after, before, describe, it } from 'node:test'
import fc from 'fast-check'
import type { FastifyBaseLogger } from 'fastify'
import { Redis } from 'ioredis'
import { Job, RETAINED } from '../../src/jobs/job.ts'
import { PROGRESS_BYTES, SharedJobs } from '../../src/jobs/shared.ts'
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

// What an act may yield or return: anything JSON.stringify takes, keys and strings of any code
// units (lone surrogates, U+2028, control characters), integer-like keys, `__proto__`.
const TEXT = fc.oneof(fc.string({ unit: 'binary' }), fc.constantFrom('\ud800', 'a\udfff', '\u2028\r\n', '</script>', '\\"/'))
const VALUE = fc.anything({
  key: fc.oneof(TEXT, fc.nat().map(String), fc.constant('__proto__')),
  values: [TEXT, fc.double(), fc.integer(), fc.boolean(), fc.constant(null)],
  maxDepth: 3,
  maxKeys: 5,
  withBoxedValues: true,
  withDate: true,
  withMap: true,
  withNullPrototype: true,
  withSparseArray: true,
  withTypedArray: true
})

/** Where a canonical JSON text can change form: between tokens, a character of a string, the end of a number. */
function sites (text: string): { space: number[], escape: number[], number: number[] } {
  const found = { space: [] as number[], escape: [] as number[], number: [] as number[] }
  let string = false
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if (string) {
      if (code === 0x5c) i += text[i + 1] === 'u' ? 5 : 1
      else if (code === 0x22) string = false
      else if (code < 0xd800 || code > 0xdfff) found.escape.push(i) // a surrogate escaped alone is another string once in Redis (UTF-8)
      continue
    }
    found.space.push(i)
    if (code === 0x22) string = true
    else if (/[0-9]/.test(text[i]!) && !/[0-9.eE+-]/.test(text[i + 1] ?? '')) found.number.push(i + 1)
  }
  found.space.push(text.length)
  return found
}

type Change = 'space' | 'escape' | 'number'

/** `text` in another form that JSON.parse reads (or refuses), never the one JSON.stringify writes. */
function perturb (text: string, change: Change, at: number, variant: number): string {
  const all = sites(text)
  const kind = all[change].length > 0 ? change : 'space'
  const i = all[kind][at % all[kind].length]!
  if (kind === 'space') return text.slice(0, i) + ' \t\r\n'[variant % 4] + text.slice(i)
  if (kind === 'number') return text.slice(0, i) + ['.0', 'e0', 'E+0', 'e-0'][variant % 4] + text.slice(i)
  const hex = text.charCodeAt(i).toString(16).padStart(4, '0')
  const escaped = text[i] === '/' && variant % 3 === 2 ? '\\/' : `\\u${variant % 2 === 0 ? hex : hex.toUpperCase()}`
  return text.slice(0, i) + escaped + text.slice(i + 1)
}

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

  it('property: whatever JSON this plugin writes of an act\'s progress and result, it reads back as written', async () => {
    const { jobs, store, client, lines, prefix } = await source()
    await fc.assert(fc.asyncProperty(fc.array(VALUE, { maxLength: 3 }), VALUE, async (steps, value) => {
      const job = new Job(Date.now(), DEFAULT_BACKGROUND.keep)
      assert.equal(await store.shared!.admitted(job), true, 'stored')
      for (const step of steps) job.progress(step)
      job.complete(value, Date.now())
      for (const event of job.last(RETAINED)) assert.ok(Buffer.byteLength(event.line + event.message) <= PROGRESS_BYTES, 'every event shared')
      await until(async () => await client.hget(`${prefix}:job:${digestOf(job.id)}`, 'status') === 'completed', 'its end written')
      const read = await jobs.get(job.id)
      assert.ok(read !== undefined && read !== UNAVAILABLE, 'read back')
      assert.equal(read.progressed, job.progressed)
      assert.equal(read.result, job.result)
      assert.deepEqual(read.last(RETAINED).map((event) => [event.seq, event.status, event.line]), job.last(RETAINED).map((event) => [event.seq, event.status, event.line]))
    }), { numRuns: 100 })
    assert.deepEqual(lines.filter((line) => line.level === 'warn'), [])
    await jobs.close()
  })

  it('property: a line, a progress or a result in any other form than JSON.stringify writes is refused; as written, it is read', async () => {
    const { jobs, client, lines, prefix } = await source()
    let planted = 0
    const plant = async (status: 'working' | 'completed', json: string, line: string): Promise<unknown> => {
      const id = `planted-${++planted}-000000000000000000000`
      const hash = `${prefix}:job:${digestOf(id)}`
      const fields = { status, started: '1700000000000', version: '1', owner: 'x', [status === 'working' ? 'progressed' : 'result']: json }
      await client.hset(hash, status === 'working' ? fields : { ...fields, expires: '1700000060000' })
      await client.rpush(`${hash}:events`, `${line}\nA message.`)
      return await jobs.get(id)
    }
    const targets = ['line', 'progressed', 'result'] as const
    await fc.assert(fc.asyncProperty(VALUE, fc.constantFrom(...targets), fc.constantFrom<Change>('space', 'escape', 'number'), fc.nat(), fc.nat(), async (value, target, change, at, variant) => {
      const json = JSON.stringify(value) ?? 'null'
      const status = target === 'result' ? 'completed' : 'working'
      const line = `{"seq":1,"status":"${status}",${status === 'working' ? '"progress"' : '"result"'}:${json}}`
      const changed = perturb(target === 'line' ? line : json, change, at, variant)
      // A line break at its very end only ends the line where it ended: what follows is the message.
      fc.pre(changed !== `${line}\n`)
      assert.notEqual(await plant(status, json, line), undefined, `${line} as written`)
      const warned = lines.length
      assert.equal(target === 'line' ? await plant(status, json, changed) : await plant(status, changed, line), undefined, changed)
      assert.equal(lines.length, warned + 1, 'said once at warn')
    }), { numRuns: 300 })
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
    const place = store.reserve('127.0.0.1')
    assert.ok(place !== undefined)
    const job = store.admit(place)
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
