// fastify-gpt/otel with the real packages (@fastify/otel, the SDK's tracer and meter): each
// refusal is one count and the attributes of its request's span, each act a span, a count and a
// duration; labels from closed sets only; every answer byte for byte what it is without it.
import assert from 'node:assert/strict'
import { channel, tracingChannel } from 'node:diagnostics_channel'
import { describe, it } from 'node:test'
import fc from 'fast-check'
import Fastify, { type FastifyInstance } from 'fastify'
import gpt, { type GptOptions } from '../../src/index.ts'
import compress from '@fastify/compress'
import otel from '../../src/otel/index.ts'
import mcp from '../../src/mcp/index.ts'
import { checkAddress } from '../../src/check/testing.ts'
import type { RefusalMessage } from '../../src/diagnostics.ts'
import { noteBoard, poll, slow } from '../../example/addresses.js'
import { randomBody } from '../fixtures/forms.ts'
import { noteForm } from '../helpers/host.ts'
import { bodyText, exampleOf, nearMisses } from '../helpers/near-miss.ts'
import { instrument, requestSpans, type Telemetry } from '../helpers/otel.ts'

const STAGES = new Set(['size', 'timeout', 'incomplete', 'encoding', 'parse', 'depth', 'schema', 'if-match', 'rate-limit', 'arguments', 'idempotency'])

/** The example host's addresses, each call fresh: the slow act with a short step, so its acts end in the test. */
function examples (): GptOptions[] {
  return [noteBoard(), poll(), slow({ stepMs: 5, after: 1000 })].map((options) => ({ ...options, rateLimit: false }) as unknown as GptOptions)
}

async function exampleHost (instrumented: boolean): Promise<{ app: FastifyInstance, telemetry: Telemetry | undefined }> {
  const app = Fastify()
  const telemetry = instrumented ? await instrument(app) : undefined
  for (const options of examples()) await app.register(gpt, options)
  await app.ready()
  return { app, telemetry }
}

const post = (url: string, payload: string, headers: Record<string, string> = {}) =>
  ({ method: 'POST' as const, url, payload, headers: { 'content-type': 'application/json', ...headers } })

/** Each example address's path, form, and bodies: near misses (most refused) and one it admits. */
function bodiesOf (): Array<{ path: string, form: object, bodies: string[] }> {
  return examples().map((options) => {
    const form = options.form as object
    const near = nearMisses(form as never, 80).map((n) => bodyText(n.value))
    return { path: (options as { prefix?: string }).prefix ?? '/', form, bodies: [bodyText(exampleOf(form as never) ?? null), ...near] }
  })
}

/** The keywords a form names anywhere: the only keywords a refusal of it can carry. */
function keywordsOf (form: unknown, into = new Set<string>()): Set<string> {
  if (Array.isArray(form)) for (const item of form) keywordsOf(item, into)
  else if (form !== null && typeof form === 'object') {
    for (const [key, value] of Object.entries(form)) {
      into.add(key)
      keywordsOf(value, into)
    }
  }
  return into
}

describe('fastify-gpt/otel: refusals', () => {
  it('each near miss of every example form: one message, one span with its attributes, one count', async (t) => {
    const { app, telemetry } = await exampleHost(true)
    t.after(() => app.close())
    const { points } = telemetry as Telemetry
    const messages: RefusalMessage[] = []
    const listener = (message: unknown): void => { messages.push(message as RefusalMessage) }
    channel('fastify-gpt.refusal').subscribe(listener)
    t.after(() => channel('fastify-gpt.refusal').unsubscribe(listener))
    let refused = 0
    for (const { path, form, bodies } of bodiesOf()) {
      const keywords = keywordsOf(form)
      for (const body of bodies) {
        const before = { messages: messages.length, spans: requestSpans(telemetry as Telemetry).length }
        const reply = await app.inject(post(path, body))
        const spans = requestSpans(telemetry as Telemetry)
        assert.equal(spans.length, before.spans + 1)
        const span = spans.at(-1)?.attributes ?? {}
        if (reply.statusCode !== 204) {
          assert.equal(messages.length, before.messages, `${body}: acted, no refusal`)
          assert.notEqual(span['gpt.outcome'], 'refused')
          continue
        }
        refused++
        assert.equal(messages.length, before.messages + 1, `${body}: one message`)
        const message = messages.at(-1) as RefusalMessage
        assert.equal(span['gpt.outcome'], 'refused')
        assert.equal(span['error.type'], 'refused')
        assert.equal(span['gpt.address'], path)
        assert.equal(span['gpt.refusal.stage'], message.stage)
        assert.equal(span['gpt.refusal.keyword'], message.keyword)
        if (message.stage === 'schema') {
          assert.ok(keywords.has(message.keyword as string), `${message.keyword} is a keyword of the form`)
          assert.equal(span['gpt.refusal.schema_path'], message.schemaPath)
          assert.equal(span['gpt.refusal.instance_path'], message.instancePath)
          assert.match(message.schemaPath as string, /^#\//)
          assert.ok((message.schemaPath as string).endsWith(`/${message.keyword}`))
        }
      }
    }
    assert.ok(refused > 30, `${refused} refused`)
    // One count per message, under the same labels.
    const counted = await points('gpt.act.refusals')
    const total = counted.reduce((sum, point) => sum + (point.value as number), 0)
    assert.equal(total, messages.length)
    for (const point of counted) {
      const { 'gpt.address': address, 'gpt.refusal.stage': stage, 'gpt.refusal.keyword': keyword } = point.attributes
      const same = messages.filter((m) => m.address === address && m.stage === stage && m.keyword === keyword)
      assert.equal(point.value, same.length, `${String(address)} ${String(stage)} ${String(keyword)}`)
    }
    assert.deepEqual(new Set(counted.map((p) => p.attributes['gpt.refusal.stage'])), new Set(['schema', 'parse']))
  })

  it('every stage, POST and tools/call: one count and the request span\'s attributes each', async (t) => {
    const app = Fastify()
    t.after(() => app.close())
    const telemetry = await instrument(app)
    await app.register(compress)
    await app.register(gpt, { form: noteForm, maxDepth: 3, bodyLimit: 100, ifMatch: true, rateLimit: { max: 9, timeWindow: 60_000 }, act: () => 1 } as unknown as GptOptions)
    await app.register(mcp)
    const rpc = (params: string) => post('/mcp', `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":${params}}`, { accept: 'application/json, text/event-stream' })
    const tool = (JSON.parse((await app.inject(post('/mcp', '{"jsonrpc":"2.0","id":1,"method":"tools/list"}', { accept: 'application/json, text/event-stream' }))).body) as { result: { tools: Array<{ name: string }> } }).result.tools[0]?.name as string
    const sent: Array<[string, ReturnType<typeof post>]> = [
      ['parse', post('/', '{"note":')],
      ['depth', post('/', '{"note":[[[[1]]]]}')],
      ['size', post('/', JSON.stringify({ note: 'x'.repeat(200) }))],
      ['encoding', post('/', '{"note":"a"}', { 'content-encoding': 'bogus' })],
      ['schema', post('/', '{"note":1}')],
      ['if-match', post('/', '{"note":"a"}', { 'if-match': '"old"' })],
      ['arguments', rpc(`{"name":"${tool}","arguments":[1]}`)],
      ['schema', rpc(`{"name":"${tool}","arguments":{"note":2}}`)]
    ]
    for (const [stage, request] of sent) {
      const before = requestSpans(telemetry).length
      await app.inject(request)
      const spans = requestSpans(telemetry).slice(before)
      // a call enters by the address's POST (src/address/door.ts): its span is in the call's trace
      const called = request.url === '/mcp'
      assert.equal(spans.length, called ? 2 : 1)
      const span = spans.find((one) => one.attributes['http.route'] !== '/mcp')
      if (called) {
        const outer = spans.find((one) => one !== span)
        assert.equal(span?.spanContext().traceId, outer?.spanContext().traceId, 'the POST in the call\'s trace')
      }
      assert.equal(span?.attributes['gpt.refusal.stage'], stage, String(request.payload))
      assert.equal(span?.attributes['gpt.outcome'], 'refused')
      assert.equal(span?.attributes['gpt.via'], called ? 'mcp' : 'http')
    }
    while ((await app.inject(post('/', '{}'))).statusCode !== 429);
    const counted = await telemetry.points('gpt.act.refusals')
    const by = (stage: string, via: string) => counted.filter((p) => p.attributes['gpt.refusal.stage'] === stage && p.attributes['gpt.via'] === via).reduce((n, p) => n + (p.value as number), 0)
    for (const stage of ['parse', 'depth', 'size', 'encoding', 'if-match', 'rate-limit']) assert.equal(by(stage, 'http'), 1, stage)
    assert.equal(by('arguments', 'mcp'), 1)
    assert.equal(by('schema', 'mcp'), 1)
    // the limit of 9 is reached by the six posts, the two calls and tools/list's look at the GET: no {} before it
    assert.equal(by('schema', 'http'), 1)
  })

  it('labels come from closed sets, never from a body: random bodies against every example address', async (t) => {
    const { app, telemetry } = await exampleHost(true)
    t.after(() => app.close())
    const paths = new Set(examples().map((o) => (o as { prefix?: string }).prefix ?? '/'))
    const keywords = new Set(examples().flatMap((o) => [...keywordsOf(o.form)]))
    const strings = new Set<string>()
    await fc.assert(fc.asyncProperty(fc.constantFrom(...paths), randomBody, fc.string({ minLength: 3 }), async (path, body, marker) => {
      const text = JSON.stringify({ [marker]: marker, body })
      strings.add(marker)
      await app.inject(post(path, text))
    }), { numRuns: 150 })
    const counted = await (telemetry as Telemetry).points('gpt.act.refusals')
    assert.ok(counted.length > 0)
    for (const { attributes } of counted) {
      assert.ok(paths.has(attributes['gpt.address'] as string))
      assert.ok(STAGES.has(attributes['gpt.refusal.stage'] as string))
      if (attributes['gpt.refusal.keyword'] !== undefined) assert.ok(keywords.has(attributes['gpt.refusal.keyword'] as string))
      assert.deepEqual(Object.keys(attributes).sort(), ['gpt.address', 'gpt.refusal.stage', 'gpt.via', ...(attributes['gpt.refusal.keyword'] === undefined ? [] : ['gpt.refusal.keyword'])].sort())
    }
    // No attribute of any span carries a value of a body: the markers were never labels.
    for (const span of (telemetry as Telemetry).spans()) {
      for (const [name, value] of Object.entries(span.attributes)) {
        if (name.startsWith('gpt.') && name !== 'gpt.refusal.instance_path') assert.ok(typeof value !== 'string' || !strings.has(value) || paths.has(value) || keywords.has(value), `${name}: ${String(value)}`)
      }
    }
  })
})

describe('fastify-gpt/otel: acts', () => {
  it('an act: a count by outcome, a duration, and with actSpans a span of its own under the request\'s', async (t) => {
    const app = Fastify()
    t.after(() => app.close())
    const telemetry = await instrument(app, true)
    let fail = false
    await app.register(gpt, { form: noteForm, rateLimit: false, act: async () => { if (fail) throw new Error('no'); return { ok: true } } } as unknown as GptOptions)
    assert.equal((await app.inject(post('/', '{"note":"a"}', { 'gpt-actor': 'probe/1' }))).statusCode, 200)
    fail = true
    assert.equal((await app.inject(post('/', '{"note":"a"}'))).statusCode, 500)
    const spans = telemetry.spans()
    const acted = spans.filter((s) => s.name === 'act /')
    assert.equal(acted.length, 2)
    const requests = requestSpans(telemetry)
    for (const [i, span] of acted.entries()) {
      assert.equal(span.parentSpanContext?.spanId, requests[i]?.spanContext().spanId, 'under its request\'s span')
      assert.equal(span.attributes['gpt.address'], '/')
    }
    assert.equal(acted[0]?.attributes['gpt.outcome'], 'acted')
    assert.equal(acted[0]?.attributes['gpt.actor'], 'probe/1')
    assert.equal(requests[0]?.attributes['gpt.outcome'], 'acted')
    assert.equal(acted[1]?.attributes['gpt.outcome'], 'failed')
    assert.equal(acted[1]?.attributes['error.type'], 'GPT_ERR_ACT_FAILED')
    assert.equal(acted[1]?.status.code, 2) // SpanStatusCode.ERROR
    assert.equal(acted[1]?.events[0]?.name, 'exception')
    const counts = await telemetry.points('gpt.acts')
    assert.deepEqual(counts.map((p) => [p.attributes['gpt.outcome'], p.value]).sort(), [['acted', 1], ['failed', 1]])
    const durations = await telemetry.points('gpt.act.duration')
    assert.equal(durations.reduce((sum, p) => sum + (p.value as { count: number }).count, 0), 2)
  })

  it('without actSpans, no act span: the request\'s span has the outcome', async (t) => {
    const app = Fastify()
    t.after(() => app.close())
    const telemetry = await instrument(app)
    await app.register(gpt, { form: noteForm, rateLimit: false, act: () => ({ ok: true }) } as unknown as GptOptions)
    await app.inject(post('/', '{"note":"a"}'))
    assert.deepEqual(telemetry.spans().filter((s) => s.name.startsWith('act ')), [])
    assert.equal(requestSpans(telemetry)[0]?.attributes['gpt.outcome'], 'acted')
    assert.deepEqual((await telemetry.points('gpt.acts')).map((p) => p.value), [1])
  })

  it('two apps in one process: each tells its own providers only', async (t) => {
    const one = Fastify()
    const two = Fastify()
    t.after(() => Promise.all([one.close(), two.close()]))
    const first = await instrument(one)
    const second = await instrument(two)
    for (const app of [one, two]) await app.register(gpt, { form: noteForm, rateLimit: false, act: () => 1 } as unknown as GptOptions)
    await one.inject(post('/', '{}'))
    await two.inject(post('/', '{"note":"a"}'))
    assert.deepEqual((await first.points('gpt.act.refusals')).map((p) => p.value), [1])
    assert.deepEqual(await first.points('gpt.acts'), [])
    assert.deepEqual(await second.points('gpt.act.refusals'), [])
    assert.deepEqual((await second.points('gpt.acts')).map((p) => p.value), [1])
  })

  it('closing the last app unsubscribes: nobody listens, nothing is built', async () => {
    const app = Fastify()
    await app.register(otel)
    await app.ready()
    assert.equal(channel('fastify-gpt.refusal').hasSubscribers, true)
    await app.close()
    assert.equal(channel('fastify-gpt.refusal').hasSubscribers, false)
    assert.equal(tracingChannel('fastify-gpt.act').hasSubscribers, false)
  })

  it('a bad option fails registration with a named error', async () => {
    for (const [options, code] of [[{ tracerProvider: {} }, 'GPT_ERR_OPTION_INVALID'], [{ actSpans: 'yes' }, 'GPT_ERR_OPTION_INVALID'], [{ meterProvider: null }, 'GPT_ERR_OPTION_INVALID'], [{ meterprovider: {} }, 'GPT_ERR_OPTION_UNKNOWN']] as const) {
      const app = Fastify()
      app.register(otel, options as never)
      await assert.rejects(async () => { await app.ready() }, (error: { code?: string, message: string }) => error.code === code && error.message.includes('fastify-gpt/otel'))
      await app.close().catch(() => {})
    }
  })
})

/** The header fields in their order, but Date (the clock's, not the answer's). */
const fields = (headers: Record<string, unknown>): Array<[string, unknown]> => Object.entries(headers).filter(([name]) => name !== 'date')

describe('nothing reaches the actor', () => {
  it('every answer to every example form\'s bodies is byte for byte the same with and without instrumentation', async (t) => {
    const plain = await exampleHost(false)
    const watched = await exampleHost(true)
    t.after(() => Promise.all([plain.app.close(), watched.app.close()]))
    let compared = 0
    for (const { path, bodies } of bodiesOf()) {
      for (const body of bodies) {
        for (const headers of [{}, { 'gpt-actor': 'probe/1' }, { 'content-type': 'text/plain' }]) {
          const [a, b] = await Promise.all([plain.app.inject(post(path, body, headers)), watched.app.inject(post(path, body, headers))])
          assert.equal(b.statusCode, a.statusCode, body)
          assert.deepEqual(fields(b.headers), fields(a.headers), body)
          // A job handle names a random id: the same shape, not the same bytes.
          if (a.headers.link === undefined) assert.equal(b.body, a.body, body)
          compared++
        }
      }
    }
    assert.ok(compared > 100)
  })

  it('the checker\'s conformance checks pass with instrumentation on, 5.3-uniform among them', async (t) => {
    const { app } = await exampleHost(true)
    t.after(() => app.close())
    for (const path of ['/', '/poll']) {
      const report = await checkAddress(app, { path, acts: 4 })
      assert.deepEqual(report.results.filter((r) => r.outcome === 'fail').map((r) => r.id), [], path)
      assert.equal(report.results.find((r) => r.id === '5.3-uniform')?.outcome, 'pass', path)
    }
  })
})
