import assert from 'node:assert/strict'
import { createHash, randomBytes } from 'node:crypto'
import { once } from 'node:events'
import { after, before, describe, it } from 'node:test'
import type { FastifyInstance, InjectOptions } from 'fastify'
import type { Redis } from 'ioredis'
import type { BackgroundOptions, GptOptions } from '../../src/index.ts'
import { slowHost, type Stepper } from '../helpers/jobs.ts'
import { redisServer, until, type RedisServer } from '../helpers/redis.ts'

// Values planted in Redis that this plugin would never write, on a redis-server of this file's
// own: each is read as no job wherever it is read (docs/jobs.md, "Across instances"), said once
// at warn by its key, and no log line at any level holds the job's id (its capability).
const SHARE_KEY = 'hostile'
const SHARED: BackgroundOptions = { after: 60_000, keep: 60_000, heartbeat: 50, lease: 10_000 }

interface Line { level: number, key?: string, err?: { message: string }, raw: string }

const keyOf = (id: string): string => `${SHARE_KEY}:job:${createHash('sha256').update(id).digest('base64url')}`

/** What is planted instead of a job's own: some fields, and its events given its own two (its step and its end). */
interface Plant { fields?: Record<string, string>, events?: (step: string, end: string) => string[] }

// Each: what is planted, and the part of the job the warning says is wrong.
const HOSTILE: Record<string, Plant & { wrong: string }> = {
  'a start later than Date can write (9999999999999999)': { fields: { started: '9999999999999999' }, wrong: 'started' },
  'a start 1 ms past the last date (8640000000000001)': { fields: { started: '8640000000000001' }, wrong: 'started' },
  'an expiry later than Date can write (9999999999999999)': { fields: { expires: '9999999999999999' }, wrong: 'expires' },
  'an expiry 1 ms past the last date': { fields: { expires: '8640000000000001' }, wrong: 'expires' },
  'a negative start': { fields: { started: '-1' }, wrong: 'started' },
  'a fractional start': { fields: { started: '1700000000000.5' }, wrong: 'started' },
  'a start in exponent form': { fields: { started: '17e11' }, wrong: 'started' },
  'a start with a leading zero': { fields: { started: '01700000000000' }, wrong: 'started' },
  'a negative expiry': { fields: { expires: '-1' }, wrong: 'expires' },
  'an expiry before the start': { fields: { started: '1700000000000', expires: '1699999999999' }, wrong: 'expires' },
  'a version beyond a safe integer (2^53)': { fields: { version: '9007199254740992' }, wrong: 'version' },
  'a version with a leading zero': { fields: { version: '02' }, wrong: 'version' },
  'an event line with a CR between tokens': { events: (_, end) => ['{"seq":1,"status":"working","progress":{"step":\r1}}\nStep 1', end], wrong: 'event' },
  'an event line with an LF between tokens': { events: (_, end) => ['{"seq":1,"status":"working",\n"progress":{"step":1}}\nStep 1', end], wrong: 'event' },
  'an event line with a tab between tokens': { events: (_, end) => ['{"seq":1,\t"status":"working","progress":{"step":1}}\nStep 1', end], wrong: 'event' },
  'an event line with trailing spaces': { events: (_, end) => ['{"seq":1,"status":"working","progress":{"step":1}}  \nStep 1', end], wrong: 'event' },
  'an event line with its members reordered': { events: (_, end) => ['{"status":"working","seq":1,"progress":{"step":1}}\nStep 1', end], wrong: 'event' },
  'an event line with a member more': { events: (_, end) => ['{"seq":1,"status":"working","progress":{"step":1},"at":1}\nStep 1', end], wrong: 'event' },
  'an event line with a member less': { events: (_, end) => ['{"seq":1,"status":"working"}\nStep 1', end], wrong: 'event' },
  'an event line with a seq of 1.0': { events: (_, end) => ['{"seq":1.0,"status":"working","progress":{"step":1}}\nStep 1', end], wrong: 'event' },
  'an event line with 1e0 in its progress': { events: (_, end) => ['{"seq":1,"status":"working","progress":{"step":1e0}}\nStep 1', end], wrong: 'event' },
  'an event line with \\u0041 in its progress': { events: (_, end) => ['{"seq":1,"status":"working","progress":{"step":"\\u0041"}}\nStep 1', end], wrong: 'event' },
  'an end line whose result is not the job\'s': { events: (step) => [step, '{"seq":2,"status":"completed","result":{"steps":2}}\nCompleted.'], wrong: 'event' },
  'an end line of another status than the job\'s': { events: (step) => [step, '{"seq":2,"status":"failed"}\nFailed.'], wrong: 'event' },
  'an end before the last event': { events: (_, end) => ['{"seq":1,"status":"cancelled"}\nCancelled.', end], wrong: 'event' },
  'a seq missing': { fields: { version: '3' }, events: (step, end) => [step, end.replace('"seq":2', '"seq":3')], wrong: 'event' },
  'an event after the version': { fields: { version: '1' }, wrong: 'event' },
  'a progress of 1.0': { fields: { progressed: '{"step":1.0}' }, wrong: 'progressed' },
  'a progress of 1e2': { fields: { progressed: '{"step":1e2}' }, wrong: 'progressed' },
  'a progress with \\u0041': { fields: { progressed: '"\\u0041"' }, wrong: 'progressed' },
  'a progress with a space': { fields: { progressed: '{"step": 1}' }, wrong: 'progressed' },
  'a result of 1.0 (in its end line too)': { fields: { result: '{"steps":1.0}' }, events: (step, end) => [step, end.replace('{"steps":1}', '{"steps":1.0}')], wrong: 'result' },
  'a result with \\/ (in its end line too)': { fields: { result: '"\\/"' }, events: (step, end) => [step, end.replace('{"steps":1}', '"\\/"')], wrong: 'result' },
  'a result with a trailing newline': { fields: { result: '{"steps":1}\n' }, wrong: 'result' }
}

describe('a shared job holding a value this plugin would not write', () => {
  let redis: RedisServer
  let raw: Redis
  let app: FastifyInstance
  let stepper: Stepper
  const logged: Line[] = []
  const ids: string[] = []
  // A finished job as this plugin wrote it (one step, then its result): each case changes a field or an event of it.
  let fields: Record<string, string>
  let step: string
  let end: string

  before(async () => {
    redis = await redisServer()
    raw = redis.client()
    if (raw.status !== 'ready') await once(raw, 'ready')
    const stream = { write: (text: string) => { logged.push({ ...JSON.parse(text) as Omit<Line, 'raw'>, raw: text }) } }
    ;({ app, stepper } = await slowHost(SHARED, { share: { redis: redis.client(), key: SHARE_KEY } } as Partial<GptOptions>, { logger: { level: 'trace', stream } }))
    stepper.gates[1]!.open()
    const { href } = (await app.inject({ method: 'POST', url: '/slow', headers: { prefer: 'respond-async' }, payload: { steps: 1 } })).json<{ href: string }>()
    const id = href.slice(href.lastIndexOf('/') + 1)
    ids.push(id)
    const key = keyOf(id)
    await until(async () => await raw.hget(key, 'status') === 'completed', 'the job written')
    fields = await raw.hgetall(key)
    ;[step, end] = await raw.lrange(`${key}:events`, 0, -1) as [string, string]
  })
  after(async () => {
    await app.close()
    await redis.stop()
    // Every level, every request: the id is a capability, and only its digest may be logged.
    for (const id of ids) assert.ok(!logged.some((line) => line.raw.includes(id)), 'a job id in the log')
  })

  async function plant (instead: Plant = {}): Promise<{ id: string, key: string }> {
    const id = randomBytes(16).toString('base64url')
    ids.push(id)
    const key = keyOf(id)
    await raw.hset(key, { ...fields, ...instead.fields })
    await raw.rpush(`${key}:events`, ...instead.events?.(step, end) ?? [step, end])
    return { id, key }
  }

  // The job's address, its stream in either framing, and its control acts (forget last: it drops the job).
  const reads = (href: string): Record<string, InjectOptions> => ({
    GET: { url: href },
    NDJSON: { url: `${href}/events` },
    SSE: { url: `${href}/events`, headers: { accept: 'text/event-stream' } },
    'POST cancel': { method: 'POST', url: href, payload: '{"do":"cancel"}' },
    'POST forget': { method: 'POST', url: href, payload: '{"do":"forget"}' }
  })
  const answers = async (href: string): Promise<Array<{ name: string, statusCode: number, body: string }>> => {
    const answered = []
    for (const [name, request] of Object.entries(reads(href))) answered.push({ name, ...await app.inject(request) })
    return answered
  }

  it('as planted, it is read: every read answers, and nothing is said at warn', async () => {
    const from = logged.length
    const { id } = await plant()
    const href = `/slow/jobs/${id}`
    const [get, ndjson, sse, ...controls] = await answers(href)
    assert.deepEqual([get, ndjson, sse, ...controls].map((answer) => answer!.statusCode), [200, 200, 200, 204, 200])
    assert.deepEqual((JSON.parse(get!.body) as { result: unknown }).result, { steps: 1 })
    assert.equal(ndjson!.body, `${step.split('\n')[0]}\n${end.split('\n')[0]}\n`)
    assert.match(sse!.body, /^retry: \d+\n\nid: 1\ndata: \{"seq":1,"status":"working","progress":\{"step":1,"of":1,"message":"Step 1 of 1"\},"message":"Step 1 of 1"\}\n\nid: 2\n/)
    assert.equal(logged.slice(from).filter((line) => line.level >= 40).length, 0)
  })

  it('times at the bounds are read: a start at the epoch, an expiry at the last date Date can write', async () => {
    const { id } = await plant({ fields: { started: '0', expires: '8640000000000000' } })
    const arrival = await app.inject(`/slow/jobs/${id}`)
    assert.equal(arrival.statusCode, 200)
    const { p, expires } = arrival.json<{ p: string, expires: string }>()
    assert.equal(expires, '+275760-09-13T00:00:00.000Z')
    assert.match(p, /at 1970-01-01T00:00:00\.000Z /)
  })

  it('a message is any text: the arrival\'s m and the SSE data carry it as a JSON string, each event on its one data line', async () => {
    const message = 'a\r\nb\rc\nd\u2028e"}\n\ndata: {}\n</script>\u0000'
    const { id } = await plant({ events: (step, end) => [`${step.split('\n')[0]}\n${message}`, end] })
    const href = `/slow/jobs/${id}`
    const [get, , sse] = await answers(href)
    assert.equal((JSON.parse(get!.body) as { m: Array<{ content: string }> }).m[0]!.content, message)
    const [opening, first, second, rest] = sse!.body.split('\n\n')
    assert.match(opening!, /^retry: \d+$/)
    assert.deepEqual([first!.split('\n').length, second!.split('\n').length, rest], [2, 2, ''])
    assert.equal((JSON.parse(first!.split('\n')[1]!.slice('data: '.length)) as { message: string }).message, message)
  })

  for (const [what, { wrong, ...planted }] of Object.entries(HOSTILE)) {
    it(`${what}: 404 for its address, control acts and streams; said once at warn, by key`, async () => {
      const from = logged.length
      const { id, key } = await plant(planted)
      for (const { name, statusCode } of await answers(`/slow/jobs/${id}`)) assert.equal(statusCode, 404, name)
      const warned = logged.slice(from).filter((line) => line.level >= 40)
      assert.equal(warned.length, 1, 'one warning')
      assert.equal(warned[0]!.key, key)
      assert.equal(warned[0]!.err?.message, wrong)
      assert.ok(!logged.some((line) => line.raw.includes(id)), 'the id in the log')
    })
  }

  it('a value turned hostile while a stream follows the job: the stream ends there, said once at warn', async () => {
    const from = logged.length
    const url = await app.listen({ port: 0, host: '127.0.0.1' })
    const started = await app.inject({ method: 'POST', url: '/slow', headers: { prefer: 'respond-async' }, payload: { steps: 3 } })
    const { href, events } = started.json<{ href: string, events: string }>()
    const id = href.slice(href.lastIndexOf('/') + 1)
    ids.push(id)
    const response = await fetch(url + events, { signal: AbortSignal.timeout(10_000) })
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader()
    let text = '' // its first step's gate is open since before(): that step comes at once
    while (!text.includes('}\n')) text += (await reader.read()).value ?? ''
    assert.match(text, /^\n*\{"seq":1,"status":"working","progress":\{"step":1,/) // heartbeats (empty lines) may come first
    const key = keyOf(id)
    await raw.hset(key, 'started', '9999999999999999')
    stepper.gates[2]!.open() // its event is written and announced: the stream reads the job again
    for (let chunk = await reader.read(); chunk.done !== true; chunk = await reader.read()) text += chunk.value
    assert.doesNotMatch(text, /"seq":2/)
    await until(() => logged.slice(from).some((line) => line.level >= 40), 'the warning')
    const warned = logged.slice(from).filter((line) => line.level >= 40)
    assert.deepEqual(warned.map((line) => [line.key, line.err?.message]), [[key, 'started']])
    assert.equal((await app.inject(href)).statusCode, 404)
    stepper.gates[3]!.open()
  })
})
