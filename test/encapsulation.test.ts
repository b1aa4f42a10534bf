import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import rateLimit from '@fastify/rate-limit'
import Fastify, { type FastifyInstance, type InjectOptions, type LightMyRequestResponse } from 'fastify'
import gpt from '../src/index.ts'

const closed = { type: 'object', properties: { a: { type: 'integer' } }, required: ['a'], additionalProperties: false } as const

/** A host with its own routes, and the same routes once more beside two addresses. */
async function hostWith (addresses: boolean): Promise<FastifyInstance> {
  const app = Fastify()
  if (addresses) {
    await app.register(gpt, { form: closed, act: (body) => ({ root: body }), rateLimit: { max: 3, timeWindow: 60_000 } })
    await app.register(gpt, { prefix: '/poll', form: { enum: ['x', 'y'] }, act: (body) => ({ poll: body }) })
  }
  app.post('/echo', { schema: { body: { type: 'object', properties: { n: { type: 'integer' } } } } }, async (request) => request.body)
  app.post('/text', async (request) => ({ type: typeof request.body }))
  app.get('/fail', async () => { throw Object.assign(new Error('teapot'), { statusCode: 418 }) })
  await app.ready()
  return app
}

const requests = [
  { method: 'POST', url: '/echo', payload: '{"n":"1"}', headers: { 'content-type': 'application/json' } },
  { method: 'POST', url: '/echo', payload: '{"n":1,"n":2}', headers: { 'content-type': 'application/json' } },
  { method: 'POST', url: '/echo', payload: '{"n":1}', headers: { 'content-type': 'text/plain' } },
  { method: 'POST', url: '/echo', payload: '{"n":', headers: { 'content-type': 'application/json' } },
  { method: 'POST', url: '/text', payload: 'hello', headers: { 'content-type': 'text/plain' } },
  { method: 'GET', url: '/fail' },
  { method: 'GET', url: '/missing' }
] as const

describe('an address stays inside its own encapsulated instance', () => {
  it('leaves the host\'s other routes exactly as they were', async () => {
    const bare = await hostWith(false)
    const mounted = await hostWith(true)
    for (const request of requests) {
      const expected = await bare.inject(request)
      const actual = await mounted.inject(request)
      const label = `${request.method} ${request.url} ${'payload' in request ? request.payload : ''}`
      assert.equal(actual.statusCode, expected.statusCode, label)
      assert.equal(actual.body, expected.body, label)
      assert.equal(actual.headers['content-type'], expected.headers['content-type'], label)
    }
  })

  it('applies its rate limit to its own routes only', async () => {
    const app = await hostWith(true)
    for (let i = 0; i < 10; i++) {
      assert.equal((await app.inject({ method: 'POST', url: '/text', payload: 'x', headers: { 'content-type': 'text/plain' } })).statusCode, 200)
    }
    for (let i = 0; i < 3; i++) assert.equal((await app.inject({ method: 'GET', url: '/' })).statusCode, 200)
    assert.equal((await app.inject({ method: 'GET', url: '/' })).statusCode, 429)
    assert.equal((await app.inject({ method: 'GET', url: '/poll' })).statusCode, 200)
  })

  it('mounts several addresses with their own forms on one host', async () => {
    const app = await hostWith(true)
    assert.deepEqual((await app.inject({ method: 'GET', url: '/poll' })).json().s, { enum: ['x', 'y'] })
    assert.deepEqual((await app.inject({ method: 'GET', url: '/' })).json().s, closed)
    assert.deepEqual((await app.inject({ method: 'POST', url: '/poll', payload: '"x"' })).json(), { poll: 'x' })
    assert.equal((await app.inject({ method: 'POST', url: '/poll', payload: '{"a":1}' })).statusCode, 204)
    assert.deepEqual((await app.inject({ method: 'POST', url: '/', payload: '{"a":1}' })).json(), { root: { a: 1 } })
  })

  it('hands host hook errors to the host\'s error handler, not the 204', async () => {
    const app = Fastify()
    app.setErrorHandler((error: Error, _request, reply) => reply.code(401).send({ host: error.message }))
    app.addHook('onRequest', async (request) => {
      if (request.headers.authorization !== 'yes') throw new Error('who are you')
    })
    await app.register(gpt, { form: {}, act: () => 'ok', rateLimit: false })
    const response = await app.inject({ method: 'POST', url: '/', payload: '1' })
    assert.equal(response.statusCode, 401)
    assert.deepEqual(response.json(), { host: 'who are you' })
    assert.equal((await app.inject({ method: 'POST', url: '/', payload: '1', headers: { authorization: 'yes' } })).body, '"ok"')
  })

  it('works beside a host that uses @fastify/accepts itself', async () => {
    const { default: accepts } = await import('@fastify/accepts')
    const app = Fastify()
    await app.register(accepts)
    await app.register(gpt, { form: {}, act: () => 1, rateLimit: false })
    app.get('/neg', async (request) => request.accepts().type(['json', 'html']))
    const page = await app.inject({ method: 'GET', url: '/', headers: { accept: 'text/html' } })
    assert.match(String(page.headers['content-type']), /text\/html/)
    assert.equal((await app.inject({ method: 'GET', url: '/neg', headers: { accept: 'text/html' } })).body, 'html')
  })

  it('adds no method to the requests or replies of the host (the negotiation is a plain function)', async () => {
    // A method decorated inside an address gives its instance Request and Reply prototypes of their
    // own shape, which Fastify's hot paths then meet beside the host's (docs/benchmarks.md).
    const app = Fastify()
    const names = new Set<string>()
    app.addHook('onRequest', async (request, reply) => {
      for (const object of [request, reply]) {
        for (let proto = Object.getPrototypeOf(object); proto !== null; proto = Object.getPrototypeOf(proto)) {
          for (const name of Object.getOwnPropertyNames(proto)) names.add(name)
        }
      }
    })
    await app.register(gpt, { prefix: '/note', form: closed, act: (body) => body, rateLimit: false })
    const page = await app.inject({ method: 'GET', url: '/note', headers: { accept: 'text/html' } })
    assert.match(String(page.headers['content-type']), /^text\/html/)
    assert.equal(names.has('send'), true) // the walk reaches Fastify's own methods
    assert.equal(names.has('accepts'), false)
  })
})

describe('§3.2, §5.3 beside a rate limit the host applies to every route', () => {
  const RATE_LIMIT_HEADER = /^(x-)?ratelimit-/i

  /** A host limiting every route (and adding a policy header of its own), with one address at /a. */
  async function limitedHost (enableDraftSpec: boolean, ownLimit: boolean, max = 1000): Promise<FastifyInstance> {
    const app = Fastify()
    await app.register(rateLimit, { global: true, max, timeWindow: 60_000, enableDraftSpec })
    app.addHook('onRequest', async (_request, reply) => { reply.header('ratelimit-policy', `${max};w=60`).header('x-ratelimit-used', '1') })
    app.get('/ping', async () => 'pong')
    await app.register(gpt, { prefix: '/a', form: closed, act: (body) => ({ got: body }), ...(ownLimit ? {} : { rateLimit: false }) })
    await app.ready()
    return app
  }

  /** Status, headers but the date, and body. */
  const shape = (response: LightMyRequestResponse): unknown => {
    const { date, ...headers } = response.headers
    return { status: response.statusCode, headers, body: response.body }
  }

  for (const enableDraftSpec of [false, true]) {
    for (const ownLimit of [true, false]) {
      const label = `${enableDraftSpec ? 'draft-spec' : 'x-ratelimit'} headers, the address's own limit ${ownLimit ? 'on' : 'off'}`

      it(`${label}: two of each request get the same status, headers and body, with no rate-limit header`, async () => {
        const app = await limitedHost(enableDraftSpec, ownLimit)
        const { etag } = (await app.inject({ method: 'GET', url: '/a' })).headers
        const pairs: [InjectOptions, InjectOptions][] = [
          [{ method: 'GET', url: '/a' }, { method: 'GET', url: '/a' }],
          [{ method: 'GET', url: '/a', headers: { accept: 'text/html' } }, { method: 'GET', url: '/a', headers: { accept: 'text/html' } }],
          [{ method: 'HEAD', url: '/a' }, { method: 'HEAD', url: '/a' }],
          [{ method: 'GET', url: '/a', headers: { 'if-none-match': String(etag) } }, { method: 'GET', url: '/a', headers: { 'if-none-match': String(etag) } }],
          [{ method: 'POST', url: '/a', payload: '{"a":1}' }, { method: 'POST', url: '/a', payload: '{"a":1}' }],
          [{ method: 'POST', url: '/a', payload: '{}' }, { method: 'POST', url: '/a', payload: '{"a":1,"a":2}' }]
        ]
        for (const [first, second] of pairs) {
          const one = await app.inject(first)
          const two = await app.inject(second)
          const name = `${first.method ?? ''} ${JSON.stringify(first.headers ?? first.payload ?? '')}`
          assert.deepEqual(shape(two), shape(one), name)
          assert.deepEqual(Object.keys(one.headers).filter((header) => RATE_LIMIT_HEADER.test(header)), [], name)
        }
        const ping = await app.inject({ method: 'GET', url: '/ping' })
        const limitHeader = enableDraftSpec ? 'ratelimit-remaining' : 'x-ratelimit-remaining'
        assert.ok(Number(ping.headers[limitHeader]) > 0, 'the host\'s own routes keep the host\'s headers')
        assert.equal(ping.headers['ratelimit-policy'], '1000;w=60')
        assert.equal(ping.headers['x-ratelimit-used'], '1')
      })
    }

    it(`${enableDraftSpec ? 'draft-spec' : 'x-ratelimit'} headers: the host's 429 on the address is bare with Retry-After`, async () => {
      const app = await limitedHost(enableDraftSpec, false, 1)
      assert.equal((await app.inject({ method: 'GET', url: '/a' })).statusCode, 200)
      const limited = await app.inject({ method: 'POST', url: '/a', payload: '{"a":1}' })
      assert.equal(limited.statusCode, 429)
      assert.equal(limited.body, '')
      assert.ok(Number(limited.headers['retry-after']) > 0)
      assert.deepEqual(Object.keys(limited.headers).filter((header) => RATE_LIMIT_HEADER.test(header)), [])
    })
  }
})
