// One door into the act: whatever gates an address's POST gates its tool, and whatever gates its
// GET hides its tool and resource, by construction (src/address/door.ts). Host layouts as hosts
// write them, with the real plugins (@fastify/bearer-auth, @fastify/auth, @fastify/autoload): an
// auth check in any request phase, added before the address, after it (awaited or not), in
// `.after()`, through a root `onRegister` or `onRoute` hook, or at the root by URL; then a
// fast-check search over layouts mixing them. For every layout: POST refused by a hook ⇔ tools/call
// refused, the act runs the same number of times, and GET refused ⇔ the tool not listed.
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { describe, it } from 'node:test'
import auth from '@fastify/auth'
import autoload from '@fastify/autoload'
import bearerAuth from '@fastify/bearer-auth'
import fc from 'fast-check'
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest, type InjectOptions } from 'fastify'
import gpt from '../../src/index.ts'
import mcp from '../../src/mcp/index.ts'
import { REFUSAL } from '../../src/mcp/call.ts'

const KEY = 'a-long-random-key'
const BEARER = { authorization: `Bearer ${KEY}` }
const form = { type: 'object', properties: { note: { type: 'string', maxLength: 20 } }, required: ['note'], additionalProperties: false } as const

const PHASES = ['onRequest', 'preParsing', 'preValidation', 'preHandler'] as const
type Phase = (typeof PHASES)[number]
const MECHANISMS = ['hook', 'bearer-auth', 'fastify-auth'] as const
type Mechanism = (typeof MECHANISMS)[number]
const PLACES = ['before', 'after', 'after-unawaited', 'after()', 'onRegister', 'onRoute', 'root-url'] as const
type Place = (typeof PLACES)[number]

interface Layout {
  readonly mechanism: Mechanism
  readonly phase: Phase
  readonly place: Place
  /** What the check gates: acts only (POST), or every request (GET too). */
  readonly gates: 'acts' | 'all'
  /** Where the bridge is registered: before the addresses' scope, or after everything. */
  readonly bridge: 'first' | 'last'
  /** A root hook every request passes (a logger), counting its runs. */
  readonly rootHook: boolean
}

type Done = (error?: Error) => void
type Check = (request: FastifyRequest, reply: FastifyReply, done: Done) => void

/** The check as the mechanism writes it, for the requests `gates` names. */
function checkOf (app: FastifyInstance, layout: Layout): Check {
  const applies = (request: FastifyRequest): boolean => layout.gates === 'all' || request.method === 'POST'
  const plain: Check = (request, reply, done) => {
    if (request.headers.authorization === `Bearer ${KEY}`) return done()
    reply.code(401).header('www-authenticate', 'Bearer realm="admin"').send({ error: 'token needed' })
  }
  const verify = layout.mechanism === 'hook'
    ? plain
    : layout.mechanism === 'bearer-auth'
      ? (request: FastifyRequest, reply: FastifyReply, done: Done) => { (app as unknown as { verifyBearerAuth: Check }).verifyBearerAuth(request, reply, done) }
      : (app as unknown as { auth: (fns: unknown[]) => Check }).auth([async (request: FastifyRequest) => {
          if (request.headers.authorization !== `Bearer ${KEY}`) throw Object.assign(new Error('token needed'), { statusCode: 401 })
        }])
  return function adminCheck (request, reply, done) {
    if (!applies(request)) return done()
    verify.call(app, request, reply, done)
  }
}

/** The check as a hook of `phase` (a preParsing hook is handed the payload and passes it on). */
function hookOf (check: Check, phase: Phase): (...args: unknown[]) => void {
  if (phase !== 'preParsing') return check as (...args: unknown[]) => void
  return (request, reply, payload, done) => {
    check(request as FastifyRequest, reply as FastifyReply, (error) => { (done as (e: Error | null, p: unknown) => void)(error ?? null, payload) })
  }
}

interface Built {
  readonly app: FastifyInstance
  readonly acted: unknown[]
  readonly rootRuns: { count: number }
}

/** The host of one layout: an address `/admin` gated as the layout says, `/open` beside it, and the bridge. */
async function build (layout: Layout): Promise<Built> {
  const app = Fastify()
  const acted: unknown[] = []
  const rootRuns = { count: 0 }
  if (layout.rootHook) app.addHook('onRequest', async () => { rootRuns.count++ })
  await app.register(bearerAuth, { keys: new Set([KEY]), addHook: false })
  await app.register(auth)
  if (layout.bridge === 'first') await app.register(mcp)
  const hook = hookOf(checkOf(app, layout), layout.phase)
  const address = { form, act: (body: unknown) => { acted.push(body); return { ok: true } }, rateLimit: false as const }
  const { place, phase } = layout
  if (place === 'onRegister') {
    app.addHook('onRegister', (instance, options) => {
      if ((options as { prefix?: string }).prefix === '/admin') instance.addHook(phase as 'onRequest', hook as never)
    })
  }
  if (place === 'onRoute') {
    app.addHook('onRoute', (route) => {
      if (!route.url.startsWith('/admin')) return
      const existing = route[phase] as unknown
      route[phase] = [hook, ...(existing === undefined ? [] : Array.isArray(existing) ? existing : [existing])] as never
    })
  }
  if (place === 'root-url') {
    const byUrl = hookOf((request, reply, done) => { request.url.startsWith('/admin') ? checkOf(app, layout)(request, reply, done) : done() }, phase)
    app.addHook(phase as 'onRequest', byUrl as never)
  }
  await app.register(async (scope) => {
    const add = (): void => { scope.addHook(phase as 'onRequest', hook as never) }
    if (place === 'before') add()
    if (place === 'after-unawaited') {
      scope.register(gpt, { prefix: '/admin', ...address }) // not awaited, as hosts write it
      add()
    } else if (place === 'after()') {
      scope.register(gpt, { prefix: '/admin', ...address }).after(() => { add() })
    } else {
      await scope.register(gpt, { prefix: '/admin', ...address })
      if (place === 'after') add()
    }
  })
  await app.register(gpt, { prefix: '/open', ...address, act: () => ({ open: true }) })
  if (layout.bridge === 'last') await app.register(mcp)
  await app.ready()
  return { app, acted, rootRuns }
}

const rpc = (body: unknown, headers: Record<string, string> = {}): InjectOptions => ({
  method: 'POST', url: '/mcp', headers: { 'content-type': 'application/json', 'mcp-protocol-version': '2025-11-25', ...headers }, payload: JSON.stringify(body)
})
const callOf = (headers?: Record<string, string>): InjectOptions => rpc({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'admin', arguments: { note: 'hi' } } }, headers)

/** Holds the one door's promise for `layout`, with and without the key. */
async function holds (layout: Layout): Promise<void> {
  const { app, acted, rootRuns } = await build(layout)
  try {
    const what = JSON.stringify(layout)
    for (const headers of [{}, BEARER]) {
      const before = acted.length
      const post = await app.inject({ method: 'POST', url: '/admin', headers: { 'content-type': 'application/json', ...headers }, payload: '{"note":"hi"}' })
      const posted = acted.length - before
      const call = await app.inject(callOf(headers))
      const called = acted.length - before - posted
      assert.equal(called, posted, `the act runs as often by a call as by POST: ${what}`)
      if (post.statusCode === 200) {
        assert.deepEqual(call.json().result.structuredContent, { ok: true }, what)
      } else {
        assert.equal(post.statusCode, 401, what)
        assert.equal(call.statusCode, 401, `a call gets the hook's own answer: ${what}`)
        assert.equal(call.headers['www-authenticate'], post.headers['www-authenticate'], what)
      }
      const get = await app.inject({ method: 'GET', url: '/admin', headers })
      const tools = (await app.inject(rpc({ jsonrpc: '2.0', id: 3, method: 'tools/list' }, headers))).json().result.tools as Array<{ name: string }>
      assert.equal(tools.some((tool) => tool.name === 'admin'), get.statusCode === 200, `listed ⇔ its GET answers: ${what}`)
      assert.ok(tools.some((tool) => tool.name === 'open'), what)
      const read = await app.inject(rpc({ jsonrpc: '2.0', id: 4, method: 'resources/read', params: { uri: 'http://localhost/admin' } }, headers))
      assert.equal(read.statusCode, get.statusCode === 200 ? 200 : get.statusCode, `read ⇔ its GET: ${what}`)
      if (get.statusCode === 200) assert.equal(read.json().result.contents[0].text, get.body, 'the very bytes its GET sends')
    }
    assert.equal(acted.length, 2, `acted once by POST and once by a call, with the key only: ${JSON.stringify(layout)}`)
    if (layout.rootHook) assert.ok(rootRuns.count > 0)
  } finally {
    await app.close()
  }
}

describe('a host hook gating an address gates its tool (one door)', () => {
  // Every mechanism, phase and place; @fastify/bearer-auth's own hook where it can stand.
  for (const mechanism of MECHANISMS) {
    for (const place of PLACES) {
      it(`${mechanism}, added ${place}, in every phase, for acts and for all`, async () => {
        for (const phase of PHASES) {
          for (const gates of ['acts', 'all'] as const) {
            await holds({ mechanism, phase, place, gates, bridge: 'last', rootHook: false })
          }
        }
      })
    }
  }

  it('@fastify/bearer-auth\'s own hook (addHook) in the address\'s scope, after the address, the bridge at the root', async () => {
    for (const addHook of ['onRequest', 'preParsing'] as const) {
      const app = Fastify()
      const acted: unknown[] = []
      await app.register(async (scope) => {
        await scope.register(gpt, { prefix: '/admin', form, act: (body) => { acted.push(body); return { ok: true } }, rateLimit: false })
        await scope.register(bearerAuth, { keys: new Set([KEY]), addHook })
      })
      await app.register(mcp)
      await app.ready()
      const post = await app.inject({ method: 'POST', url: '/admin', payload: '{"note":"hi"}' })
      assert.equal(post.statusCode, 401)
      const refused = await app.inject(callOf())
      assert.deepEqual([refused.statusCode, refused.body], [401, post.body], 'the plugin\'s own answer')
      assert.deepEqual((await app.inject(rpc({ jsonrpc: '2.0', id: 1, method: 'tools/list' }))).json().result.tools, [], 'its GET is gated too: not listed')
      assert.deepEqual((await app.inject(callOf(BEARER))).json().result.structuredContent, { ok: true })
      assert.deepEqual(acted, [{ note: 'hi' }])
      await app.close()
    }
  })

  it('holds over generated layouts (fast-check): POST refused ⇔ call refused, the act run as often, GET refused ⇔ not listed', async () => {
    const layouts = fc.record({
      mechanism: fc.constantFrom(...MECHANISMS),
      phase: fc.constantFrom(...PHASES),
      place: fc.constantFrom(...PLACES),
      gates: fc.constantFrom('acts' as const, 'all' as const),
      bridge: fc.constantFrom('first' as const, 'last' as const),
      rootHook: fc.boolean()
    })
    await fc.assert(fc.asyncProperty(layouts, holds), { numRuns: 60, seed: 20261207 })
  })

  it('runs a root hook both for the MCP request and for the POST its call enters by (docs/mcp.md says so)', async () => {
    const { app, rootRuns } = await build({ mechanism: 'hook', phase: 'onRequest', place: 'before', gates: 'acts', bridge: 'last', rootHook: true })
    try {
      const before = rootRuns.count
      await app.inject(callOf(BEARER))
      assert.equal(rootRuns.count - before, 2)
    } finally {
      await app.close()
    }
  })

  it('answers a body the form refuses with REFUSAL once the caller passes the gate, and with the gate\'s answer before', async () => {
    const { app, acted } = await build({ mechanism: 'hook', phase: 'preHandler', place: 'after', gates: 'acts', bridge: 'last', rootHook: false })
    try {
      const long = { note: 'x'.repeat(30) }
      const bad = (headers?: Record<string, string>): InjectOptions => rpc({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'admin', arguments: long } }, headers)
      assert.equal(JSON.stringify((await app.inject(bad(BEARER))).json().result), REFUSAL)
      // the address refuses in its handler, after every hook: a preHandler gate answers first, for POST as for the call
      assert.equal((await app.inject({ method: 'POST', url: '/admin', payload: JSON.stringify(long) })).statusCode, 401)
      assert.equal((await app.inject(bad())).statusCode, 401)
      assert.deepEqual(acted, [])
    } finally {
      await app.close()
    }
  })
})

describe('the autoload layout: each routes folder with its own auth, the bridge at the root', () => {
  it('starts with no configuration, and each tool needs its own folder\'s key, as its POST does', async (t) => {
    const app = Fastify()
    t.after(() => app.close())
    const seen: Array<{ folder: string, body: unknown }> = []
    await app.register(autoload, { dir: join(import.meta.dirname, '../fixtures/autoload-auth'), options: { seen } })
    await app.register(mcp)
    await app.ready()
    const call = (name: string, key?: string): InjectOptions => rpc({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: { note: 'hi' } } }, key === undefined ? {} : { authorization: `Bearer ${key}` })
    for (const [folder, key, other] of [['billing', 'billing-key', 'notes-key'], ['notes', 'notes-key', 'billing-key']] as const) {
      assert.equal((await app.inject({ method: 'POST', url: `/${folder}`, payload: '{"note":"hi"}' })).statusCode, 401)
      assert.equal((await app.inject(call(folder))).statusCode, 401, `${folder}: no key`)
      assert.equal((await app.inject(call(folder, other))).statusCode, 401, `${folder}: the other folder's key`)
      assert.deepEqual((await app.inject(call(folder, key))).json().result.structuredContent, { folder })
    }
    assert.deepEqual(seen, [{ folder: 'billing', body: { note: 'hi' } }, { folder: 'notes', body: { note: 'hi' } }])
    const listed = (await app.inject(rpc({ jsonrpc: '2.0', id: 1, method: 'tools/list' }))).json().result.tools as Array<{ name: string }>
    assert.deepEqual(listed.map((tool) => tool.name).sort(), ['billing', 'notes'], 'GET is open in both folders: both listed')
  })
})

describe('answers of the host on the way in', () => {
  it('a hook\'s answer that is no refusal (a redirect) is told as an error, not sent as a call\'s', async (t) => {
    const app = Fastify()
    t.after(() => app.close())
    const acted: unknown[] = []
    await app.register(async (scope) => {
      scope.addHook('onRequest', async (request, reply) => { if (request.method === 'POST') return reply.redirect('/login') })
      await scope.register(gpt, { prefix: '/admin', form, act: (body) => { acted.push(body); return { ok: true } }, rateLimit: false })
    })
    await app.register(mcp)
    const answered = await app.inject(callOf())
    assert.equal(answered.statusCode, 502)
    assert.deepEqual(answered.json().error, { code: -32603, message: 'The host answered the call with HTTP 302' })
    assert.deepEqual(acted, [])
  })

  it('a host onSend that makes an act\'s 200 something else than JSON: the text alone, no structuredContent', async (t) => {
    const app = Fastify()
    t.after(() => app.close())
    app.addHook('onSend', async (request, _reply, payload) => request.url === '/admin' && request.method === 'POST' ? `${String(payload)} (signed)` : payload)
    await app.register(gpt, { prefix: '/admin', form, act: () => ({ ok: true }), rateLimit: false })
    await app.register(mcp)
    const result = (await app.inject(callOf())).json().result
    assert.deepEqual(result, { content: [{ type: 'text', text: '{"ok":true} (signed)' }] }, 'what its POST answers, as text')
  })

  it('a door token a client forges names no call: a POST carrying one is a plain POST, a call carrying one is answered as any', async (t) => {
    const app = Fastify()
    t.after(() => app.close())
    const actors: unknown[] = []
    await app.register(gpt, { prefix: '/admin', form, act: (_body, request) => { actors.push(request.gptActor); return { ok: true } }, rateLimit: false })
    await app.register(mcp)
    const forged = { 'fastify-gpt-entry': '00000000-0000-4000-8000-000000000000', 'gpt-actor': 'me' }
    const post = await app.inject({ method: 'POST', url: '/admin', payload: '{"note":"a"}', headers: { 'content-type': 'application/json', ...forged } })
    assert.equal(post.statusCode, 200)
    assert.deepEqual((await app.inject(callOf(forged))).json().result.structuredContent, { ok: true })
    assert.deepEqual(actors, ['me', 'me'], 'the POST\'s own GPT-Actor, and the call\'s')
  })

  it('a read of an address whose GET its rate limit refuses now: not read now, and read again later', async (t) => {
    const app = Fastify()
    t.after(() => app.close())
    await app.register(gpt, { prefix: '/admin', form, act: () => ({ ok: true }), rateLimit: { max: 1, timeWindow: 60_000 } })
    await app.register(mcp)
    const read = (): Promise<{ json: () => { result?: unknown, error?: unknown } }> => app.inject(rpc({ jsonrpc: '2.0', id: 4, method: 'resources/read', params: { uri: 'http://localhost/admin' } }))
    assert.ok((await read()).json().result !== undefined)
    assert.deepEqual((await read()).json().error, { code: -32000, message: 'The resource cannot be read now: read it again later' })
  })

  it('a call, a list and a read that reach the bridge while the host closes: 503, nothing listed, not read now', async () => {
    const app = Fastify()
    const acted: unknown[] = []
    await app.register(gpt, { prefix: '/admin', form, act: (body) => { acted.push(body); return { ok: true } }, rateLimit: false })
    await app.register(mcp)
    let closing: Promise<void> | undefined
    app.addHook('preHandler', async (request) => { if (request.url === '/mcp' && request.headers['x-close'] === 'now') closing ??= app.close() })
    await app.ready()
    const close = { 'x-close': 'now' }
    // all three in before the first one's hook starts the close: each meets the closing host within
    const [call, list, read] = await Promise.all([
      app.inject(callOf(close)),
      app.inject(rpc({ jsonrpc: '2.0', id: 3, method: 'tools/list' }, close)),
      app.inject(rpc({ jsonrpc: '2.0', id: 4, method: 'resources/read', params: { uri: 'http://localhost/admin' } }, close))
    ])
    assert.deepEqual([call.statusCode, call.headers['retry-after'], call.json().error.code], [503, '1', -32000])
    assert.deepEqual(list.json().result.tools, [])
    assert.deepEqual(read.json().error, { code: -32000, message: 'The resource cannot be read now: read it again later' })
    assert.deepEqual(acted, [])
    await closing
  })
})
