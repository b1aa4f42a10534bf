import assert from 'node:assert/strict'
import { createHash, randomBytes } from 'node:crypto'
import { once } from 'node:events'
import { after, before, describe, it } from 'node:test'
import fc from 'fast-check'
import { Redis } from 'ioredis'
import { startFixtureHost } from '../helpers/child-host.ts'
import { redisServer, until, type RedisServer } from '../helpers/redis.ts'

// Host processes serving one address with `background` and `share` through a real redis-server,
// as instances behind a load balancer would: a job runs on the one it was posted to, and any
// answers for it.
const LEASE = 300
const KEY = 'fastify-gpt:edition:/slow'

type Host = Awaited<ReturnType<typeof startFixtureHost>>

async function startHost (redisPort: number): Promise<Host> {
  return await startFixtureHost('jobs-host', [String(redisPort), String(LEASE)])
}

interface Handle { href: string, events: string }
interface Arrival { status: number, etag: string | null, body: string, json: { status?: string, progress?: { step: number }, result?: unknown, m?: { content: string }[] } }

const timeout = (): AbortSignal => AbortSignal.timeout(10_000)

async function start (host: Host, steps: number): Promise<Handle> {
  const response = await fetch(`${host.url}/slow`, { method: 'POST', body: JSON.stringify({ steps }), headers: { prefer: 'respond-async' }, signal: timeout() })
  assert.equal(response.status, 200)
  return await response.json() as Handle
}

async function arrival (host: Host, href: string): Promise<Arrival> {
  const response = await fetch(host.url + href, { signal: timeout() })
  const body = await response.text()
  return { status: response.status, etag: response.headers.get('etag'), body, json: response.status === 200 ? JSON.parse(body) : {} }
}

const step = async (host: Host): Promise<void> => { await (await fetch(`${host.url}/_step`, { method: 'POST', signal: timeout() })).text() }

/** The lines of an NDJSON stream as they come, heartbeats (empty lines) left out. */
async function * lines (response: Response): AsyncGenerator<Record<string, unknown>> {
  const decoder = new TextDecoder()
  let held = ''
  for await (const chunk of response.body!) {
    held += decoder.decode(chunk, { stream: true })
    let end: number
    while ((end = held.indexOf('\n')) !== -1) {
      const line = held.slice(0, end)
      held = held.slice(end + 1)
      if (line !== '') yield JSON.parse(line) as Record<string, unknown>
    }
  }
}

async function next (stream: AsyncGenerator<Record<string, unknown>>): Promise<Record<string, unknown> | undefined> {
  const { value, done } = await stream.next()
  return done === true ? undefined : value
}

const keyOf = (id: string): string => `${KEY}:job:${createHash('sha256').update(id).digest('base64url')}`

describe('jobs shared through Redis: host processes on one redis-server', () => {
  let redis: RedisServer
  let raw: Redis
  let a: Host
  let b: Host
  let owner: Host // a third, killed by a test

  before(async () => {
    redis = await redisServer()
    ;[a, b, owner] = await Promise.all([startHost(redis.port), startHost(redis.port), startHost(redis.port)])
    raw = new Redis({ port: redis.port, host: '127.0.0.1' })
  })
  after(async () => {
    raw.disconnect()
    await Promise.all([a, b, owner].map((host) => host.stop()))
    await redis.stop()
  })

  it('a job started on A is read, streamed (and resumed) and cancelled on B; A\'s act is told to stop', async () => {
    const { href, events } = await start(a, 5)
    // Readable on B as soon as A has answered with its handle.
    const first = await arrival(b, href)
    assert.equal(first.status, 200)
    assert.equal(first.json.status, 'working')
    assert.equal(first.json.progress, undefined)
    assert.equal((await arrival(a, href)).body, first.body)
    const page = await fetch(b.url + href, { headers: { accept: 'text/html' }, signal: timeout() })
    assert.equal(page.status, 200)
    assert.match(String(page.headers.get('content-type')), /^text\/html/)
    assert.match(await page.text(), /is still working/, 'the page of the job, from Redis, on B')

    const live = await fetch(b.url + events, { signal: timeout() })
    assert.equal(live.status, 200)
    assert.equal(live.headers.get('content-type'), 'application/x-ndjson')
    const stream = lines(live)
    await step(a)
    assert.deepEqual(await next(stream), { seq: 1, status: 'working', progress: { step: 1, of: 5, message: 'Step 1 of 5' } })
    await step(a)
    assert.deepEqual(await next(stream), { seq: 2, status: 'working', progress: { step: 2, of: 5, message: 'Step 2 of 5' } })
    await stream.return(undefined) // the client leaves: the job goes on

    // Resumed from a cursor, on B, through real HTTP.
    const resumed = lines(await fetch(`${b.url}${events}?after=1`, { signal: timeout() }))
    assert.equal((await next(resumed))?.['seq'], 2)
    const onA = await arrival(a, href)
    const onB = await arrival(b, href)
    assert.equal(onB.json.progress?.step, 2)
    assert.deepEqual(onB.json.m?.map((m) => m.content), ['Step 1 of 5', 'Step 2 of 5'])
    assert.equal(onA.body, onB.body, 'both instances serve the same bytes')
    assert.equal(onA.etag, onB.etag, 'and the same tag')
    const unchanged = await fetch(b.url + href, { headers: { 'if-none-match': onA.etag! }, signal: timeout() })
    assert.equal(unchanged.status, 304, 'a tag from A is current on B')

    // Cancelled on B: A's act sees its signal aborted; every reader sees cancelled.
    const cancel = await fetch(b.url + href, { method: 'POST', body: '{"do":"cancel"}', signal: timeout() })
    assert.equal(cancel.status, 200)
    assert.deepEqual(await cancel.json(), { status: 'cancelled' })
    assert.deepEqual(await next(resumed), { seq: 3, status: 'cancelled' })
    assert.equal(await next(resumed), undefined, 'the stream ends after the final event')
    await until(async () => {
      const signals = await (await fetch(`${a.url}/_signals`, { signal: timeout() })).json() as Array<{ aborted: boolean, reason: string }>
      return signals[0]?.aborted === true && signals[0].reason === 'the job was cancelled'
    }, 'the act on A is told to stop')
    await step(a) // the act goes on to its next step: nothing of it is recorded
    for (const host of [a, b]) {
      const seen = await arrival(host, href)
      assert.equal(seen.json.status, 'cancelled')
      assert.equal(seen.json.progress?.step, 2)
    }
    // A cancelled job is not cancelled again: its form admits only forget now.
    const again = await fetch(a.url + href, { method: 'POST', body: '{"do":"cancel"}', signal: timeout() })
    assert.equal(again.status, 204)
    const forget = await fetch(a.url + href, { method: 'POST', body: '{"do":"forget"}', signal: timeout() })
    assert.deepEqual(await forget.json(), { status: 'forgotten' })
    assert.equal((await arrival(b, href)).status, 404)
  })

  it('a job that completes on A is read whole on B, and a stream from 0 on B replays it', async () => {
    const { href, events } = await start(a, 2)
    await step(a)
    await step(a)
    await until(async () => (await arrival(b, href)).json.status === 'completed', 'B reads the result')
    assert.deepEqual((await arrival(b, href)).json.result, { steps: 2 })
    const replay = []
    for await (const line of lines(await fetch(b.url + events, { signal: timeout() }))) replay.push(line)
    assert.deepEqual(replay.map((line) => line['status']), ['working', 'working', 'completed'])
    assert.deepEqual(replay.at(-1), { seq: 3, status: 'completed', result: { steps: 2 } })
  })

  it(`the process running a job dies: any other reads it failed within the lease (${LEASE} ms), and its stream ends`, async () => {
    const { href, events } = await start(owner, 3)
    await step(owner)
    await until(async () => (await arrival(b, href)).json.progress?.step === 1, 'B sees the first step')
    const stream = lines(await fetch(`${b.url}${events}?after=1`, { signal: timeout() }))
    owner.child.kill('SIGKILL')
    await once(owner.child, 'exit')
    // The bound is generous (the point is that it ends): a lease, then a look.
    assert.deepEqual(await next(stream), { seq: 2, status: 'failed' })
    assert.equal(await next(stream), undefined)
    const seen = await arrival(b, href)
    assert.equal(seen.json.status, 'failed')
    assert.equal(seen.json.progress?.step, 1)
    assert.equal((await arrival(a, href)).body, seen.body)
  })

  describe('a job in Redis that this plugin did not write', () => {
    // A well-formed job, as the plugin writes one: the tests change one thing of it at a time.
    const fields = (): Record<string, string> => ({
      status: 'completed',
      started: '1700000000000',
      version: '2',
      owner: 'gone',
      progressed: '{"step":1}',
      result: '{"steps":1}',
      expires: String(Date.now() + 60_000)
    })
    const entries = ['{"seq":1,"status":"working","progress":{"step":1}}\nStep 1', '{"seq":2,"status":"completed","result":{"steps":1}}\nCompleted.']
    async function plant (change?: (key: string) => Promise<unknown>): Promise<string> {
      const id = randomBytes(16).toString('base64url')
      const key = keyOf(id)
      await raw.hset(key, fields())
      await raw.rpush(`${key}:events`, ...entries)
      await change?.(key)
      return `/slow/jobs/${id}`
    }

    it('as written, it is read (the plant is right)', async () => {
      const href = await plant()
      const seen = await arrival(b, href)
      assert.equal(seen.status, 200)
      assert.deepEqual(seen.json.result, { steps: 1 })
      assert.deepEqual(seen.json.m?.map((m) => m.content), ['Step 1', 'Completed.'])
    })

    const corruptions: Record<string, (key: string) => Promise<unknown>> = {
      'the job a string': async (key) => { await raw.del(key); await raw.set(key, 'x') },
      'the events a hash': async (key) => { await raw.del(`${key}:events`); await raw.hset(`${key}:events`, 'a', 'b') },
      'a result that is not JSON': async (key) => raw.hset(key, 'result', '{"steps":'),
      'an unknown status': async (key) => raw.hset(key, 'status', 'done'),
      'a version that is not a number': async (key) => raw.hset(key, 'version', 'two'),
      'a huge field (2 MiB)': async (key) => raw.hset(key, 'progressed', `"${'x'.repeat(2 * 1024 * 1024)}"`),
      'an event that is not JSON': async (key) => raw.rpush(`${key}:events`, 'garbage'),
      'events out of order': async (key) => raw.rpush(`${key}:events`, '{"seq":1,"status":"working"}\n'),
      'a field too many': async (key) => raw.hset(key, 'extra', '1')
    }
    for (const [what, change] of Object.entries(corruptions)) {
      it(`${what}: its address, control acts and stream answer 404, and the instance goes on`, async () => {
        const href = await plant(change)
        assert.equal((await arrival(b, href)).status, 404)
        assert.equal((await fetch(`${b.url}${href}/events`, { signal: timeout() })).status, 404)
        assert.equal((await fetch(b.url + href, { method: 'POST', body: '{"do":"forget"}', signal: timeout() })).status, 404)
        assert.equal((await arrival(b, await plant())).status, 200)
      })
    }

    it('property: any value in any field reads as the job or as no job, never a crash or a stall', async () => {
      const names = [...Object.keys(fields()), 'event']
      await fc.assert(fc.asyncProperty(fc.constantFrom(...names), fc.oneof(fc.string(), fc.json(), fc.integer().map(String)), async (name, value) => {
        const href = await plant(async (key) => name === 'event' ? raw.rpush(`${key}:events`, value) : raw.hset(key, name, value))
        const seen = await arrival(b, href)
        assert.ok(seen.status === 200 || seen.status === 404, `answered ${seen.status}`)
        if (seen.status === 200) JSON.parse(seen.body) // an arrival read is whole JSON
        const stream = await fetch(`${b.url}${href}/events`, { signal: timeout() })
        assert.equal(stream.status, seen.status)
        await stream.text() // a finished job's stream ends
      }), { numRuns: 60 })
    })
  })
})
