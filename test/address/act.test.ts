import assert from 'node:assert/strict'
import { ParseError } from '../../src/parse/parse.ts'
import { describe, it } from 'node:test'
import Fastify, { type FastifyRequest, type LightMyRequestResponse } from 'fastify'
import gpt, { type Act } from '../../src/index.ts'
import { host, noteForm } from '../helpers/host.ts'

/** The parts of a response that may differ between two rejections: everything but the date. */
const shape = (response: LightMyRequestResponse): unknown => {
  const { date, ...headers } = response.headers
  return { status: response.statusCode, headers, body: response.body }
}

const BARE_204 = { status: 204, headers: { connection: 'keep-alive' }, body: '' }

describe('§5.1 act request', () => {
  it('hands act exactly the value the actor sent and returns its result as 200 JSON', async () => {
    const { app, seen } = await host()
    const response = await app.inject({ method: 'POST', url: '/', payload: '{"note":"hello","stars":5}', headers: { 'content-type': 'application/json' } })
    assert.equal(response.statusCode, 200)
    assert.equal(response.headers['content-type'], 'application/json; charset=utf-8')
    assert.deepEqual(response.json(), { ok: true })
    assert.deepEqual(seen.bodies, [{ note: 'hello', stars: 5 }])
  })

  for (const type of [undefined, 'application/json', 'text/plain', 'application/x-www-form-urlencoded', 'application/octet-stream', 'application/json; charset=utf-8']) {
    it(`takes the body as JSON whatever the Content-Type (${type ?? 'none'})`, async () => {
      const { app, seen } = await host()
      const headers: Record<string, string> = type === undefined ? {} : { 'content-type': type }
      const response = await app.inject({ method: 'POST', url: '/', payload: Buffer.from('{"note":"hi"}'), headers })
      assert.equal(response.statusCode, 200)
      assert.deepEqual(seen.bodies, [{ note: 'hi' }])
    })
  }

  it('never coerces, inserts defaults or removes members', async () => {
    const form = {
      type: 'object',
      properties: { n: { type: 'number' }, s: { type: 'string', default: 'x' }, extra: { type: 'boolean' } },
      additionalProperties: true
    } as const
    const { app, seen } = await host({ form })
    assert.equal((await app.inject({ method: 'POST', url: '/', payload: '{"n":"1"}' })).statusCode, 204, 'no string to number')
    assert.equal((await app.inject({ method: 'POST', url: '/', payload: '{"extra":"true"}' })).statusCode, 204, 'no string to boolean')
    assert.equal((await app.inject({ method: 'POST', url: '/', payload: '{"n":1,"other":[1]}' })).statusCode, 200)
    assert.deepEqual(seen.bodies, [{ n: 1, other: [1] }], 'no default for s, other kept')
  })

  it('sends a non-object result as JSON too', async () => {
    const { app } = await host({ act: () => 'done' })
    const response = await app.inject({ method: 'POST', url: '/', payload: '{"note":"a"}' })
    assert.equal(response.headers['content-type'], 'application/json; charset=utf-8')
    assert.equal(response.body, '"done"')
  })

  it('sends null when act returns nothing, and awaits async acts', async () => {
    const { app } = await host({ act: async () => { await new Promise((resolve) => setTimeout(resolve, 5)) } })
    const response = await app.inject({ method: 'POST', url: '/', payload: '{"note":"a"}' })
    assert.equal(response.statusCode, 200)
    assert.equal(response.body, 'null')
  })

  it('lets act answer by itself through reply', async () => {
    const { app } = await host({ act: (_body, _request, reply) => reply.code(201).send({ made: 1 }) })
    const response = await app.inject({ method: 'POST', url: '/', payload: '{"note":"a"}' })
    assert.equal(response.statusCode, 201)
    assert.deepEqual(response.json(), { made: 1 })
  })

  it('reads each body once: every act runs once and answers once, over real connections too', async () => {
    // A request's stream still emits after its end ('close', say): none of it may read the body again.
    const warnings: string[] = []
    const app = Fastify({ logger: { level: 'warn', stream: { write: (line: string) => { warnings.push(line) } } } })
    const requests: FastifyRequest[] = []
    app.addHook('onResponse', (request, _reply, done) => { requests.push(request); done() })
    const acted: unknown[] = []
    await app.register(gpt, { form: noteForm, rateLimit: false, act: (body) => { acted.push(body); return { ok: true } } })
    try {
      const bodies = ['{"note":"a"}', '{"note":"b","stars":2}', '{"nope":1}', '{"note":"a","note":"b"}', '{"note":"c"}']
      for (const payload of bodies) await app.inject({ method: 'POST', url: '/', payload })
      await app.listen({ host: '127.0.0.1', port: 0 })
      const { port } = app.server.address() as { port: number }
      for (const payload of bodies) await (await fetch(`http://127.0.0.1:${port}/`, { method: 'POST', body: payload })).arrayBuffer()
      await new Promise((resolve) => setTimeout(resolve, 50)) // what the streams emit after the answers
      // the bodies the host's hooks see are still the ones read
      const read = requests.map((request): unknown => request.body).filter((body) => acted.includes(body))
      assert.equal(read.length, acted.length)
      const sent = [{ note: 'a' }, { note: 'b', stars: 2 }, { note: 'c' }]
      assert.deepEqual(acted, [...sent, ...sent])
      assert.deepEqual(warnings, [])
    } finally {
      await app.close()
    }
  })
})

describe('§5.2 verification', () => {
  const rejected: [string, string | Buffer][] = [
    ['schema: missing required member', '{}'],
    ['schema: wrong type', '{"note":1}'],
    ['schema: too long', `{"note":"${'x'.repeat(21)}"}`],
    ['schema: additional member', '{"note":"a","x":1}'],
    ['(2) duplicate member', '{"note":"a","note":"b"}'],
    ['(2) duplicate after unescaping', '{"note":"a","\\u006eote":"b"}'],
    ['(2) nested duplicate', '[{"a":1},{"a":1,"a":2}]'],
    ['(2) bytes after the value', '{"note":"a"} x'],
    ['(2) two values', '{"note":"a"}{"note":"b"}'],
    ['invalid UTF-8', Buffer.from([0x7b, 0x22, 0x6e, 0x6f, 0x74, 0x65, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d])],
    ['byte order mark', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"note":"a"}')])],
    ['empty body', ''],
    ['white space only', ' \n'],
    ['__proto__ member', '{"note":"a","__proto__":{"x":1}}'],
    ['nesting past the bound', '['.repeat(100_000) + ']'.repeat(100_000)],
    ['not JSON', 'note=hello'],
    ['JavaScript, not JSON', "{note:'a'}"]
  ]
  for (const [name, payload] of rejected) {
    it(`rejects with the bare 204: ${name}`, async () => {
      const { app, seen } = await host()
      const response = await app.inject({ method: 'POST', url: '/', payload, headers: { 'content-type': 'application/json' } })
      assert.deepEqual(shape(response), BARE_204)
      assert.deepEqual(seen.bodies, [], 'act never ran')
    })
  }

  it('(1) rejects a body over bodyLimit with the same bare 204', async () => {
    const { app, seen } = await host({ bodyLimit: 32 })
    const ok = await app.inject({ method: 'POST', url: '/', payload: '{"note":"fits"}' })
    assert.equal(ok.statusCode, 200)
    const big = await app.inject({ method: 'POST', url: '/', payload: `{"note":"${'x'.repeat(40)}"}` })
    assert.deepEqual(shape(big), BARE_204)
    assert.equal(seen.bodies.length, 1)
  })

  it('(2) honours maxDepth', async () => {
    const { app } = await host({ form: {}, maxDepth: 3 })
    assert.equal((await app.inject({ method: 'POST', url: '/', payload: '[[[1]]]' })).statusCode, 200)
    assert.equal((await app.inject({ method: 'POST', url: '/', payload: '[[[[1]]]]' })).statusCode, 204)
  })

  it('rejects an empty body even where the form admits null', async () => {
    const { app, seen } = await host({ form: { type: 'null' } })
    assert.equal((await app.inject({ method: 'POST', url: '/', payload: 'null' })).statusCode, 200)
    assert.deepEqual(shape(await app.inject({ method: 'POST', url: '/' })), BARE_204)
    assert.deepEqual(shape(await app.inject({ method: 'POST', url: '/', payload: '', headers: { 'content-type': 'application/json' } })), BARE_204)
    assert.deepEqual(seen.bodies, [null])
  })

  it('(3) validates with the validator compiled from the published form', async () => {
    const { app, seen } = await host()
    const arrival = (await app.inject({ method: 'GET', url: '/' })).json()
    assert.equal(arrival.s.properties.note.maxLength, 20)
    const longest = await app.inject({ method: 'POST', url: '/', payload: JSON.stringify({ note: 'x'.repeat(20) }) })
    assert.equal(longest.statusCode, 200)
    assert.equal(seen.bodies.length, 1)
  })

  it('checks own members only: required "constructor" is not satisfied by the prototype', async () => {
    const { app } = await host({ form: { type: 'object', required: ['constructor', 'toString'] } })
    assert.equal((await app.inject({ method: 'POST', url: '/', payload: '{}' })).statusCode, 204)
    assert.equal((await app.inject({ method: 'POST', url: '/', payload: '{"constructor":1,"toString":2}' })).statusCode, 200)
  })
})

describe('§5.3 response', () => {
  it('answers every rejection with identical status, headers and body', async () => {
    const { app } = await host({ bodyLimit: 64 })
    const causes: (string | Buffer)[] = ['{}', '{"note":"a","note":"b"}', '{"note":"a"} x', Buffer.from([0xff]), 'x'.repeat(65), '']
    const shapes = []
    for (const payload of causes) {
      shapes.push(shape(await app.inject({ method: 'POST', url: '/', payload, headers: { 'content-type': 'text/plain' } })))
    }
    for (const each of shapes) assert.deepEqual(each, BARE_204)
  })

  it('logs the reason at debug level for operators, never to the client', async () => {
    const lines: string[] = []
    const stream = { write: (line: string) => { lines.push(line) } }
    const { app } = await host({}, { logger: { level: 'debug', stream } })
    await app.inject({ method: 'POST', url: '/', payload: '{"note":"a","note":"b"}' })
    await app.inject({ method: 'POST', url: '/', payload: '{}' })
    const reasons = lines.map((line) => JSON.parse(line)).filter((entry) => entry.msg === 'gpt: act rejected')
    assert.equal(reasons.length, 2)
    assert.match(reasons[0].reason, /duplicate member "note" in the object at the root/)
    assert.match(reasons[1].reason, /required/)
    for (const entry of reasons) assert.equal(entry.level, 20)
  })

  it('looks for a duplicate member only where someone reads it: a debug log or explain', async (t) => {
    const describe = t.mock.method(ParseError.prototype, 'describe')
    const duplicate = { method: 'POST' as const, url: '/', payload: '{"note":"a","note":"b"}' }
    const quiet = await host({}, { logger: { level: 'info', stream: { write: () => {} } } })
    assert.equal((await quiet.app.inject(duplicate)).statusCode, 204)
    const silent = await host() // Fastify's logger off
    assert.equal((await silent.app.inject(duplicate)).statusCode, 204)
    assert.equal(describe.mock.callCount(), 0)
    await (await host({}, { logger: { level: 'debug', stream: { write: () => {} } } })).app.inject(duplicate)
    assert.equal(describe.mock.callCount(), 1)
    await (await host({ explain: true })).app.inject(duplicate)
    assert.equal(describe.mock.callCount(), 2)
  })

  it('a throwing act gets a bare 500 that leaks nothing, and the host keeps serving', async () => {
    const { app } = await host({ act: () => { throw new Error('secret database password') } })
    const response = await app.inject({ method: 'POST', url: '/', payload: '{"note":"a"}' })
    assert.equal(response.statusCode, 500)
    assert.equal(response.body, '')
    assert.equal((await app.inject({ method: 'GET', url: '/' })).statusCode, 200)
  })

  it('a rejecting async act and an unserializable result get the same bare 500', async () => {
    const rejects = await host({ act: async () => { throw new Error('secret') } })
    const cyclic = await host({ act: () => { const a: Record<string, unknown> = {}; a['self'] = a; return a } })
    const bigint = await host({ act: () => 1n })
    for (const { app } of [rejects, cyclic, bigint]) {
      const response = await app.inject({ method: 'POST', url: '/', payload: '{"note":"a"}' })
      assert.equal(response.statusCode, 500)
      assert.equal(response.body, '')
    }
  })
})

describe('§5.3 a failing act is a bare 500', () => {
  const SECRET = 'db password=hunter2'
  const revoked = (): object => {
    const { proxy, revoke } = Proxy.revocable({}, {})
    revoke()
    return proxy
  }
  const failures: [string, Act][] = [
    ['a then getter that throws', () => ({ get then () { throw new Error(SECRET) } })],
    ['a revoked proxy', revoked],
    ['a then() that throws', () => ({ then () { throw new Error(SECRET) } })],
    ['a thenable that rejects, then fulfils', () => ({ then (ok: (v: unknown) => void, fail: (e: unknown) => void) { fail(new Error(SECRET)); ok(SECRET) } })],
    ['a thenable that rejects twice', () => ({ then (_ok: unknown, fail: (e: unknown) => void) { fail(new Error(SECRET)); fail(new Error(SECRET)) } })],
    ['a thenable fulfilled with a thenable whose then getter throws', () => ({ then (ok: (v: unknown) => void) { ok({ get then () { throw new Error(SECRET) } }) } })],
    ['a promise of a revoked proxy', async () => revoked()],
    ['a rejection with a revoked proxy', () => Promise.reject(revoked())],
    ['a result whose toJSON throws', () => ({ toJSON () { throw new Error(SECRET) } })],
    ['a BigInt result', () => ({ n: 10n })],
    ['a result with a getter that throws', () => ({ a: [{ get b () { throw new Error(SECRET) } }] })],
    ['a throw after setting headers and a status', (_body, _request, reply) => {
      reply.code(201).header('x-note', SECRET).header('content-type', 'text/plain')
      throw new Error(SECRET)
    }],
    ['a rejection after setting headers', async (_body, _request, reply) => {
      reply.header('x-note', SECRET)
      await Promise.resolve()
      throw new Error(SECRET)
    }]
  ]

  /** Posts one act to a host whose address acts as given, logging at error level. */
  async function actOnce (act: Act, actTimeout: number | undefined): Promise<{ response: LightMyRequestResponse, errors: { msg: string, err?: { code?: string } }[] }> {
    const lines: string[] = []
    const { app } = await host({ act, ...(actTimeout === undefined ? {} : { actTimeout }) }, { logger: { level: 'error', stream: { write: (line: string) => { lines.push(line) } } } })
    const response = await app.inject({ method: 'POST', url: '/', payload: '{"note":"a"}' })
    await app.close()
    const errors = lines.map((line) => JSON.parse(line)).filter((entry) => entry.level === 50)
    return { response, errors }
  }

  for (const actTimeout of [undefined, 60_000]) {
    const timing = actTimeout === undefined ? 'without actTimeout' : 'with actTimeout'
    for (const [name, act] of failures) {
      it(`${name}, ${timing}: bare, logged once, leaking nothing`, async () => {
        const plain = await actOnce(() => { throw new Error('plain') }, actTimeout)
        const { response, errors } = await actOnce(act, actTimeout)
        assert.equal(response.statusCode, 500)
        assert.equal(response.body, '')
        assert.deepEqual(shape(response), shape(plain.response), 'the headers of any other bare 500')
        assert.ok(!JSON.stringify(response.headers).includes('hunter2') && !response.rawPayload.includes('hunter2'))
        // once, by Fastify's error path (its default error handler), as the named error
        assert.equal(errors.length, 1)
        assert.match(errors[0]?.msg ?? '', /^fastify-gpt address \/: the act failed: /)
        assert.equal(errors[0]?.err?.code, 'GPT_ERR_ACT_FAILED')
      })
    }

    it(`takes the first answer of a thenable that answers more than once, ${timing}`, async () => {
      const thenables: [Act, string][] = [
        [() => ({ then (ok: (v: unknown) => void) { ok('first'); ok('second') } }), '"first"'],
        [() => ({ then (ok: (v: unknown) => void, fail: (e: unknown) => void) { ok('first'); fail(new Error(SECRET)) } }), '"first"'],
        [() => ({ then (ok: (v: unknown) => void) { ok('first'); throw new Error(SECRET) } }), '"first"']
      ]
      for (const [act, body] of thenables) {
        const { response, errors } = await actOnce(act, actTimeout)
        assert.equal(response.statusCode, 200)
        assert.equal(response.body, body)
        assert.deepEqual(errors, [])
      }
    })
  }

  it('a thenable that never settles gets the bare 503 of actTimeout', async () => {
    const { response } = await actOnce(() => ({ then () {} }), 20)
    assert.equal(response.statusCode, 503)
    assert.equal(response.body, '')
  })

  it('an act that answered by itself keeps its answer when it then fails or runs out of time', { timeout: 10_000 }, async () => {
    const throws = await actOnce((_body, _request, reply) => { reply.code(201).send({ made: 1 }); throw new Error(SECRET) }, undefined)
    assert.equal(throws.response.statusCode, 201)
    assert.deepEqual(throws.response.json(), { made: 1 })
    assert.deepEqual(throws.errors.map((entry) => entry.msg), ['gpt: act failed'], 'still logged for operators')
    const lines: string[] = []
    const { app } = await host({ actTimeout: 20, act: (_body, _request, reply) => { reply.code(202).send(); return { then () {} } } }, { logger: { level: 'warn', stream: { write: (line: string) => { lines.push(line) } } } })
    assert.equal((await app.inject({ method: 'POST', url: '/', payload: '{"note":"a"}' })).statusCode, 202)
    while (!lines.some((line) => line.includes('gpt: act timed out'))) await new Promise((resolve) => setTimeout(resolve, 5))
  })

  it('leaves no timer behind, whatever the act did', async () => {
    const timers = (): number => process.getActiveResourcesInfo().filter((name) => name === 'Timeout').length
    const before = timers()
    for (const [, act] of failures) await actOnce(act, 60_000)
    await actOnce(() => ({ then (ok: (v: unknown) => void) { ok(1); ok(2) } }), 60_000)
    await actOnce(async () => 'quick', 60_000)
    assert.equal(timers(), before)
  })

  it('keeps the host\'s own headers on the 500, and none the act set', async () => {
    const app = Fastify()
    app.addHook('onRequest', async (_request, reply) => { reply.header('x-request-id', 'r1').header('cache-control', 'no-store') })
    await app.register(gpt, {
      form: {},
      act: (_body, _request, reply) => { reply.header('cache-control', SECRET).header('x-note', SECRET); throw new Error(SECRET) },
      rateLimit: false
    })
    const response = await app.inject({ method: 'POST', url: '/', payload: '1' })
    assert.equal(response.statusCode, 500)
    assert.equal(response.headers['x-request-id'], 'r1')
    assert.equal(response.headers['cache-control'], 'no-store')
    assert.equal(response.headers['x-note'], undefined)
  })

  it('leaves errors that are not the act\'s to the host\'s error handler', async () => {
    const app = Fastify()
    app.setErrorHandler((error: Error, _request, reply) => reply.code(418).send({ host: error.message }))
    app.addHook('preHandler', async () => { throw new Error('host hook') })
    await app.register(gpt, { form: {}, act: () => ({ get then () { throw new Error(SECRET) } }), rateLimit: false })
    const response = await app.inject({ method: 'POST', url: '/', payload: '1' })
    assert.equal(response.statusCode, 418)
    assert.deepEqual(response.json(), { host: 'host hook' })
  })
})

describe('§6 actor identity', () => {
  it('passes GPT-Actor to act on the request and never gates on it', async () => {
    const { app, seen } = await host()
    await app.inject({ method: 'POST', url: '/', payload: '{"note":"a"}', headers: { 'gpt-actor': 'claude -p' } })
    await app.inject({ method: 'POST', url: '/', payload: '{"note":"b"}' })
    await app.inject({ method: 'POST', url: '/', payload: '{"note":1}', headers: { 'gpt-actor': 'admin' } })
    assert.deepEqual(seen.actors, ['claude -p', undefined])
    assert.equal(seen.bodies.length, 2)
  })

  it('logs the actor with the act', async () => {
    const lines: string[] = []
    const { app } = await host({}, { logger: { level: 'info', stream: { write: (line: string) => { lines.push(line) } } } })
    await app.inject({ method: 'POST', url: '/', payload: '{"note":"a"}', headers: { 'gpt-actor': 'codex' } })
    const acts = lines.map((line) => JSON.parse(line)).filter((entry) => entry.msg === 'gpt: act')
    assert.equal(acts[0]?.gptActor, 'codex')
  })
})

describe('§7.4 rate limiting', () => {
  it('is on by default and answers 429 with Retry-After past the limit', async () => {
    const app = Fastify()
    await app.register(gpt, { form: {}, act: () => 1 })
    let status = 0
    let response
    for (let i = 0; i < 61 && status !== 429; i++) {
      response = await app.inject({ method: 'GET', url: '/' })
      status = response.statusCode
    }
    assert.equal(status, 429)
    assert.ok(Number(response?.headers['retry-after']) > 0)
    assert.equal(response?.body, '')
  })

  it('counts per address and per client, GET and POST together', async () => {
    const app = Fastify()
    await app.register(gpt, { form: {}, act: () => 1, rateLimit: { max: 2, timeWindow: 60_000 } })
    await app.register(gpt, { prefix: '/b', form: {}, act: () => 1, rateLimit: { max: 2, timeWindow: 60_000 } })
    assert.equal((await app.inject({ method: 'GET', url: '/' })).statusCode, 200)
    assert.equal((await app.inject({ method: 'POST', url: '/', payload: '1' })).statusCode, 200)
    assert.equal((await app.inject({ method: 'POST', url: '/', payload: '1' })).statusCode, 429)
    assert.equal((await app.inject({ method: 'GET', url: '/b' })).statusCode, 200, 'another address has its own count')
    assert.equal((await app.inject({ method: 'GET', url: '/', remoteAddress: '10.0.0.2' })).statusCode, 200, 'another client too')
  })

  it('limits before the body is read', async () => {
    const app = Fastify()
    let acted = 0
    await app.register(gpt, { form: {}, act: () => acted++, rateLimit: { max: 1, timeWindow: 60_000 } })
    await app.inject({ method: 'POST', url: '/', payload: '1' })
    const response = await app.inject({ method: 'POST', url: '/', payload: '1' })
    assert.equal(response.statusCode, 429)
    assert.equal(acted, 1)
  })

  it('rateLimit: false turns it off', async () => {
    const { app } = await host({ rateLimit: false, form: {} })
    for (let i = 0; i < 100; i++) assert.equal((await app.inject({ method: 'GET', url: '/' })).statusCode, 200)
  })
})

describe('other methods', () => {
  for (const method of ['PUT', 'PATCH', 'DELETE'] as const) {
    it(`${method} does not act`, async () => {
      const { app, seen } = await host()
      const response = await app.inject({ method, url: '/', payload: '{"note":"a"}' })
      assert.equal(response.statusCode, 404)
      assert.deepEqual(seen.bodies, [])
    })
  }
})
