// The bridge is never a way around a host's hook: an address whose acts a hook gates (an auth
// check in its own scope) is served only by a bridge whose requests pass that same hook.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import bearerAuth from '@fastify/bearer-auth'
import Fastify, { type FastifyInstance, type InjectOptions } from 'fastify'
import symbols from 'fastify/lib/symbols.js'
import gpt from '../../src/index.ts'
import { gatesOf } from '../../src/address/fastify-internals.ts'
import { Bridge } from '../../src/mcp/bridge.ts'
import mcp from '../../src/mcp/index.ts'
import { Listeners } from '../../src/mcp/stream.ts'
import { toolName } from '../../src/mcp/tools.ts'

const KEY = 'a-long-random-key'
const form = { type: 'string' } as const
const list = { method: 'POST' as const, url: '/mcp', headers: { 'content-type': 'application/json' }, payload: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}' }
const call = (name: string, headers: Record<string, string> = {}): InjectOptions => ({
  method: 'POST' as const,
  url: '/mcp',
  headers: { 'content-type': 'application/json', ...headers },
  payload: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name, arguments: { value: 'hi' } } })
})

/** docs/hosts.md's "auth for acts only": a bearer check, in the address's scope, for POST. */
async function guardedScope (app: FastifyInstance, within?: (scope: FastifyInstance) => Promise<void>): Promise<string[]> {
  const acted: string[] = []
  await app.register(async (scope) => {
    await scope.register(bearerAuth, { keys: new Set([KEY]), addHook: false })
    scope.addHook('onRequest', function actsNeedTheKey (request, reply, done) {
      if (request.method !== 'POST') return done()
      scope.verifyBearerAuth?.(request, reply, done)
    })
    await scope.register(gpt, { prefix: '/notes', form, act: (note) => { acted.push(note); return { pinned: note } }, rateLimit: false })
    await within?.(scope)
  })
  return acted
}

describe('a host hook gating an address', () => {
  it('fails ready() when the bridge\'s requests do not pass it, naming the address, the phase and the hook', async (t) => {
    const app = Fastify()
    t.after(() => app.close())
    await guardedScope(app)
    await app.register(mcp)
    await assert.rejects(async () => { await app.ready() }, (error: Error & { code?: string }) => {
      assert.equal(error.code, 'GPT_ERR_MCP_UNGUARDED')
      assert.match(error.message, /\/notes runs onRequest hooks \(actsNeedTheKey\)/)
      assert.match(error.message, /"addresses" option/)
      return true
    })
  })

  it('serves it from a bridge registered in the same scope after the hook: a call needs the key as a post does', async (t) => {
    const app = Fastify()
    t.after(() => app.close())
    const acted = await guardedScope(app, async (scope) => { await scope.register(mcp) })
    await app.ready()
    assert.equal((await app.inject(call('notes'))).statusCode, 401)
    assert.equal((await app.inject({ method: 'POST', url: '/notes', payload: '"hi"' })).statusCode, 401)
    assert.deepEqual(acted, [])
    const answered = await app.inject(call('notes', { authorization: `Bearer ${KEY}` }))
    assert.equal(answered.json().result.structuredContent.pinned, 'hi')
    assert.deepEqual(acted, ['hi'])
  })

  it('leaves it out with the addresses option, serving the others', async (t) => {
    const app = Fastify()
    t.after(() => app.close())
    const acted = await guardedScope(app)
    await app.register(gpt, { prefix: '/open', form, act: (text) => ({ text }), rateLimit: false })
    await app.register(mcp, { addresses: (path) => path !== '/notes' })
    await app.ready()
    const tools = (await app.inject(list)).json().result.tools as Array<{ name: string }>
    assert.deepEqual(tools.map((tool) => tool.name), ['open'])
    assert.equal((await app.inject(call('notes'))).json().error.code, -32602) // no such tool here
    assert.deepEqual(acted, [])
  })

  it('serves an address under a host hook the bridge passes too (one the host put on every route)', async (t) => {
    const app = Fastify()
    t.after(() => app.close())
    const seen: string[] = []
    app.addHook('onRequest', async (request) => { seen.push(request.url) })
    await app.register(gpt, { prefix: '/open', form, act: (text) => ({ text }), rateLimit: false })
    await app.register(mcp)
    await app.ready()
    assert.equal((await app.inject(call('open'))).json().result.structuredContent.text, 'hi')
    assert.deepEqual(seen, ['/mcp'])
  })

  it('refuses an address whose hooks cannot be read (a Fastify without them), rather than guess', async (t) => {
    const app = Fastify()
    t.after(() => app.close())
    await app.register(gpt, { prefix: '/open', form, act: (text) => ({ text }), rateLimit: false })
    await app.ready()
    const bridge = new Bridge({ where: '/mcp', serverInfo: { name: 'x', version: '1' }, instructions: undefined, toolName, serves: () => true, listeners: new Listeners(1, 60_000) })
    assert.throws(() => { bridge.start(app.server, undefined) }, /hooks before the acts of \/open cannot be read/)
  })
})

describe('gatesOf', () => {
  it('reads an instance\'s request hooks by phase, and nothing where they are not Fastify\'s', async () => {
    const app = Fastify()
    const hook = async (): Promise<void> => {}
    app.addHook('preHandler', hook)
    await app.ready()
    const gates = gatesOf(app)
    assert.deepEqual(gates?.preHandler, [hook])
    assert.deepEqual(gates?.onRequest, [])
    await app.close()
    assert.equal(gatesOf({}), undefined)
    const kHooks = (symbols as unknown as Record<string, symbol>)['kHooks'] as symbol
    assert.equal(gatesOf({ [kHooks]: null }), undefined)
    assert.equal(gatesOf({ [kHooks]: { onRequest: [], preParsing: 'not a list' } }), undefined)
  })
})

describe('an Origin on a request that came in on a public address', () => {
  it('must be the host\'s own, or one allowed', async () => {
    const { allowedOf, rebound } = await import('../../src/mcp/guard.ts')
    const checked = allowedOf(undefined, ['https://app.example'])
    assert.equal(rebound(checked, '10.0.0.5', 'api.example', undefined), undefined, 'no Origin: not a browser')
    assert.equal(rebound(checked, '10.0.0.5', 'api.example', 'https://api.example'), undefined, 'its own origin')
    assert.equal(rebound(checked, '10.0.0.5', 'api.example:8443', 'https://api.example:8443'), undefined, 'with its port')
    assert.equal(rebound(checked, '10.0.0.5', 'api.example', 'https://app.example'), undefined, 'allowed')
    assert.equal(rebound(checked, '10.0.0.5', 'api.example', 'https://evil.example'), 'Invalid Origin header')
    assert.equal(rebound(checked, '10.0.0.5', 'api.example', 'https://api.example:8443'), 'Invalid Origin header', 'another port')
    assert.equal(rebound(checked, '10.0.0.5', undefined, 'https://api.example'), 'Invalid Origin header', 'no Host to compare')
    assert.equal(rebound(checked, '10.0.0.5', 'api.example', 'null'), 'Invalid Origin header', 'an opaque origin')
  })
})
