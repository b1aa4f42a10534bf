import assert from 'node:assert/strict'
import { request as httpRequest } from 'node:http'
import { Writable } from 'node:stream'
import { describe, it } from 'node:test'
import Fastify, { type FastifyInstance, type LightMyRequestResponse } from 'fastify'
import gpt, { GPT_ERR_OPTION_INVALID, type GptOptions } from '../../src/index.ts'
import { eventually, gate, slowHost, stepsForm } from '../helpers/jobs.ts'

const post = (app: FastifyInstance, url: string, payload: string, headers: Record<string, string> = {}): Promise<LightMyRequestResponse> =>
  app.inject({ method: 'POST', url, payload, headers: { 'content-type': 'application/json', ...headers } })

/** Everything a client sees of a response but its date. */
const shape = (response: LightMyRequestResponse): unknown => {
  const { date, ...headers } = response.headers
  return { status: response.statusCode, headers, body: response.body }
}

const ASYNC = { prefer: 'respond-async' }
const HREF = /^\/slow\/jobs\/([A-Za-z0-9_-]{22})$/

async function startJob (app: FastifyInstance, steps = 3): Promise<{ href: string, response: LightMyRequestResponse }> {
  const response = await post(app, '/slow', JSON.stringify({ steps }), ASYNC)
  assert.equal(response.statusCode, 200)
  return { href: response.json().href, response }
}

describe('an act returning an async iterable, without background', () => {
  it('is drained: its yields are dropped and its return value is the 200 JSON answer', async () => {
    const { app, stepper } = await slowHost(undefined)
    for (const g of stepper.gates) g.open()
    const response = await post(app, '/slow', '{"steps":3}')
    assert.equal(response.statusCode, 200)
    assert.equal(response.body, '{"steps":3}')
    assert.deepEqual(stepper.ended, ['returned'])
  })

  it('past actTimeout: the bare 503, and the act is told to stop and pulled no more', async () => {
    const { app, stepper } = await slowHost(undefined, { actTimeout: 20 })
    const response = await post(app, '/slow', '{"steps":2}')
    assert.equal(response.statusCode, 503)
    assert.equal(response.body, '')
    assert.equal(stepper.signals[0]?.aborted, true)
    stepper.gates[1]!.open()
    await eventually(() => stepper.ended.length > 0, 'the act ends')
    assert.deepEqual(stepper.ended, ['stopped'])
  })
})

describe('background: an act that answers in time', () => {
  const acts: Record<string, GptOptions['act']> = {
    sync: () => ({ a: 1 }),
    async: async () => ({ a: 1 }),
    generator: async function * () { yield 1; return { a: 1 } },
    thrown: () => { throw new Error('no') },
    rejected: async () => { throw new Error('no') }
  }
  for (const [name, act] of Object.entries(acts)) {
    it(`answers the same bytes as without background (${name})`, async () => {
      const answers = []
      for (const background of [undefined, { after: 60_000 }]) {
        const app = Fastify()
        await app.register(gpt, { form: { type: 'object' }, act, rateLimit: false, ...(background === undefined ? {} : { background }) } as GptOptions)
        answers.push(shape(await post(app, '/', '{}')))
        answers.push(shape(await post(app, '/', '{}', { prefer: 'wait=100' })))
        await app.close()
      }
      assert.deepEqual(answers[2], answers[0])
      assert.deepEqual(answers[3], answers[0])
      assert.deepEqual(answers[1], answers[0])
    })
  }
})

describe('background: the hand-off', () => {
  it('past `after`: 200 with the handle, its href also a Link rel="monitor", the id 128 random bits', async () => {
    const { app } = await slowHost({ after: 10 })
    const response = await post(app, '/slow', '{"steps":1}')
    assert.equal(response.statusCode, 200)
    assert.equal(response.headers['content-type'], 'application/json; charset=utf-8')
    assert.equal(response.headers['cache-control'], 'no-store')
    assert.equal(response.headers['preference-applied'], undefined)
    const handle = response.json()
    assert.match(handle.href, HREF)
    assert.equal(Buffer.from(HREF.exec(handle.href)![1]!, 'base64url').length, 16)
    assert.equal(response.headers.link, `<${handle.href}>; rel="monitor"`)
    assert.deepEqual(Object.keys(handle), ['href', 'p', 'rel', 'status', 'events'])
    assert.equal(handle.status, 'working')
    assert.equal(handle.events, `${handle.href}/events`)
    await app.close()
  })

  it('at once on Prefer: respond-async, saying so in Preference-Applied', async () => {
    const { app } = await slowHost({ after: 2_000_000_000 })
    const { response } = await startJob(app)
    assert.equal(response.headers['preference-applied'], 'respond-async')
    await app.close()
  })

  it('Prefer: wait=N shortens the wait', async () => {
    const { app } = await slowHost({ after: 2_000_000_000 })
    const response = await post(app, '/slow', '{"steps":1}', { prefer: 'handling=lenient, wait=1' })
    assert.match(response.json().href, HREF)
    assert.equal(response.headers['preference-applied'], undefined)
    await app.close()
  })

  it('every job has its own id', async () => {
    const { app } = await slowHost({ after: 10 })
    const hrefs = new Set<string>()
    for (let i = 0; i < 20; i++) hrefs.add((await startJob(app)).href)
    assert.equal(hrefs.size, 20)
    await app.close()
  })

  it('maxJobs held: 503 with Retry-After, and the act never runs', async () => {
    const { app, stepper } = await slowHost({ maxJobs: 2 })
    // Each client holds at most a quarter of the places (at least one): two clients fill two.
    for (const remoteAddress of ['10.0.0.1', '10.0.0.2']) {
      const response = await app.inject({ method: 'POST', url: '/slow', payload: '{"steps":1}', remoteAddress, headers: { 'content-type': 'application/json', ...ASYNC } })
      assert.equal(response.statusCode, 200)
    }
    const refused = await post(app, '/slow', '{"steps":1}', ASYNC)
    assert.equal(refused.statusCode, 503)
    assert.equal(refused.body, '')
    assert.equal(refused.headers['retry-after'], '2') // no job ends before a poll's interval
    assert.equal(stepper.signals.length, 2)
    await app.close()
  })

  it('a finished job holds no place: the next act runs', async () => {
    const { app, stepper } = await slowHost({ maxJobs: 1 })
    const { href } = await startJob(app, 1)
    stepper.gates[1]!.open()
    await eventually(async () => (await app.inject(href)).json().status === 'completed', 'the job completes')
    const next = await post(app, '/slow', '{"steps":1}', ASYNC)
    assert.equal(next.statusCode, 200)
    assert.match(next.json().href, HREF)
    await app.close()
  })
})

describe('a job address (draft §3.2: p, m and s, then members a client may ignore)', () => {
  it('while working: its progress in m and `progress`, the cancel form, private, Retry-After, no expiry yet', async () => {
    const { app, stepper } = await slowHost({})
    const { href } = await startJob(app, 3)
    stepper.gates[1]!.open()
    stepper.gates[2]!.open()
    await eventually(async () => (await app.inject(href)).json().m.length === 2, 'two steps show')
    const response = await app.inject(href)
    assert.equal(response.statusCode, 200)
    assert.equal(response.headers['content-type'], 'application/json; charset=utf-8')
    assert.equal(response.headers['cache-control'], 'private, no-cache')
    assert.equal(response.headers['retry-after'], '2')
    const arrival = response.json()
    assert.deepEqual(Object.keys(arrival), ['p', 'm', 's', 'status', 'started', 'progress', 'events'])
    assert.equal(arrival.status, 'working')
    assert.match(arrival.p, /^An act posted to \/slow at \S+Z is still working/)
    // when the act was posted: the time p names, as a member a client can read without parsing prose
    assert.equal(arrival.p.split(' ')[6], arrival.started)
    assert.equal(new Date(arrival.started).toISOString(), arrival.started)
    assert.deepEqual(arrival.m, [{ role: 'assistant', content: 'Step 1 of 3' }, { role: 'assistant', content: 'Step 2 of 3' }])
    assert.deepEqual(arrival.progress, { step: 2, of: 3, message: 'Step 2 of 3' })
    assert.deepEqual(arrival.s.properties.do, { const: 'cancel', description: arrival.s.properties.do.description })
    assert.deepEqual(arrival.s.required, ['do'])
    assert.equal(arrival.s.additionalProperties, false)
    // The same state, the same bytes to anyone; If-None-Match of them: 304.
    const again = await app.inject({ url: href, headers: { 'user-agent': 'other' } })
    assert.equal(again.body, response.body)
    const cached = await app.inject({ url: href, headers: { 'if-none-match': String(response.headers.etag) } })
    assert.equal(cached.statusCode, 304)
    assert.equal(cached.body, '')
    assert.equal(cached.headers.etag, response.headers.etag)
    // RFC 9110 §13.1.2, as the arrival answers it: `*`, or the tag in a coding, names it too.
    const coded = String(response.headers.etag).replace(/"$/, '-gzip"')
    for (const held of ['*', `W/${coded}`]) assert.equal((await app.inject({ url: href, headers: { 'if-none-match': held } })).statusCode, 304, held)
    await app.close()
  })

  it('once completed: the result as `result` and as the last message, when it expires, the forget form', async () => {
    const { app, stepper } = await slowHost({ keep: 60_000 })
    const { href } = await startJob(app, 1)
    stepper.gates[1]!.open()
    await eventually(async () => (await app.inject(href)).json().status === 'completed', 'the job completes')
    const response = await app.inject(href)
    assert.equal(response.headers['retry-after'], undefined)
    const arrival = response.json()
    assert.deepEqual(arrival.result, { steps: 1 })
    assert.equal(arrival.m.at(-1).content, 'Completed. The result: {"steps":1}')
    assert.equal(arrival.s.properties.do.const, 'forget')
    const expires = Date.parse(arrival.expires)
    assert.ok(expires > Date.now() + 30_000 && expires <= Date.now() + 60_000, arrival.expires)
    assert.match(arrival.p, /has completed/)
    await app.close()
  })

  it('to a client preferring text/html: the page of the job address (draft §3.3), following it while working, not once done', async () => {
    const { app, stepper } = await slowHost({ keep: 60_000 })
    const { href } = await startJob(app, 2)
    stepper.gates[1]!.open()
    await eventually(async () => (await app.inject(href)).json().m.length === 1, 'a step shows')
    const browser = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' }
    const page = await app.inject({ url: href, headers: browser })
    const json = await app.inject(href)
    assert.equal(page.statusCode, 200)
    assert.equal(page.headers['content-type'], 'text/html; charset=utf-8')
    assert.match(String(page.headers['content-security-policy']), /default-src 'none'/)
    assert.equal(page.headers['x-content-type-options'], 'nosniff')
    assert.equal(page.headers['cache-control'], 'private, no-cache')
    // The page follows the job's events itself; only where no script runs does it reload every poll.
    assert.equal(page.headers.refresh, undefined)
    assert.ok(page.body.includes('<noscript><meta http-equiv="refresh" content="2"></noscript>'))
    assert.ok(page.body.includes(`data-events="${href}/events" data-after="1"`), 'its stream, after the event it shows')
    assert.equal(page.body.match(/<script>/g)?.length, 2)
    assert.equal(page.headers.vary, 'Accept')
    assert.equal(json.headers.vary, 'Accept')
    assert.notEqual(page.headers.etag, json.headers.etag, 'each representation its own tag')
    assert.ok(page.body.includes('Step 1 of 2'), 'the progress so far')
    assert.ok(page.body.includes('cancel'), 'the form it admits now')
    assert.ok(page.body.includes(href), 'its own address')
    // Its tag answers If-None-Match with a 304, as the JSON's does.
    assert.equal((await app.inject({ url: href, headers: { ...browser, 'if-none-match': String(page.headers.etag) } })).statusCode, 304)
    // Without text/html, or with JSON preferred, the JSON as before.
    for (const accept of ['*/*', 'application/json', 'application/json, text/html;q=0.5']) {
      assert.equal((await app.inject({ url: href, headers: { accept } })).body, json.body, accept)
    }
    stepper.gates[2]!.open()
    await eventually(async () => (await app.inject(href)).json().status === 'completed', 'the job completes')
    const done = await app.inject({ url: href, headers: browser })
    assert.equal(done.headers.refresh, undefined)
    assert.ok(!done.body.includes('http-equiv="refresh"'))
    assert.ok(!done.body.includes('data-events'))
    assert.equal(done.body.match(/<script>/g)?.length, 1)
    assert.notEqual(done.headers['content-security-policy'], page.headers['content-security-policy'], 'one script fewer')
    assert.ok(done.body.includes('forget'))
    await app.close()
  })

  it('with html: false, the JSON to every client', async () => {
    const { app } = await slowHost({}, { html: false })
    const { href } = await startJob(app, 1)
    const page = await app.inject({ url: href, headers: { accept: 'text/html' } })
    assert.equal(page.headers['content-type'], 'application/json; charset=utf-8')
    assert.equal(page.body, (await app.inject(href)).body)
    await app.close()
  })

  it('cancel: 200, the act\'s signal aborted, the job cancelled; cancel again: the bare 204', async () => {
    const { app, stepper } = await slowHost({})
    const { href } = await startJob(app, 2)
    const cancelled = await post(app, href, '{"do":"cancel"}')
    assert.equal(cancelled.statusCode, 200)
    assert.deepEqual(cancelled.json(), { status: 'cancelled' })
    assert.equal(stepper.signals[0]!.aborted, true)
    const again = await post(app, href, '{"do":"cancel"}')
    assert.equal(again.statusCode, 204)
    assert.equal(again.body, '')
    // What the act does after being cancelled changes nothing.
    stepper.gates[1]!.open()
    stepper.gates[2]!.open()
    await eventually(() => stepper.ended.length > 0, 'the act ends')
    const arrival = (await app.inject(href)).json()
    assert.equal(arrival.status, 'cancelled')
    assert.equal(arrival.result, undefined)
    assert.deepEqual(arrival.m, [{ role: 'assistant', content: 'Cancelled.' }])
    await app.close()
  })

  it('an act that reads its signal only after the cancel finds it aborted', async () => {
    const app = Fastify()
    const g = gate()
    const seen: boolean[] = []
    await app.register(gpt, {
      form: { type: 'object' },
      rateLimit: false,
      background: {},
      act: async (_body, _request, _reply, context) => { await g.promise; seen.push(context.signal.aborted); return {} }
    })
    const { href } = (await post(app, '/', '{}', ASYNC)).json()
    await post(app, href, '{"do":"cancel"}')
    g.open()
    await eventually(() => seen.length === 1, 'the act reads its signal')
    assert.deepEqual(seen, [true])
    await app.close()
  })

  it('forget: 200, then the job address and its stream are 404', async () => {
    const { app } = await slowHost({})
    const { href } = await startJob(app, 1)
    assert.equal((await post(app, href, '{"do":"forget"}')).statusCode, 204) // not while working
    await post(app, href, '{"do":"cancel"}')
    const forgotten = await post(app, href, '{"do":"forget"}')
    assert.deepEqual(forgotten.json(), { status: 'forgotten' })
    assert.equal((await app.inject(href)).statusCode, 404)
    assert.equal((await app.inject(`${href}/events`)).statusCode, 404)
    assert.equal((await post(app, href, '{"do":"forget"}')).statusCode, 404)
    await app.close()
  })

  it('every other body and method at a job address: the bare 204; at an unknown id: 404', async () => {
    const { app } = await slowHost({})
    const { href } = await startJob(app, 1)
    const bodies = ['', '{}', '{"do":"cancel","x":1}', '{"do":"cancel","do":"cancel"}', '{"do":"cancel"} x', '{"do":"Cancel"}', `{"do":"cancel","pad":"${'x'.repeat(2000)}"}`]
    for (const body of bodies) {
      const response = await post(app, href, body)
      assert.deepEqual([response.statusCode, response.body], [204, ''], body.slice(0, 40))
    }
    for (const method of ['PUT', 'PATCH', 'DELETE'] as const) {
      const response = await app.inject({ method, url: href, payload: '{"do":"cancel"}' })
      assert.deepEqual([response.statusCode, response.body], [204, ''], method)
    }
    assert.equal((await app.inject(href)).json().status, 'working')
    const unknown = href.replace(HREF, (_, id: string) => `/slow/jobs/${id.startsWith('A') ? 'B' : 'A'}${id.slice(1)}`)
    assert.equal((await app.inject(unknown)).statusCode, 404)
    assert.equal((await post(app, unknown, '{"do":"cancel"}')).statusCode, 404)
    await app.close()
  })

  it('kept `keep` ms after it ends, then 404', async () => {
    const { app, stepper } = await slowHost({ keep: 1 })
    const { href } = await startJob(app, 1)
    stepper.gates[1]!.open()
    await eventually(async () => (await app.inject(href)).statusCode === 404, 'the job is gone')
    await app.close()
  })

  it('an act that fails after the hand-off: the job failed, no result, no detail', async () => {
    const app = Fastify()
    const g = gate()
    await app.register(gpt, { form: { type: 'object' }, rateLimit: false, background: {}, act: async () => { await g.promise; throw new Error('secret detail') } })
    const { href } = (await post(app, '/', '{}', ASYNC)).json()
    g.open()
    await eventually(async () => (await app.inject(href)).json().status === 'failed', 'the job fails')
    const body = (await app.inject(href)).body
    assert.doesNotMatch(body, /secret/)
    await app.close()
  })

  it('a result that is not JSON fails the job', async () => {
    const app = Fastify()
    await app.register(gpt, { form: { type: 'object' }, rateLimit: false, background: {}, act: async () => { await new Promise((resolve) => setTimeout(resolve, 5)); return { n: 1n } } })
    const { href } = (await post(app, '/', '{}', ASYNC)).json()
    await eventually(async () => (await app.inject(href)).json().status === 'failed', 'the job fails')
    await app.close()
  })

  it('a progress value that is not JSON is left out; the job goes on', async () => {
    const app = Fastify()
    await app.register(gpt, {
      form: { type: 'object' },
      rateLimit: false,
      background: {},
      async * act () { yield 1; yield 2n; yield 3; return 'done' }
    })
    const { href } = (await post(app, '/', '{}', ASYNC)).json()
    await eventually(async () => (await app.inject(href)).json().status === 'completed', 'the job completes')
    const lines = (await app.inject(`${href}/events`)).body.split('\n').filter(Boolean)
    assert.deepEqual(lines, ['{"seq":1,"status":"working","progress":1}', '{"seq":2,"status":"working","progress":3}', '{"seq":3,"status":"completed","result":"done"}'])
    await app.close()
  })

  it('actTimeout ends a job as failed and aborts the act\'s signal', async () => {
    const { app, stepper } = await slowHost({ after: 5 }, { actTimeout: 30 })
    const { href } = await startJob(app, 1)
    await eventually(async () => (await app.inject(href)).json().status === 'failed', 'the job fails')
    assert.equal(stepper.signals[0]!.aborted, true)
    stepper.gates[1]!.open()
    await eventually(() => stepper.ended.length > 0, 'the act ends')
    assert.equal((await app.inject(href)).json().status, 'failed')
    await app.close()
  })
})

describe('the progress stream (not an address: draft §3.3)', () => {
  it('NDJSON of every event, the last one final; ?after= resumes after a seq', async () => {
    const { app, stepper } = await slowHost({})
    const { href } = await startJob(app, 3)
    for (const g of stepper.gates) g.open()
    await eventually(async () => (await app.inject(href)).json().status === 'completed', 'the job completes')
    const response = await app.inject(`${href}/events`)
    assert.equal(response.headers['content-type'], 'application/x-ndjson')
    assert.equal(response.headers['cache-control'], 'private, no-store')
    const lines = response.body.split('\n')
    assert.equal(lines.pop(), '')
    assert.deepEqual(lines.map((line) => JSON.parse(line)), [
      { seq: 1, status: 'working', progress: { step: 1, of: 3, message: 'Step 1 of 3' } },
      { seq: 2, status: 'working', progress: { step: 2, of: 3, message: 'Step 2 of 3' } },
      { seq: 3, status: 'working', progress: { step: 3, of: 3, message: 'Step 3 of 3' } },
      { seq: 4, status: 'completed', result: { steps: 3 } }
    ])
    const resumed = await app.inject(`${href}/events?after=2`)
    assert.deepEqual(resumed.body.split('\n').filter(Boolean).map((line) => JSON.parse(line).seq), [3, 4])
    const byHeader = await app.inject({ url: `${href}/events`, headers: { 'last-event-id': '3' } })
    assert.deepEqual(byHeader.body.split('\n').filter(Boolean).map((line) => JSON.parse(line).seq), [4])
    await app.close()
  })

  it('live, with heartbeats while quiet; a client leaving never cancels the job', async () => {
    const { app, stepper } = await slowHost({ heartbeat: 5 })
    const url = await app.listen({ port: 0, host: '127.0.0.1' })
    const { href } = await startJob(app, 2)
    let received = ''
    const request = httpRequest(`${url}${href}/events`)
    request.on('response', (response) => { response.setEncoding('utf8').on('data', (chunk: string) => { received += chunk }) })
    request.end()
    await eventually(() => received.includes('\n'), 'a heartbeat')
    assert.equal(received.trim(), '')
    stepper.gates[1]!.open()
    await eventually(() => received.includes('"seq":1'), 'the first step')
    request.destroy()
    stepper.gates[2]!.open()
    await eventually(async () => (await app.inject(href)).json().status === 'completed', 'the job completes')
    assert.equal(stepper.signals[0]!.aborted, false)
    await app.close()
  })
})

describe('the host closing', () => {
  it('cancels its running jobs and ends their streams, so closing never waits on a job', async () => {
    const { app, stepper } = await slowHost({})
    const url = await app.listen({ port: 0, host: '127.0.0.1' })
    const { href } = await startJob(app, 2)
    let received = ''
    let ended = false
    const request = httpRequest(`${url}${href}/events`)
    request.on('response', (response) => {
      response.setEncoding('utf8').on('data', (chunk: string) => { received += chunk }).on('end', () => { ended = true })
    })
    request.end()
    stepper.gates[1]!.open()
    await eventually(() => received.includes('"seq":1'), 'the first step')
    await app.close()
    await eventually(() => ended, 'the stream ends')
    assert.match(received, /\{"seq":2,"status":"cancelled"\}\n$/)
    assert.equal(stepper.signals[0]!.aborted, true)
  })
})

describe('a client leaving before the hand-off', () => {
  it('never cancels the act', async () => {
    const { app, stepper } = await slowHost({ after: 2_000_000_000 })
    const url = await app.listen({ port: 0, host: '127.0.0.1' })
    const request = httpRequest(`${url}/slow`, { method: 'POST', headers: { 'content-type': 'application/json' } })
    request.on('error', () => {})
    request.end('{"steps":1}')
    await eventually(() => stepper.signals.length === 1, 'the act starts')
    request.destroy()
    await new Promise((resolve) => setImmediate(resolve))
    stepper.gates[1]!.open()
    await eventually(() => stepper.ended.length > 0, 'the act ends')
    assert.deepEqual(stepper.ended, ['returned'])
    assert.equal(stepper.signals[0]!.aborted, false)
    await app.close()
  })
})

describe('a job address is a capability', () => {
  it('its id is never logged at info or below, whatever the host logs', async () => {
    const lines: string[] = []
    const stream = new Writable({ write (chunk, _encoding, done) { lines.push(String(chunk)); done() } })
    const { app, stepper } = await slowHost({}, {}, { logger: { level: 'trace', stream } })
    const { href } = await startJob(app, 1)
    await app.inject(href)
    await post(app, href, '{"do":"nothing"}')
    stepper.gates[1]!.open()
    await eventually(async () => (await app.inject(href)).json().status === 'completed', 'the job completes')
    await app.inject(`${href}/events?after=1`)
    await post(app, href, '{"do":"forget"}')
    await app.inject(href)
    const id = HREF.exec(href)![1]!
    assert.ok(lines.some((line) => line.includes('gpt: act')), 'the host logs at trace')
    assert.deepEqual(lines.filter((line) => line.includes(id)), [])
    await app.close()
  })

  it('is polled under a rate limit of its own, not the address\'s', async () => {
    const { app } = await slowHost({ rateMax: 5 }, { rateLimit: { max: 2, timeWindow: 60_000 } })
    const { href } = await startJob(app, 1)
    const statuses = []
    for (let i = 0; i < 6; i++) statuses.push((await app.inject(href)).statusCode)
    assert.deepEqual(statuses, [200, 200, 200, 200, 200, 429])
    assert.equal((await post(app, '/slow', '{"steps":1}', ASYNC)).statusCode, 200)
    assert.equal((await post(app, '/slow', '{"steps":1}', ASYNC)).statusCode, 429)
    await app.close()
  })
})

describe('beside @fastify/swagger', () => {
  it('job routes are never in the host\'s OpenAPI document, even with the address shown there', async () => {
    const { default: swagger } = await import('@fastify/swagger')
    const app = Fastify()
    await app.register(swagger, { openapi: { info: { title: 'host', version: '1.0.0' } } })
    await app.register(gpt, { prefix: '/slow', form: stepsForm, rateLimit: false, openapi: true, background: {}, act: () => ({}) })
    await app.ready()
    const paths = Object.keys((app.swagger() as { paths: Record<string, unknown> }).paths)
    assert.ok(paths.includes('/slow'), paths.join(', '))
    assert.deepEqual(paths.filter((path) => path.includes('jobs')), [])
    await app.close()
  })
})

describe('background options', () => {
  const bad: Array<[unknown, RegExp, Partial<GptOptions>?]> = [
    [5, /"background" must be an object/],
    [null, /"background" must be an object/],
    [[], /"background" must be an object/],
    [{ afterr: 1 }, /"background.afterr" is not an option/],
    [{ after: 0 }, /"background.after" must be a positive integer of milliseconds/],
    [{ keep: 2 ** 31 }, /"background.keep" must be a positive integer of milliseconds/],
    [{ lease: 0 }, /"background.lease" must be a positive integer of milliseconds/],
    [{ maxJobs: 1.5 }, /"background.maxJobs" must be a positive integer$/],
    [{ rateMax: '600' }, /"background.rateMax" must be a positive integer$/],
    [{ after: 100 }, /"background.after" \(100 ms\) must be shorter than "actTimeout" \(100 ms\)/, { actTimeout: 100 }]
  ]
  for (const [background, message, more] of bad) {
    it(`refuses ${JSON.stringify(background)}${more === undefined ? '' : ' beside ' + JSON.stringify(more)} with GPT_ERR_OPTION_INVALID`, async () => {
      const app = Fastify()
      app.register(gpt, { prefix: '/slow', form: stepsForm, act: () => ({}), background, ...more } as unknown as GptOptions)
      await assert.rejects(async () => { await app.ready() }, (error: Error) => error instanceof GPT_ERR_OPTION_INVALID && message.test(error.message) && error.message.includes('/slow'))
    })
  }
})
