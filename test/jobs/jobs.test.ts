import assert from 'node:assert/strict'
import { request as httpRequest } from 'node:http'
import { Writable } from 'node:stream'
import { describe, it } from 'node:test'
import Fastify, { type FastifyInstance, type LightMyRequestResponse } from 'fastify'
import gpt, { GPT_ERR_OPTION_INVALID, type GptOptions } from '../../src/index.ts'
import { eventually, slowHost, stepsForm } from '../helpers/jobs.ts'

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
