// The diagnostics channels (src/diagnostics.ts): one refusal message per refused body, at the
// stage that refused it, for POST, the MCP bridge and a job's control acts; each act traced
// start to end with its outcome; nothing published to a channel nobody subscribes.
import assert from 'node:assert/strict'
import { channel, tracingChannel } from 'node:diagnostics_channel'
import { connect } from 'node:net'
import { once } from 'node:events'
import { describe, it, type TestContext } from 'node:test'
import Fastify from 'fastify'
import gpt, { type GptAddress, type GptOptions, type SharedGptAddress } from '../src/index.ts'
import mcp from '../src/mcp/index.ts'
import { ACTOR_LENGTH, type ActTrace, type EditionMessage, type RefusalMessage } from '../src/diagnostics.ts'
import { redisServer } from './helpers/redis.ts'
import { host, noteForm } from './helpers/host.ts'

/** Every message of `fastify-gpt.refusal` while the test runs. */
function refusals (t: TestContext): RefusalMessage[] {
  const seen: RefusalMessage[] = []
  const listener = (message: unknown): void => { seen.push(message as RefusalMessage) }
  channel('fastify-gpt.refusal').subscribe(listener)
  t.after(() => channel('fastify-gpt.refusal').unsubscribe(listener))
  return seen
}

/** Every event of `tracing:fastify-gpt.act:*`, in order, with the outcome the context had then. */
function traces (t: TestContext): Array<{ event: string, outcome: string | undefined, context: ActTrace }> {
  const seen: Array<{ event: string, outcome: string | undefined, context: ActTrace }> = []
  const at = (event: string) => (message: unknown): void => {
    const context = message as ActTrace
    seen.push({ event, outcome: context.outcome, context })
  }
  const handlers = { start: at('start'), end: at('end'), asyncStart: at('asyncStart'), asyncEnd: at('asyncEnd'), error: at('error') }
  const acts = tracingChannel('fastify-gpt.act')
  acts.subscribe(handlers)
  t.after(() => acts.unsubscribe(handlers))
  return seen
}

const post = (body: string, headers: Record<string, string> = {}, url = '/') =>
  ({ method: 'POST' as const, url, headers: { 'content-type': 'application/json', ...headers }, payload: body })

describe('fastify-gpt.refusal: one message per refused POST, at its stage', () => {
  it('parse, depth, size, schema (with the failed keyword and both pointers), and none for an act', async (t) => {
    const { app } = await host({ maxDepth: 3, bodyLimit: 200 })
    t.after(() => app.close())
    const seen = refusals(t)
    const cases: Array<[string, string]> = [
      ['{"note":"a","note":"b"}', 'parse'],
      ['', 'parse'],
      ['{"note":[[[[1]]]]}', 'depth'],
      [JSON.stringify({ note: 'x'.repeat(300) }), 'size'],
      ['{"note":"a","stars":9}', 'schema']
    ]
    for (const [body, stage] of cases) {
      const before = seen.length
      const reply = await app.inject(post(body, { 'gpt-actor': 'probe/1' }))
      assert.equal(reply.statusCode, 204)
      assert.equal(seen.length, before + 1, `exactly one message for ${stage}`)
      const message = seen.at(-1) as RefusalMessage
      assert.equal(message.stage, stage)
      assert.equal(message.address, '/')
      assert.equal(message.via, 'http')
      assert.equal(message.actor, 'probe/1')
      assert.equal(message.etag, (await app.inject('/')).headers.etag)
    }
    // No body and no Content-Type: Fastify runs no parser, yet it is an empty body, not the form's refusal.
    assert.equal((await app.inject({ method: 'POST', url: '/' })).statusCode, 204)
    assert.deepEqual([seen.at(-1)?.stage, seen.at(-1)?.keyword], ['parse', undefined])
    const schema = seen.at(-2) as RefusalMessage
    assert.deepEqual([schema.keyword, schema.schemaPath, schema.instancePath], ['maximum', '#/properties/stars/maximum', '/stars'])
    for (const message of [...seen.slice(0, -2), ...seen.slice(-1)]) assert.deepEqual([message.keyword, message.schemaPath, message.instancePath], [undefined, undefined, undefined])
    const before = seen.length
    assert.equal((await app.inject(post('{"note":"fine"}'))).statusCode, 200)
    assert.equal(seen.length, before, 'an act is no refusal')
  })

  it('GPT-Actor is cut to its bound, and never read from the body', async (t) => {
    const { app } = await host()
    t.after(() => app.close())
    const seen = refusals(t)
    await app.inject(post('{"note":""}', { 'gpt-actor': 'a'.repeat(500) }))
    assert.equal(seen[0]?.actor, 'a'.repeat(ACTOR_LENGTH))
    await app.inject(post('{"gpt-actor":"x"}'))
    assert.equal(seen[1]?.actor, undefined)
  })

  it('if-match and rate-limit, and a GET over the limit is no refusal', async (t) => {
    const { app } = await host({ ifMatch: true, rateLimit: { max: 3, timeWindow: 60_000 } })
    t.after(() => app.close())
    const seen = refusals(t)
    assert.equal((await app.inject(post('{"note":"a"}', { 'if-match': '"old"' }))).statusCode, 412)
    assert.deepEqual(seen.map((m) => m.stage), ['if-match'])
    await app.inject('/')
    await app.inject('/')
    assert.equal((await app.inject('/')).statusCode, 429)
    assert.equal(seen.length, 1)
    assert.equal((await app.inject(post('{"note":"a"}'))).statusCode, 429)
    assert.deepEqual(seen.map((m) => m.stage), ['if-match', 'rate-limit'])
  })

  it('timeout: a body that stops arriving', async (t) => {
    const { app } = await host({ bodyTimeout: 100 })
    t.after(() => app.close())
    const seen = refusals(t)
    await app.listen({ port: 0, host: '127.0.0.1' })
    const socket = connect((app.server.address() as { port: number }).port, '127.0.0.1')
    t.after(() => socket.destroy())
    socket.write('POST / HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: 20\r\n\r\n{"note":')
    const [data] = await once(socket, 'data') as [Buffer]
    assert.match(data.toString(), /^HTTP\/1.1 204/)
    assert.deepEqual(seen.map((m) => m.stage), ['timeout'])
  })
})

describe('tracing:fastify-gpt.act', () => {
  it('a plain result: start, end (outcome set); a promise: start, end, asyncStart, asyncEnd', async (t) => {
    let plain = true
    const { app } = await host({ act: () => plain ? { ok: true } : Promise.resolve({ ok: true }) })
    t.after(() => app.close())
    const seen = traces(t)
    await app.inject(post('{"note":"a"}', { 'gpt-actor': 'probe/2' }))
    assert.deepEqual(seen.map((e) => [e.event, e.outcome]), [['start', undefined], ['end', 'acted']])
    const { address, etag, actor, via } = seen[0]?.context as ActTrace
    assert.deepEqual({ address, actor, via }, { address: '/', actor: 'probe/2', via: 'http' })
    assert.equal(etag, (await app.inject('/')).headers.etag)
    seen.length = 0
    plain = false
    await app.inject(post('{"note":"a"}'))
    assert.deepEqual(seen.map((e) => [e.event, e.outcome]), [['start', undefined], ['end', undefined], ['asyncStart', 'acted'], ['asyncEnd', 'acted']])
  })

  it('a failure: error before end, with what it threw; a timeout: the timeout\'s error', async (t) => {
    const thrown = new Error('boom')
    let mode: 'throw' | 'reject' | 'hang' = 'throw'
    const { app } = await host({
      actTimeout: 50,
      act: () => {
        if (mode === 'throw') throw thrown
        return mode === 'reject' ? Promise.reject(thrown) : new Promise(() => {})
      }
    })
    t.after(() => app.close())
    const seen = traces(t)
    assert.equal((await app.inject(post('{"note":"a"}'))).statusCode, 500)
    assert.deepEqual(seen.map((e) => [e.event, e.outcome]), [['start', undefined], ['error', 'failed'], ['end', 'failed']])
    assert.equal(seen[1]?.context.error, thrown)
    seen.length = 0
    mode = 'reject'
    await app.inject(post('{"note":"a"}'))
    assert.deepEqual(seen.map((e) => e.event), ['start', 'end', 'error', 'asyncStart', 'asyncEnd'])
    assert.equal(seen[2]?.context.error, thrown)
    seen.length = 0
    mode = 'hang'
    assert.equal((await app.inject(post('{"note":"a"}'))).statusCode, 503)
    assert.deepEqual(seen.map((e) => [e.event, e.outcome]).slice(2), [['error', 'failed'], ['asyncStart', 'failed'], ['asyncEnd', 'failed']])
    assert.equal((seen[2]?.context.error as { code?: string }).code, 'GPT_ERR_ACT_TIMEOUT')
  })

  it('an act with background: job at its hand-off, busy past maxJobs', async (t) => {
    const app = Fastify()
    t.after(() => app.close())
    await app.register(gpt, {
      form: noteForm,
      rateLimit: false,
      background: { after: 10, maxJobs: 1 },
      act: () => new Promise((resolve) => setTimeout(resolve, 300, { ok: true }))
    } as unknown as GptOptions)
    const seen = traces(t)
    const first = await app.inject(post('{"note":"a"}'))
    assert.match(String(first.headers.link), /rel="monitor"/)
    assert.equal(seen.at(-1)?.outcome, 'job')
    assert.equal((await app.inject(post('{"note":"b"}'))).statusCode, 503)
    assert.equal(seen.at(-1)?.outcome, 'busy')
  })

  it('nobody subscribed: nothing is published, and the act runs as ever', async (t) => {
    const { app } = await host()
    t.after(() => app.close())
    assert.equal(tracingChannel('fastify-gpt.act').hasSubscribers, false)
    assert.equal(channel('fastify-gpt.refusal').hasSubscribers, false)
    assert.equal((await app.inject(post('{"note":"a"}'))).statusCode, 200)
  })
})

describe('the MCP bridge and job control acts publish as POST does', () => {
  it('tools/call: arguments, schema, parse (a loose envelope), if-match; an act traced via mcp', async (t) => {
    const app = Fastify()
    t.after(() => app.close())
    await app.register(gpt, { form: noteForm, rateLimit: false, ifMatch: true, act: () => ({ ok: true }) } as unknown as GptOptions)
    await app.register(gpt, { prefix: '/n', form: { type: 'integer' }, rateLimit: false, act: () => 1 } as unknown as GptOptions)
    await app.register(mcp)
    const seen = refusals(t)
    const acted = traces(t)
    const call = (params: string) => app.inject({
      method: 'POST',
      url: '/mcp',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'gpt-actor': 'mcp/1' },
      payload: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":${params}}`
    })
    const tools = JSON.parse((await app.inject({ method: 'POST', url: '/mcp', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, payload: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}' })).body) as { result: { tools: Array<{ name: string }> } }
    const [root, n] = tools.result.tools.map((tool) => tool.name)
    await call(`{"name":"${root}","arguments":{"note":"a","stars":0}}`)
    await call(`{"name":"${n}"}`)
    await call(`{"name":"${root}","arguments":{"note":"a","note":"b"}}`)
    await call(`{"name":"${root}","arguments":{"note":"a"},"_meta":{"fastify-gpt/if-match":"\\"old\\""}}`)
    assert.deepEqual(seen.map((m) => [m.address, m.stage, m.keyword, m.via, m.actor]), [
      ['/', 'schema', 'minimum', 'mcp', 'mcp/1'],
      ['/n', 'arguments', undefined, 'mcp', 'mcp/1'],
      ['/', 'parse', undefined, 'mcp', 'mcp/1'],
      ['/', 'if-match', undefined, 'mcp', 'mcp/1']
    ])
    assert.equal(acted.length, 0)
    await call(`{"name":"${root}","arguments":{"note":"a"}}`)
    assert.deepEqual(acted.map((e) => [e.event, e.outcome, e.context.via, e.context.address]), [['start', undefined, 'mcp', '/'], ['end', 'acted', 'mcp', '/']])
  })

  it('a job\'s control act: refused at parse or schema, under the job route\'s pattern', async (t) => {
    const app = Fastify()
    t.after(() => app.close())
    await app.register(gpt, {
      prefix: '/slow',
      form: noteForm,
      rateLimit: false,
      background: { after: 10 },
      act: () => new Promise((resolve) => setTimeout(resolve, 200, { ok: true }))
    } as unknown as GptOptions)
    const seen = refusals(t)
    const handle = JSON.parse((await app.inject(post('{"note":"a"}', { prefer: 'respond-async' }, '/slow'))).body) as { href: string }
    const job = await app.inject(handle.href)
    assert.equal((await app.inject(post('{"do":"nothing"}', {}, handle.href))).statusCode, 204)
    assert.equal((await app.inject(post('{"do":', {}, handle.href))).statusCode, 204)
    assert.deepEqual(seen.map((m) => [m.address, m.stage, m.keyword]), [['/slow/jobs/:id', 'schema', 'const'], ['/slow/jobs/:id', 'parse', undefined]])
    assert.equal(seen[0]?.etag, job.headers.etag)
  })
})

/** Every message of `fastify-gpt.edition` while the test runs, without the request-free noise of other tests. */
function editionEvents (t: TestContext, address: string): EditionMessage[] {
  const seen: EditionMessage[] = []
  const listener = (message: unknown): void => { if ((message as EditionMessage).address === address) seen.push(message as EditionMessage) }
  channel('fastify-gpt.edition').subscribe(listener)
  t.after(() => channel('fastify-gpt.edition').unsubscribe(listener))
  return seen
}

describe('fastify-gpt.edition', () => {
  it('local: built at registration and on each update, with the arrival\'s tag; an update refused, with its named error', async (t) => {
    const seen = editionEvents(t, '/ed')
    let handle: GptAddress | undefined
    const app = Fastify()
    t.after(() => app.close())
    await app.register(gpt, { prefix: '/ed', form: noteForm, rateLimit: false, act: () => 1, onAddress: (a: GptAddress) => { handle = a } } as unknown as GptOptions)
    await app.ready()
    const address = handle as GptAddress
    address.update({ prompt: 'Again.' })
    assert.throws(() => { address.update({ form: { type: 'nonsense' } }) }, { code: 'GPT_ERR_FORM_INVALID' })
    const tag = (await app.inject('/ed')).headers.etag
    assert.deepEqual(seen.map((m) => [m.event, m.version, m.code]), [['built', 0, undefined], ['built', 1, undefined], ['refused', 1, 'GPT_ERR_FORM_INVALID']])
    assert.equal(seen[1]?.etag, tag)
    assert.match(seen[2]?.reason as string, /not a valid JSON Schema/)
  })

  it('shared: stored, then built; an update refused, with its named error', async (t) => {
    const redis = await redisServer()
    const seen = editionEvents(t, '/shared')
    let handle: SharedGptAddress | undefined
    const app = Fastify()
    t.after(async () => {
      await app.close()
      await redis.stop()
    })
    await app.register(gpt, {
      prefix: '/shared',
      form: noteForm,
      rateLimit: false,
      share: { redis: redis.client() },
      act: () => 1,
      onAddress: (a: SharedGptAddress) => { handle = a }
    } as unknown as GptOptions)
    await app.ready()
    await (handle as SharedGptAddress).update({ prompt: 'Shared.' })
    const events = seen.map((m) => `${m.event} ${m.version}`)
    assert.deepEqual(events.slice(-2), ['stored 2', 'built 2'])
    assert.ok(events.includes('stored 1'), events.join(', '))
    await assert.rejects((handle as SharedGptAddress).update({ form: { type: 'nonsense' } }), { code: 'GPT_ERR_FORM_INVALID' })
    assert.deepEqual([seen.at(-1)?.event, seen.at(-1)?.code], ['refused', 'GPT_ERR_FORM_INVALID'])
  })
})
