// A call reaches its address as a request of Node's own would (src/mcp/enter.ts): the hooks a host
// writes against Node's request and response (the raw fields, the peer, a streamed or hijacked
// answer, an informational 103) see and do on a call what they see and do on a POST over HTTP.
import assert from 'node:assert/strict'
import { Readable } from 'node:stream'
import { describe, it } from 'node:test'
import type { FastifyReply, FastifyRequest } from 'fastify'
import gpt from '../../src/index.ts'
import { bridged, callText, raw } from './bridge-host.ts'

const form = { type: 'object', properties: { note: { type: 'string', maxLength: 20 } }, required: ['note'], additionalProperties: false } as const
const CALL = { headers: { 'mcp-protocol-version': '2025-06-18' }, body: callText('admin', '{"note":"hi"}') }
const POST = { path: '/admin', headers: { 'mcp-protocol-version': undefined, accept: 'application/json' }, body: '{"note":"hi"}' }

type Gate = (request: FastifyRequest, reply: FastifyReply) => Promise<unknown> | FastifyReply | undefined

/** A host whose one address has `gate` as its own onRequest hook; the acts it ran. */
async function hostWith (gate: Gate): Promise<{ port: number, acts: unknown[], close: () => Promise<void> }> {
  const acts: unknown[] = []
  const host = await bridged((app) => {
    app.register(async (scope) => {
      scope.addHook('onRequest', gate)
      await scope.register(gpt, { form, act: (body) => { acts.push(body); return { ok: true } }, rateLimit: false })
    }, { prefix: '/admin' })
  }, { rateLimit: false }, {}, 'silent')
  return { port: host.port, acts, close: () => host.close() }
}

describe('a call as Node hands a request on', () => {
  it('a hook reads the raw fields, the peer and the protocol of the MCP request, as it would a POST', async (t) => {
    const seen: unknown[] = []
    const host = await hostWith(async (request) => {
      const names = request.raw.rawHeaders.filter((_, i) => i % 2 === 0)
      seen.push([request.method, request.ip, request.protocol, typeof request.socket.remotePort, names.includes('x-tenant'), request.headers['x-tenant']])
    })
    t.after(() => host.close())
    const tenant = { 'x-tenant': 'blue' }
    const posted = await raw(host.port, { ...POST, headers: { ...POST.headers, ...tenant } })
    const called = await raw(host.port, { ...CALL, headers: { ...CALL.headers, ...tenant } })
    assert.deepEqual([posted.status, called.status], [200, 200])
    assert.deepEqual(seen, [['POST', '127.0.0.1', 'http', 'number', true, 'blue'], ['POST', '127.0.0.1', 'http', 'number', true, 'blue']])
    assert.equal(host.acts.length, 2)
  })

  it("a hook's fields set on Node's response, and one taken off again, are the answer's as over HTTP", async (t) => {
    const host = await hostWith((_request, reply) => {
      reply.raw.setHeader('WWW-Authenticate', 'Bearer realm="admin"')
      reply.raw.setHeader('X-Gone', 'soon')
      if (reply.hasHeader('x-gone') && reply.getHeader('www-authenticate') !== undefined) reply.removeHeader('x-gone')
      return reply.code(401).send({ error: 'token needed' })
    })
    t.after(() => host.close())
    // (whether reply.removeHeader reaches Node's response depends on Fastify's version: as POST does)
    const [posted, called] = [await raw(host.port, POST), await raw(host.port, CALL)]
    const seen = (answer: typeof posted): unknown[] => [answer.status, answer.headers['www-authenticate'], answer.headers['x-gone'], answer.body]
    assert.deepEqual(seen(posted).filter((_, i) => i !== 2), [401, 'Bearer realm="admin"', '{"error":"token needed"}'])
    assert.deepEqual(seen(called), seen(posted))
    assert.deepEqual(host.acts, [])
  })

  it('a refusal a hook streams, or writes itself on a hijacked reply, reaches the client whole', async (t) => {
    const host = await hostWith((request, reply) => {
      if (request.headers['x-way'] === 'stream') return reply.code(403).type('text/plain').send(Readable.from(['not ', 'for ', 'you']))
      reply.hijack()
      reply.raw.writeHead(429, ['content-type', 'text/plain', 'retry-after', '7'])
      reply.raw.flushHeaders()
      reply.raw.end('slow down')
      return undefined
    })
    t.after(() => host.close())
    for (const base of [POST, CALL]) {
      const streamed = await raw(host.port, { ...base, headers: { ...base.headers, 'x-way': 'stream' } })
      assert.deepEqual([streamed.status, streamed.headers['content-type'], streamed.body], [403, 'text/plain', 'not for you'])
      const written = await raw(host.port, { ...base, headers: { ...base.headers, 'x-way': 'hijack' } })
      assert.deepEqual([written.status, written.headers['retry-after'], written.body], [429, '7', 'slow down'])
    }
    assert.deepEqual(host.acts, [])
  })

  it('an informational 103 a hook sends first is no part of the answer: the act runs and its result comes back', async (t) => {
    const host = await hostWith(async (_request, reply) => { reply.writeEarlyHints({ link: '</style.css>; rel=preload' }) })
    t.after(() => host.close())
    const called = await raw(host.port, CALL)
    assert.equal(called.status, 200)
    assert.match(called.body, /"structuredContent":\{"ok":true\}/)
    assert.deepEqual(host.acts, [{ note: 'hi' }])
  })

  it('an answer a hook tears down before it ends: the call is not answered by the address, and says so with a retry', async (t) => {
    const host = await hostWith((_request, reply) => {
      reply.hijack()
      reply.raw.destroy()
      return undefined
    })
    t.after(() => host.close())
    const called = await raw(host.port, CALL)
    assert.deepEqual([called.status, called.headers['retry-after'], JSON.parse(called.body).error.code], [503, '1', -32000])
    assert.deepEqual(host.acts, [])
  })
})
