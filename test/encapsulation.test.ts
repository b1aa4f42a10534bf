import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import Fastify, { type FastifyInstance } from 'fastify'
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
})
