// The one door to Fastify's internals: reading a reply's headers without getHeaders()'s copies
// must give what getHeaders() gives, on this Fastify and (with the symbol missing) on any other;
// a route's lone onSend hook comes off only where it is alone.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import fc from 'fast-check'
import Fastify, { type FastifyReply } from 'fastify'
import symbols from 'fastify/lib/symbols.js'
import { quiet } from '../../src/address/arrival.ts'
import { headerNames, headersOf } from '../../src/address/fastify-internals.ts'
import gpt from '../../src/index.ts'

const sorted = (names: string[]): string[] => [...names].sort()

describe('a reply\'s headers', () => {
  for (const raw of [false, true]) {
    it(`read directly agree with getHeaders(), ${raw ? 'with' : 'without'} headers set on Node's response`, async () => {
      const app = Fastify()
      const seen: string[] = []
      const check = (reply: FastifyReply): void => {
        for (const store of [symbols['kReplyHeaders'], undefined, Symbol('not Fastify\'s')]) {
          assert.deepEqual(sorted(headerNames(reply, store)), sorted(Object.keys(reply.getHeaders())))
          assert.deepEqual({ ...headersOf(reply, store) }, { ...reply.getHeaders() })
          assert.notEqual(headersOf(reply, store), headersOf(reply, store)) // a copy each time
        }
        seen.push(...headerNames(reply))
      }
      app.get('/', (_request, reply) => {
        reply.header('x-ratelimit-limit', '5').header('vary', 'Origin').header('set-cookie', ['a=1', 'b=2'])
        if (raw) reply.raw.setHeader('x-raw', 'yes').setHeader('vary', 'Accept')
        check(reply)
        reply.send('ok')
      })
      assert.equal((await app.inject({ url: '/' })).statusCode, 200)
      assert.deepEqual(sorted([...new Set(seen)]), sorted(['x-ratelimit-limit', 'vary', 'set-cookie', ...(raw ? ['x-raw'] : [])]))
    })
  }
})

describe('quiet', () => {
  it('takes off exactly the headers named (x-)ratelimit-*, set by Fastify or on Node\'s response', async () => {
    const name = fc.oneof(
      fc.constantFrom('x-ratelimit-limit', 'ratelimit-policy', 'ratelimit', 'x-ratelimit', 'ratelimits-x', 'xratelimit-a', 'retry-after', 'vary', 'etag', 'rx', 'x-rate'),
      fc.tuple(fc.constantFrom('', 'x-', 'r', 'x'), fc.constantFrom('ratelimit-', 'atelimit-', 'ratelimit'), fc.stringMatching(/^[a-z0-9-]{0,6}$/)).map((parts) => parts.join('')),
      fc.stringMatching(/^[a-z][a-z0-9-]{0,12}$/))
    const app = Fastify()
    let left: string[] = []
    app.post('/', (request, reply) => {
      const { fastify, node } = request.body as { fastify: string[], node: string[] }
      for (const header of fastify) reply.header(header, '1')
      for (const header of node) reply.raw.setHeader(header, '1')
      quiet(reply)
      left = Object.keys(reply.getHeaders())
      reply.send('')
    })
    await fc.assert(fc.asyncProperty(fc.array(name, { maxLength: 6 }), fc.array(name, { maxLength: 3 }), async (fastify, node) => {
      await app.inject({ method: 'POST', url: '/', payload: { fastify, node } })
      const expected = [...new Set([...fastify, ...node])].filter((header) => !/^(x-)?ratelimit-/.test(header))
      assert.deepEqual(sorted(left), sorted(expected))
    }), { numRuns: 300 })
  })
})

describe('the arrival\'s tag hook', () => {
  it('quiets the answer whether a hook of the host\'s answers first or changes the answer after', async () => {
    for (const late of [false, true]) {
      const app = Fastify()
      let tagged = 0
      app.addHook('onRequest', async (request, reply) => {
        reply.header('x-ratelimit-early', '1')
        if (request.headers.authorization === 'no') return reply.code(401).send() // answers before the handler
      })
      if (late) app.addHook('onSend', async (_request, reply, payload) => { reply.header('x-ratelimit-late', '1'); tagged++; return payload })
      await app.register(gpt, { prefix: '/note', form: { type: 'object' }, act: (body) => body, rateLimit: false })
      for (let i = 0; i < 3; i++) {
        const response = await app.inject({ url: '/note' })
        assert.equal(response.statusCode, 200)
        assert.equal(response.headers['x-ratelimit-early'], undefined)
        assert.equal(response.headers['x-ratelimit-late'], undefined)
        assert.match(String(response.headers.etag), /^"[\w-]{32}"$/)
      }
      assert.equal(tagged, late ? 3 : 0)
      const refused = await app.inject({ url: '/note', headers: { authorization: 'no' } })
      assert.equal(refused.statusCode, 401)
      assert.equal(refused.headers['x-ratelimit-early'], undefined)
      await app.close()
    }
  })
})

describe('the arrival with no hook of the host\'s', () => {
  it('answers as with one (the same bytes, tag and headers)', async () => {
    const hosts = await Promise.all([false, true].map(async (hooked) => {
      const app = Fastify()
      let ran = 0
      if (hooked) app.addHook('onSend', async (_request, _reply, payload) => { ran++; return payload })
      await app.register(gpt, { prefix: '/note', form: { type: 'object' }, act: (body) => body, rateLimit: false })
      return { app, ran: () => ran }
    }))
    for (const headers of [{}, { accept: 'text/html' }, { 'if-none-match': '*' }]) {
      const [plain, hooked] = await Promise.all(hosts.map(({ app }) => app.inject({ url: '/note', headers })))
      const { date: _a, ...one } = plain!.headers
      const { date: _b, ...other } = hooked!.headers
      assert.deepEqual(one, other)
      assert.equal(plain!.body, hooked!.body)
    }
    assert.equal(hosts[1]!.ran(), 3)
  })
})

describe('the act with no hook of the host\'s', () => {
  it('answers every failed act with the bare 500, whatever succeeds or fails beside it (fast-check)', async () => {
    // A failure's answer, made by the host's slow error handler while others' acts run, is bare.
    const app = Fastify()
    app.setErrorHandler(async (_error, _request, reply) => {
      await new Promise((resolve) => setTimeout(resolve, 5)) // others' acts run meanwhile
      return reply.code(418).header('x-host', 'leaked').send({ leaked: true })
    })
    const form = { type: 'object', properties: { do: { enum: ['ok', 'throw', 'reject', 'slow'] } }, required: ['do'] } as const
    await app.register(gpt, {
      prefix: '/a',
      form,
      rateLimit: false,
      act: (body) => {
        if (body.do === 'throw') throw new Error('no')
        if (body.do === 'reject') return Promise.reject(new Error('no'))
        if (body.do === 'slow') return new Promise((resolve) => setTimeout(() => resolve({ did: 'slow' }), 3))
        return { did: 'ok' }
      }
    })
    const kind = fc.constantFrom('ok', 'throw', 'reject', 'slow', 'refused')
    await fc.assert(fc.asyncProperty(fc.array(kind, { minLength: 1, maxLength: 12 }), async (kinds) => {
      const answers = await Promise.all(kinds.map((what) => app.inject({ method: 'POST', url: '/a', payload: what === 'refused' ? '{"do":1}' : JSON.stringify({ do: what }) })))
      answers.forEach((answer, i) => {
        const what = kinds[i]
        if (what === 'ok' || what === 'slow') {
          assert.equal(answer.statusCode, 200)
          assert.deepEqual(answer.json(), { did: what })
        } else if (what === 'refused') {
          assert.equal(answer.statusCode, 204)
          assert.equal(answer.body, '')
        } else {
          assert.equal(answer.statusCode, 500, what)
          assert.equal(answer.body, '')
          assert.equal(answer.headers['x-host'], undefined)
        }
      })
    }), { numRuns: 60 })
    await app.close()
  })
})
