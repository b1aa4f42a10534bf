// What a progress stream holds while its client does not read (src/jobs/source.ts): over a real
// socket, a stream reads the job's retained window when it is pulled, so a reader that stops
// costs at most the window, resumes at its oldest event, and lets go of a job forgotten meanwhile.
import assert from 'node:assert/strict'
import { get, type IncomingMessage } from 'node:http'
import { describe, it } from 'node:test'
import fc from 'fast-check'
import Fastify, { type FastifyInstance } from 'fastify'
import gpt from '../../src/index.ts'
import { RETAINED, type JobEvent } from '../../src/jobs/job.ts'
import { DEFAULT_BACKGROUND } from '../../src/jobs/settings.ts'
import { localSource } from '../../src/jobs/source.ts'
import { JobStore } from '../../src/jobs/store.ts'
import { eventually, gate, type Gate } from '../helpers/jobs.ts'
import { settledHeap } from './heap.ts'

const PAD = 'x'.repeat(1000)

/** A host whose act yields `events` progress values of about 1 KB each, waits on `done`, and returns what `result` makes. */
async function host (events: number, done: Gate, result: () => unknown): Promise<{ app: FastifyInstance, url: string }> {
  const app = Fastify()
  await app.register(gpt, {
    form: { type: 'object' },
    rateLimit: false,
    background: { after: 10, keep: 60_000 },
    async * act () {
      for (let i = 1; i <= events; i++) {
        yield { i, pad: PAD }
        if (i % 500 === 0) await new Promise((resolve) => setImmediate(resolve))
      }
      await done.promise
      return result()
    }
  })
  return { app, url: await app.listen({ port: 0, host: '127.0.0.1' }) }
}

async function startJob (app: FastifyInstance): Promise<string> {
  const response = await app.inject({ method: 'POST', url: '/', payload: '{}', headers: { 'content-type': 'application/json', prefer: 'respond-async' } })
  assert.equal(response.statusCode, 200)
  return response.json().href
}

/** Opens the NDJSON stream and pauses it at once: its client reads nothing until `resume`. */
async function pausedStream (url: string): Promise<{ response: IncomingMessage, lines: () => Promise<Array<{ seq: number, status: string }>> }> {
  const response = await new Promise<IncomingMessage>((resolve, reject) => { get(url, resolve).on('error', reject) })
  response.pause()
  assert.equal(response.statusCode, 200)
  const lines = async (): Promise<Array<{ seq: number, status: string }>> => {
    let text = ''
    response.setEncoding('utf8')
    response.on('data', (chunk: string) => { text += chunk })
    await new Promise((resolve, reject) => { response.on('end', resolve).on('error', reject); response.resume() })
    return text.split('\n').filter(Boolean).map((line) => JSON.parse(line))
  }
  return { response, lines }
}

/** Runs `test` on a host, then closes it, the test's streams cut first (a paused one would hold the close). */
async function withHost (events: number, result: () => unknown, test: (app: FastifyInstance, url: string, done: Gate, opened: IncomingMessage[]) => Promise<void>): Promise<void> {
  const done = gate()
  const { app, url } = await host(events, done, result)
  const opened: IncomingMessage[] = []
  try {
    await test(app, url, done, opened)
  } finally {
    for (const response of opened) response.destroy()
    done.open()
    await app.close()
  }
}

const statusOf = async (app: FastifyInstance, href: string): Promise<string> => (await app.inject(href)).json().status

describe('a progress stream whose client stops reading', () => {
  it('holds at most the window, however many events the job makes, and resumes at its oldest with their seqs', async () => {
    const events = 20_000
    await withHost(events, () => ({ events }), async (app, url, done, opened) => {
      const href = await startJob(app)
      const stream = await pausedStream(`${url}${href}/events`)
      opened.push(stream.response)
      const before = await settledHeap()
      await eventually(async () => (await app.inject(href)).json().progress?.i === events, 'every event made', 20_000)
      done.open()
      await eventually(async () => await statusOf(app, href) === 'completed', 'the job completes')
      const held = (await settledHeap()) - before
      // The window is 1000 events of about 2 KB (line and message); 20,000 queued would be 40 MB.
      assert.ok(held < 12 * 1048576, `a paused stream holds ${(held / 1048576).toFixed(1)} MB`)

      const seqs = (await stream.lines()).map((line) => line.seq)
      assert.equal(seqs.at(-1), events + 1, 'the stream ends at the final event')
      for (let i = 1; i < seqs.length; i++) assert.ok(seqs[i]! > seqs[i - 1]!, 'each seq once, in order')
      // What the sockets had taken before the client stopped, then the window: never all of it.
      const jump = seqs.findIndex((seq, i) => i > 0 && seq !== seqs[i - 1]! + 1)
      assert.ok(jump > 0, 'the reader fell behind the window and resumed at its oldest')
      assert.deepEqual(seqs.slice(jump), Array.from({ length: RETAINED }, (_, i) => events + 2 - RETAINED + i))
    })
  })

  it('lets go of a job forgotten meanwhile, and ends when its client reads again', async () => {
    const size = 8 * 1048576
    await withHost(5000, () => 'r'.repeat(size), async (app, url, done, opened) => {
      const before = await settledHeap()
      const href = await startJob(app)
      const stream = await pausedStream(`${url}${href}/events`)
      opened.push(stream.response)
      await eventually(async () => (await app.inject(href)).json().progress?.i === 5000, 'every event made', 20_000)
      done.open()
      await eventually(async () => await statusOf(app, href) === 'completed', 'the job completes')
      const forgot = await app.inject({ method: 'POST', url: href, payload: '{"do":"forget"}' })
      assert.equal(forgot.body, '{"status":"forgotten"}')
      assert.equal((await app.inject(href)).statusCode, 404)
      // Its window and its 8 MB result are nobody's now: the stream, still paused, holds neither.
      const held = await settledHeap() - before
      assert.ok(held < 4 * 1048576, `a paused stream of a forgotten job holds ${(held / 1048576).toFixed(1)} MB`)
      const lines = await stream.lines()
      assert.ok(lines.every((line) => line.status === 'working'), 'no final event: the job was gone before the reader came back')
      assert.ok(lines.length < 5000, 'what the reader had not taken went with the job')
    })
  })
})

describe('a stream pulled at any pace (fast-check: event counts, sizes and pauses)', () => {
  it('each pull reads the next event kept after its cursor: none twice, none out of order, none older than the window, all of them when it keeps up', async () => {
    // Bursts of events made while the reader does not pull, each followed by some pulls.
    const bursts = fc.array(fc.record({ events: fc.nat({ max: 2500 }), size: fc.nat({ max: 2000 }), pulls: fc.nat({ max: 1500 }) }), { minLength: 1, maxLength: 5 })
    await fc.assert(fc.asyncProperty(bursts, fc.nat({ max: 30 }), async (script, cursor) => {
      const store = new JobStore(DEFAULT_BACKGROUND)
      const job = store.admit(store.reserve('a')!)
      const left = new AbortController()
      const stream = localSource(store).events(job.id, cursor, 60_000, left.signal)[Symbol.asyncIterator]()
      let seen = cursor
      const pull = async (): Promise<JobEvent> => {
        const { value } = await stream.next() as IteratorResult<JobEvent>
        // The oldest kept when the reader fell behind, else the very next one.
        assert.equal(value.seq, Math.max(seen + 1, job.version - RETAINED + 1))
        seen = value.seq
        return value
      }
      for (const { events, size, pulls } of script) {
        for (let i = 0; i < events; i++) job.progress({ i, pad: 'x'.repeat(size) })
        for (let i = 0; i < Math.min(pulls, job.version - seen); i++) await pull()
      }
      job.complete({ done: true }, Date.now())
      if (seen < job.version) while ((await pull()).status === 'working');
      assert.equal(seen, Math.max(cursor, job.version), 'it ends at the final event')
      assert.equal((await stream.next()).done, true)
      store.close()
    }), { numRuns: 40 })
  })
})
