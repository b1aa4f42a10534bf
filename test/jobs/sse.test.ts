// The progress stream framed as server-sent events, read by other people's parsers: the
// eventsource-parser package for the bytes, the eventsource package (a WHATWG EventSource) for a
// client that reconnects by itself.
import assert from 'node:assert/strict'
import { request as httpRequest, type IncomingMessage } from 'node:http'
import { Writable } from 'node:stream'
import { describe, it } from 'node:test'
import Fastify, { type FastifyInstance, type LightMyRequestResponse } from 'fastify'
import fc from 'fast-check'
import { EventSource } from 'eventsource'
import { createParser, type EventSourceMessage } from 'eventsource-parser'
import gpt, { type BackgroundOptions, type GptOptions } from '../../src/index.ts'
import { eventually, slowHost } from '../helpers/jobs.ts'

const SSE = { accept: 'text/event-stream' }
const ASYNC = { 'content-type': 'application/json', prefer: 'respond-async' }
const HREF = /^\/slow\/jobs\/([A-Za-z0-9_-]{22})$/

/** What a conforming parser reads from SSE bytes: its events, retry and comments. */
function readSse (text: string): { events: EventSourceMessage[], retries: number[], comments: string[] } {
  const events: EventSourceMessage[] = []
  const retries: number[] = []
  const comments: string[] = []
  const parser = createParser({
    onEvent: (event) => { events.push(event) },
    onRetry: (ms) => { retries.push(ms) },
    onComment: (comment) => { comments.push(comment) },
    onError: (error) => { throw error }
  })
  parser.feed(text)
  return { events, retries, comments }
}

const ndjson = (response: LightMyRequestResponse): unknown[] => response.body.split('\n').filter(Boolean).map((line) => JSON.parse(line))
const ids = (response: LightMyRequestResponse): string[] => readSse(response.body).events.map((event) => event.id ?? '')

async function startJob (app: FastifyInstance, steps: number): Promise<string> {
  const response = await app.inject({ method: 'POST', url: '/slow', payload: JSON.stringify({ steps }), headers: ASYNC })
  assert.equal(response.statusCode, 200)
  return response.json().href
}

async function finishedJob (steps: number, background: BackgroundOptions = {}): Promise<{ app: FastifyInstance, href: string }> {
  const { app, stepper } = await slowHost(background)
  const href = await startJob(app, steps)
  for (const g of stepper.gates) g.open()
  await eventually(async () => (await app.inject(href)).json().status === 'completed', 'the job completes')
  return { app, href }
}

describe('the progress stream as server-sent events (not an address: draft §3.3)', () => {
  it('the same events as the NDJSON stream: each id its seq, its data the NDJSON object and the message m shows; retry a poll', async () => {
    const { app, href } = await finishedJob(3, { poll: 1500 })
    const response = await app.inject({ url: `${href}/events`, headers: SSE })
    assert.equal(response.statusCode, 200)
    assert.equal(response.headers['content-type'], 'text/event-stream; charset=utf-8')
    assert.equal(response.headers['cache-control'], 'private, no-store')
    assert.equal(response.headers.vary, 'Accept')
    assert.ok(response.body.startsWith('retry: 1500\n\nid: 1\ndata: {"seq":1,"status":"working","progress":{"step":1,"of":3,"message":"Step 1 of 3"},"message":"Step 1 of 3"}\n\n'))
    const { events, retries, comments } = readSse(response.body)
    assert.deepEqual(retries, [1500])
    assert.deepEqual(comments, [])
    const lines = ndjson(await app.inject(`${href}/events`))
    const arrival = (await app.inject(href)).json()
    assert.equal(events.length, 4)
    for (const [i, event] of events.entries()) {
      assert.equal(event.event, undefined, 'every event a plain "message"')
      const { message, ...rest } = JSON.parse(event.data) as { message: string, seq: number }
      assert.deepEqual(rest, lines[i])
      assert.equal(event.id, String(rest.seq))
      assert.equal(message, arrival.m[i].content)
    }
    assert.equal(JSON.parse(events[3]!.data).status, 'completed')
    await app.close()
  })

  it('is chosen by Accept: SSE only to a client that asks for text/event-stream over NDJSON', async () => {
    const { app, href } = await finishedJob(1)
    const cases: Record<string, string> = {
      '': 'application/x-ndjson',
      '*/*': 'application/x-ndjson',
      'application/x-ndjson': 'application/x-ndjson',
      'text/html': 'application/x-ndjson',
      'application/x-ndjson, text/event-stream;q=0.5': 'application/x-ndjson',
      'text/event-stream': 'text/event-stream; charset=utf-8',
      'text/event-stream, application/x-ndjson;q=0.5': 'text/event-stream; charset=utf-8',
      'TEXT/EVENT-STREAM': 'text/event-stream; charset=utf-8'
    }
    for (const [accept, type] of Object.entries(cases)) {
      const response = await app.inject({ url: `${href}/events`, headers: accept === '' ? {} : { accept } })
      assert.equal(response.headers['content-type'], type, accept)
      assert.equal(response.headers.vary, 'Accept', accept)
    }
    await app.close()
  })

  it('resumes after Last-Event-ID or ?after=, the later of the two; once nothing more can come: 204', async () => {
    const { app, href } = await finishedJob(3)
    const from = async (query: string, lastEventId?: string): Promise<LightMyRequestResponse> =>
      app.inject({ url: `${href}/events${query}`, headers: { ...SSE, ...(lastEventId === undefined ? {} : { 'last-event-id': lastEventId }) } })
    assert.deepEqual(ids(await from('', '2')), ['3', '4'])
    assert.deepEqual(ids(await from('?after=1')), ['2', '3', '4'])
    assert.deepEqual(ids(await from('?after=1', '3')), ['4'], 'an EventSource opened at ?after= reconnecting')
    assert.deepEqual(ids(await from('?after=3', '1')), ['4'])
    assert.deepEqual(ids(await from('?after=x', 'y')), ['1', '2', '3', '4'], 'not a cursor: from the start')
    for (const [query, id] of [['', '4'], ['?after=4', undefined], ['?after=1', '9']] as const) {
      const done = await from(query, id)
      assert.deepEqual([done.statusCode, done.body], [204, ''], `${query} ${id}`)
      assert.equal(done.headers['cache-control'], 'private, no-store')
    }
    // The NDJSON stream has no reconnecting client to stop: an empty 200, as it always answered.
    const empty = await app.inject({ url: `${href}/events?after=4` })
    assert.deepEqual([empty.statusCode, empty.body], [200, ''])
    await app.close()
  })

  it('an unknown, forgotten or expired job: 404, as the NDJSON stream answers', async () => {
    const { app, href } = await finishedJob(1, { keep: 60_000 })
    const id = HREF.exec(href)![1]!
    const unknown = `/slow/jobs/${id.startsWith('A') ? 'B' : 'A'}${id.slice(1)}/events`
    assert.equal((await app.inject({ url: unknown, headers: SSE })).statusCode, 404)
    assert.equal((await app.inject({ url: `${href}/events`, headers: SSE })).statusCode, 200)
    assert.equal((await app.inject({ method: 'POST', url: href, payload: '{"do":"forget"}' })).statusCode, 200)
    for (const headers of [SSE, {}]) assert.equal((await app.inject({ url: `${href}/events`, headers })).statusCode, 404)
    await app.close()

    const expiring = await slowHost({ keep: 1 })
    const gone = await startJob(expiring.app, 1)
    expiring.stepper.gates[1]!.open()
    await eventually(async () => (await expiring.app.inject({ url: `${gone}/events`, headers: SSE })).statusCode === 404, 'the job ends and expires')
    await expiring.app.close()
  })

  it('live over a socket: comment lines while quiet, each event as it comes, closed after the final one; leaving never cancels', async () => {
    const { app, stepper } = await slowHost({ heartbeat: 5 })
    const url = await app.listen({ port: 0, host: '127.0.0.1' })
    const href = await startJob(app, 3)
    const open = (): { text: () => string, ended: () => boolean, leave: () => void } => {
      let received = ''
      let ended = false
      const request = httpRequest(`${url}${href}/events`, { headers: SSE })
      request.on('response', (response) => {
        response.setEncoding('utf8').on('data', (chunk: string) => { received += chunk }).on('end', () => { ended = true })
      })
      request.on('error', () => {})
      request.end()
      return { text: () => received, ended: () => ended, leave: () => { request.destroy() } }
    }
    const staying = open()
    const leaving = open()
    await eventually(() => readSse(staying.text()).comments.length >= 2, 'heartbeats')
    assert.deepEqual(readSse(staying.text()).events, [], 'nothing but heartbeats yet')
    assert.match(staying.text(), /^retry: 2000\n\n(:\n)+$/)
    stepper.gates[1]!.open()
    await eventually(() => readSse(staying.text()).events.length === 1 && readSse(leaving.text()).events.length === 1, 'the first step')
    leaving.leave()
    stepper.gates[2]!.open()
    stepper.gates[3]!.open()
    await eventually(() => staying.ended(), 'the stream ends after the final event')
    assert.deepEqual(readSse(staying.text()).events.map((event) => JSON.parse(event.data).status), ['working', 'working', 'working', 'completed'])
    assert.equal(stepper.signals[0]!.aborted, false)
    assert.deepEqual(stepper.ended, ['returned'])
    await app.close()
  })

  it('counts under the job routes\' own rate limit, and never logs the id at info or below', async () => {
    const lines: string[] = []
    const stream = new Writable({ write (chunk, _encoding, done) { lines.push(String(chunk)); done() } })
    const { app, stepper } = await slowHost({ rateMax: 3 }, { rateLimit: { max: 100, timeWindow: 60_000 } }, { logger: { level: 'trace', stream } })
    const href = await startJob(app, 1)
    stepper.gates[1]!.open()
    const statuses = []
    for (let i = 0; i < 4; i++) statuses.push((await app.inject({ url: `${href}/events`, headers: i % 2 === 1 ? SSE : {} })).statusCode)
    assert.deepEqual(statuses, [200, 200, 200, 429])
    const id = HREF.exec(href)![1]!
    assert.ok(lines.length > 0)
    assert.deepEqual(lines.filter((line) => line.includes(id)), [])
    await app.close()
  })
})

describe('a real EventSource (the eventsource package) on the stream', () => {
  it('follows a job across a cut: resumes from its Last-Event-ID, gets every event once, and stops at the 204 after the end', async () => {
    const { app, stepper } = await slowHost({ poll: 20 })
    const requests: Array<string | undefined> = []
    const url = await app.listen({ port: 0, host: '127.0.0.1' })
    app.server.on('request', (request: IncomingMessage) => {
      if (request.url?.endsWith('/events') === true) requests.push(request.headers['last-event-id'] as string | undefined)
    })
    const href = await startJob(app, 3)
    const source = new EventSource(`${url}${href}/events`)
    const seen: string[] = []
    const errors: Array<number | undefined> = []
    source.addEventListener('message', (event) => { seen.push(`${event.lastEventId} ${JSON.parse(event.data).status}`) })
    source.addEventListener('error', (event) => { errors.push(event.code) })
    stepper.gates[1]!.open()
    await eventually(() => seen.length === 1, 'the first step')
    app.server.closeAllConnections() // the cut
    await eventually(() => requests.length === 2, 'the EventSource reconnects by itself')
    stepper.gates[2]!.open()
    stepper.gates[3]!.open()
    await eventually(() => source.readyState === EventSource.CLOSED, 'the EventSource stops')
    assert.deepEqual(seen, ['1 working', '2 working', '3 working', '4 completed'])
    assert.deepEqual(requests, [undefined, '1', '4'])
    assert.equal(errors.at(-1), 204)
    assert.equal(stepper.signals[0]!.aborted, false, 'the cut never cancelled the job')
    await app.close()
  })
})

describe('any progress survives the SSE framing', () => {
  it('the data is the NDJSON object plus its message, whatever the values hold (line breaks, U+2028, forged fields, lone surrogates)', async () => {
    let values: unknown[] = []
    const app = Fastify()
    await app.register(gpt, {
      prefix: '/slow',
      form: { type: 'object' },
      rateLimit: false,
      background: { after: 60_000, rateMax: 1_000_000 },
      async * act () {
        for (const value of values) yield value
        return values.at(-1) ?? null
      }
    } as unknown as GptOptions)
    const hostile = fc.constantFrom('\r\n\r\ndata: {"seq":99}\n\nid: 99\n\n', '\r', ':\n', 'a\u2028b\u2029c', '\ud800', 'retry: 1\n', '\0')
    const text = fc.oneof(hostile, fc.string({ unit: 'binary' }))
    const value = fc.oneof(text, fc.record({ message: text }), fc.jsonValue({ maxDepth: 2 }), fc.array(text, { maxLength: 3 }))
    await fc.assert(fc.asyncProperty(fc.array(value, { minLength: 1, maxLength: 8 }), async (generated) => {
      values = generated
      const href = (await app.inject({ method: 'POST', url: '/slow', payload: '{}', headers: ASYNC })).json().href
      await eventually(async () => (await app.inject(href)).json().status !== 'working', 'the job ends')
      const lines = ndjson(await app.inject(`${href}/events`))
      const { events, retries, comments } = readSse((await app.inject({ url: `${href}/events`, headers: SSE })).body)
      const m = (await app.inject(href)).json().m.map((message: { content: string }) => message.content)
      assert.deepEqual(retries, [2000])
      assert.deepEqual(comments, [])
      assert.equal(events.length, lines.length)
      for (const [i, event] of events.entries()) {
        const { message, ...rest } = JSON.parse(event.data) as { message: string, seq: number }
        assert.deepEqual(rest, lines[i])
        assert.equal(event.id, String(rest.seq))
        assert.equal(message, m[i])
      }
    }), { numRuns: 60 })
    await app.close()
  })
})
