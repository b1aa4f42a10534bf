// The 2026-07-28 revision (its specification's folder, docs/specification/2026-07-28): no
// handshake and no session, each request naming its revision, client and capabilities in `_meta`
// and its method and name in header fields; server/discover; resultType, serverInfo and cache
// hints on results; subscriptions/listen where the GET stream was; -32602 for a resource not found.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import gpt, { type GptAddress } from '../../src/index.ts'
import { cacheDirectives } from '../../src/fields.ts'
import { freshness, MAX_TTL } from '../../src/mcp/cache.ts'
import { PROTOCOL_VERSIONS, REFUSAL } from '../../src/mcp/index.ts'
import { bridged, callText, eventually, events, noteForm, raw, rpcText, streamed, type Bridged, type Raw, type Streamed } from './bridge-host.ts'

const V = '2026-07-28'
const SERVER = { name: 'shop', version: '9.9' }
const META = { 'io.modelcontextprotocol/protocolVersion': V, 'io.modelcontextprotocol/clientCapabilities': {}, 'io.modelcontextprotocol/clientInfo': { name: 'modern', version: '3' } }
/** What every result of the bridge ends with under 2026-07-28. */
const TAIL = `"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":${JSON.stringify(SERVER)}}`

type Json = Record<string, unknown>
const json = (text: string): Json => JSON.parse(text) as Json
const errorOf = (answer: Raw): Json => json(answer.body)['error'] as Json

/** A 2026-07-28 request's text: `params` with the `_meta` a client sends (or `meta` in its place). */
const body = (method: string, params: Json = {}, meta: Json = META, id: unknown = 1): string => rpcText(method, { ...params, _meta: meta }, id)
/** The header fields a conforming client sends with it. */
const fields = (method: string, name?: string): Record<string, string> => ({ 'mcp-protocol-version': V, 'mcp-method': method, ...(name === undefined ? {} : { 'mcp-name': name }) })

let host: Bridged
let note: GptAddress
const actors: Array<string | undefined> = []
let release = (): void => {}
const held = new Promise<void>((resolve) => { release = resolve })

before(async () => {
  host = await bridged(async (app) => {
    await app.register(gpt, { prefix: '/notes', prompt: 'Pin a note.', form: noteForm, act: (body, request) => { actors.push(request.gptActor); return { pinned: body.note } }, rateLimit: false, onAddress: (address) => { note = address } })
    await app.register(gpt, { prefix: '/list', form: { type: 'object' }, result: { type: 'array', items: { type: 'integer' } }, act: () => [1, 2], rateLimit: false })
    await app.register(gpt, { prefix: '/give', form: { type: 'object', properties: { give: {} }, required: ['give'] }, act: (body: { give: unknown }) => body.give, rateLimit: false })
    await app.register(gpt, { prefix: '/slow', form: { type: 'object' }, background: { after: 1 }, act: async () => { await held; return {} }, rateLimit: false })
    await app.register(gpt, { prefix: '/later', form: { type: 'object' }, result: { type: 'string' }, background: { after: 10_000 }, act: () => 'done', rateLimit: false })
    await app.register(async (gated) => {
      gated.addHook('onRequest', async (request, reply) => { if (request.headers['x-key'] !== 'k') await reply.code(401).send() })
      await gated.register(gpt, { prefix: '/gated', form: { type: 'object' }, act: () => ({}), rateLimit: false })
    })
    await app.register(async (cached) => {
      cached.addHook('onSend', async (request, reply, payload) => { if (request.method === 'GET') reply.header('cache-control', 'max-age=60'); return payload })
      await cached.register(gpt, { prefix: '/cached', form: { type: 'object' }, act: () => ({}), rateLimit: false })
    })
  }, { serverInfo: SERVER, instructions: 'Use the tools.' })
})
after(async () => {
  release()
  await host.close()
})

const post = (method: string, params: Json = {}, name?: string, headers: Record<string, string | undefined> = {}): Promise<Raw> =>
  raw(host.port, { body: body(method, params), headers: { ...fields(method, name), ...headers } })

describe('"Versioning": no handshake; server/discover', () => {
  it('server/discover: every revision spoken (those an UnsupportedProtocolVersionError lists), the capabilities, the instructions, and who answers in _meta, public for MAX_TTL', async () => {
    const answer = await post('server/discover')
    assert.equal(answer.status, 200)
    assert.equal(answer.body, `{"jsonrpc":"2.0","id":1,"result":{"supportedVersions":${JSON.stringify([V, ...PROTOCOL_VERSIONS])},"capabilities":{"tools":{"listChanged":true},"resources":{},"extensions":{"io.modelcontextprotocol/tasks":{},"io.modelcontextprotocol/ui":{}}},"instructions":"Use the tools.","ttlMs":${MAX_TTL},"cacheScope":"public",${TAIL}}}`)
    assert.equal(answer.headers['mcp-session-id'], undefined, 'no session is minted')
  })

  it('the handshake\'s methods and those it removed are unknown (-32601, HTTP 404); one not offered says why; initialize never offers 2026-07-28', async () => {
    for (const method of ['initialize', 'ping', 'logging/setLevel', 'resources/subscribe', 'tasks/result', 'nope']) {
      const answer = await post(method)
      assert.equal(answer.status, 404, method)
      assert.deepEqual(errorOf(answer), { code: -32601, message: `Method not found: ${method}` })
    }
    assert.deepEqual(errorOf(await post('prompts/list')), { code: -32601, message: 'Method not found: prompts/list (not offered: an address\'s p and m are its tool\'s description)' })
    for (const method of ['server/discover', 'subscriptions/listen']) {
      const legacy = await raw(host.port, { body: rpcText(method, {}) })
      assert.deepEqual([legacy.status, errorOf(legacy)], [200, { code: -32601, message: `Method not found: ${method}` }], `${method} is 2026-07-28's alone`)
    }
    const initialized = await raw(host.port, { body: rpcText('initialize', { protocolVersion: V, capabilities: {}, clientInfo: { name: 'c', version: '1' } }), headers: { 'mcp-protocol-version': undefined } })
    assert.equal((json(initialized.body)['result'] as Json)['protocolVersion'], PROTOCOL_VERSIONS[0])
  })

  it('a GET (the stream of older revisions) is 405; a session id sent is ignored', async () => {
    const got = await raw(host.port, { method: 'GET', headers: { accept: 'text/event-stream', 'mcp-protocol-version': V } })
    assert.deepEqual([got.status, got.headers['allow']], [405, 'POST'])
    const listed = await post('tools/list', {}, undefined, { 'mcp-session-id': 'x.WyJvbGQiLCIxIiwiMjAyNS0wMy0yNiJd' })
    assert.equal(((json(listed.body)['result'] as Json)['tools'] as Json[])[0]!['title'], 'Pin a note.', '2026-07-28 shapes, whatever the session said')
  })
})

describe('"Per-request protocol fields": _meta', () => {
  it('a request without its revision or capabilities in _meta, or with a malformed clientInfo or logLevel: -32602, HTTP 400', async () => {
    const cases: Array<[Json | undefined, string]> = [
      [undefined, '_meta must hold io.modelcontextprotocol/protocolVersion (a string) and io.modelcontextprotocol/clientCapabilities (an object)'],
      [{ 'io.modelcontextprotocol/protocolVersion': V }, '_meta must hold io.modelcontextprotocol/protocolVersion (a string) and io.modelcontextprotocol/clientCapabilities (an object)'],
      [{ ...META, 'io.modelcontextprotocol/clientInfo': { name: 'x' } }, 'io.modelcontextprotocol/clientInfo must be { name, version }, two strings'],
      [{ ...META, 'io.modelcontextprotocol/logLevel': 'loud' }, 'io.modelcontextprotocol/logLevel must be a log level']
    ]
    for (const [meta, why] of cases) {
      const answer = await raw(host.port, { body: rpcText('tools/list', meta === undefined ? {} : { _meta: meta }), headers: fields('tools/list') })
      assert.equal(answer.status, 400, why)
      assert.deepEqual(json(answer.body), { jsonrpc: '2.0', id: 1, error: { code: -32602, message: `Invalid params: ${why}` } })
    }
    const notObject = await raw(host.port, { body: '{"jsonrpc":"2.0","id":1,"method":"tools/list","params":[]}', headers: fields('tools/list') })
    assert.deepEqual([notObject.status, errorOf(notObject)['code']], [400, -32602])
    const { 'io.modelcontextprotocol/clientInfo': _, ...anonymous } = META
    assert.equal((await raw(host.port, { body: body('tools/list', {}, { ...anonymous, 'io.modelcontextprotocol/logLevel': 'debug' }), headers: fields('tools/list') })).status, 200, 'clientInfo is a SHOULD; a known level is taken')
  })

  it('the actor is the GPT-Actor header, else the clientInfo of the request\'s own _meta', async () => {
    const start = actors.length
    await post('tools/call', { name: 'notes', arguments: { note: 'a' } }, 'notes')
    await post('tools/call', { name: 'notes', arguments: { note: 'b' } }, 'notes', { 'gpt-actor': 'agent/2' })
    await raw(host.port, { body: body('tools/call', { name: 'notes', arguments: { note: 'c' } }, { ...META, 'io.modelcontextprotocol/clientInfo': undefined }), headers: { ...fields('tools/call', 'notes'), 'mcp-session-id': 'x.WyJvbGQiLCIxIiwiMjAyNS0wMy0yNiJd' } })
    assert.deepEqual(actors.slice(start), ['modern/3', 'agent/2', undefined])
  })
})

describe('Streamable HTTP, "Server Validation": header fields say what the body says', () => {
  const mismatch = async (answer: Raw, why: string): Promise<void> => {
    assert.equal(answer.status, 400, why)
    assert.deepEqual(json(answer.body), { jsonrpc: '2.0', id: 1, error: { code: -32020, message: `Header mismatch: ${why}` } })
  }

  it('MCP-Protocol-Version, Mcp-Method and Mcp-Name missing or differing: -32020, HTTP 400', async () => {
    const call = { name: 'notes', arguments: { note: 'x' } }
    await mismatch(await post('tools/call', call, 'notes', { 'mcp-method': undefined }), 'the Mcp-Method header is missing')
    await mismatch(await post('tools/call', call, 'notes', { 'mcp-method': 'tools/list' }), 'Mcp-Method header value \'tools/list\' does not match body value \'tools/call\'')
    await mismatch(await post('tools/call', call), 'the Mcp-Name header is missing')
    await mismatch(await post('tools/call', call, 'list'), 'Mcp-Name header value \'list\' does not match body value \'notes\'')
    await mismatch(await post('tools/call', { arguments: {} }, 'notes'), 'Mcp-Name header value \'notes\' does not match body value \'\'')
    await mismatch(await post('resources/read', { uri: `${host.origin}/notes` }, `${host.origin}/list`), `Mcp-Name header value '${host.origin}/list' does not match body value '${host.origin}/notes'`)
    await mismatch(await raw(host.port, { body: body('tools/list', {}, { ...META, 'io.modelcontextprotocol/protocolVersion': '2025-11-25' }), headers: fields('tools/list') }), 'MCP-Protocol-Version header value \'2026-07-28\' does not match body value \'2025-11-25\'')
    await mismatch(await raw(host.port, { body: body('tools/list'), headers: { 'mcp-protocol-version': undefined } }), 'the MCP-Protocol-Version header is missing')
    const loose = await raw(host.port, { body: callText('notes', '{"note":"x","note":"y"}', META), headers: fields('tools/call', 'list') })
    await mismatch(loose, 'Mcp-Name header value \'list\' does not match body value \'notes\'') // a call the strict parser refuses is checked as any
    const long = await post('tools/call', call, 'n'.repeat(300))
    assert.match(String(errorOf(long)['message']), new RegExp(`'${'n'.repeat(100)}\\.\\.\\.'`), 'a long value cut')
  })

  it('Mcp-Name as the Base64 sentinel is read decoded; a call without a name needs none; other fields (Mcp-Param-*) are ignored', async () => {
    const sentinel = `=?base64?${Buffer.from('notes').toString('base64')}?=`
    const called = await post('tools/call', { name: 'notes', arguments: { note: 'x' } }, sentinel, { 'mcp-param-region': 'anything' })
    assert.equal(called.body, `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"{\\"pinned\\":\\"x\\"}"}],"structuredContent":{"pinned":"x"},${TAIL}}}`)
    assert.deepEqual(errorOf(await post('tools/call', { arguments: {} })), { code: -32602, message: 'Unknown tool: undefined' })
  })
})

describe('results: resultType and serverInfo on each; structuredContent any JSON value', () => {
  const called = async (name: string, args: string): Promise<string> => (await raw(host.port, { body: callText(name, args, META), headers: fields('tools/call', name) })).body

  it('a refused call is the one refusal, whatever failed, with the members every result has', async () => {
    const refusal = `{"jsonrpc":"2.0","id":1,"result":${REFUSAL.slice(0, -1)},${TAIL}}}`
    for (const args of ['{"note":""}', '{"note":"x","note":"y"}', '{"nope":1}', '[]']) assert.equal(await called('notes', args), refusal, args)
  })

  it('the act\'s JSON as structuredContent whatever it is, and a result form as the outputSchema it is (not wrapped)', async () => {
    assert.equal(await called('list', '{}'), `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"[1,2]"}],"structuredContent":[1,2],${TAIL}}}`)
    for (const give of ['"text"', '7', 'null', '[{"a":1}]']) {
      assert.equal(await called('give', `{"give":${give}}`), `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":${JSON.stringify(give)}}],"structuredContent":${give},${TAIL}}}`, give)
    }
    const tools = (json((await post('tools/list')).body)['result'] as Json)['tools'] as Json[]
    assert.deepEqual(tools.find((tool) => tool['name'] === 'list')!['outputSchema'], { type: 'array', items: { type: 'integer' } })
    const later = tools.find((tool) => tool['name'] === 'later')!['outputSchema'] as { anyOf: Json[] }
    assert.deepEqual([Object.keys(later), later.anyOf[0]], [['anyOf'], { type: 'string' }], 'the result or a job\'s handle, with no root type of its own')
    assert.equal(await called('later', '{}'), `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"\\"done\\""}],"structuredContent":"done",${TAIL}}}`)
  })

  it('a resource not found: -32602 naming the URI (-32002 before 2026-07-28)', async () => {
    const uri = `${host.origin}/nowhere`
    assert.deepEqual(errorOf(await post('resources/read', { uri }, uri)), { code: -32602, message: 'Resource not found', data: { uri } })
    assert.deepEqual(errorOf(await raw(host.port, { body: rpcText('resources/read', { uri }) })), { code: -32002, message: 'Resource not found' })
  })
})

describe('"Caching": ttlMs and cacheScope on lists and reads', () => {
  const hintsOf = async (method: string, params: Json = {}, name?: string, headers: Record<string, string> = {}): Promise<[unknown, unknown]> => {
    const result = json((await post(method, params, name, headers)).body)['result'] as Json
    return [result['ttlMs'], result['cacheScope']]
  }

  it('a list is as fresh as its least fresh arrival: an arrival\'s own max-age at its word, else a tenth of the time since its tag changed', async () => {
    const [ttl, scope] = await hintsOf('tools/list')
    assert.ok(typeof ttl === 'number' && Number.isSafeInteger(ttl) && ttl >= 0 && ttl < 60_000, String(ttl))
    assert.equal(scope, 'private', 'one address (gated) was hidden from this caller')
    const [, shown] = await hintsOf('tools/list', {}, undefined, { 'x-key': 'k' })
    assert.equal(shown, 'public', 'every address shown, no credentials: any caller sees the same')
    assert.deepEqual(await hintsOf('resources/read', { uri: `${host.origin}/cached` }, `${host.origin}/cached`), [60_000, 'public'])
    assert.equal((await hintsOf('resources/templates/list', {}, undefined, { 'x-key': 'k' }))[1], 'public')
    assert.equal((await hintsOf('resources/templates/list', {}, undefined, { 'x-key': 'k', authorization: 'Bearer t' }))[1], 'private', 'credentials a hook may read: private')
  })

  it('a job\'s read says itself: never fresh, private', async () => {
    const handle = json(((json((await post('tools/call', { name: 'slow', arguments: {} }, 'slow')).body)['result'] as Json)['content'] as Json[]).at(-1)!['text'] as string) as { href: string }
    assert.deepEqual(await hintsOf('resources/read', { uri: handle.href }, handle.href), [0, 'private'])
  })

  it('freshness and Cache-Control, by the numbers', () => {
    assert.deepEqual(freshness({}, 0, 1000), { ttlMs: 100, private: false }, 'a tenth of the time since')
    assert.deepEqual(freshness({}, 0, 1e9), { ttlMs: MAX_TTL, private: false }, 'at most MAX_TTL')
    assert.deepEqual(freshness({}, 2000, 1000), { ttlMs: 0, private: false }, 'a clock that went back: stale')
    assert.deepEqual(freshness({ 'cache-control': 'private, max-age=5' }, 0, 1e9), { ttlMs: 5000, private: true })
    assert.deepEqual(cacheDirectives('No-Cache, max-age=9'), { maxAge: 0, private: false })
    assert.deepEqual(cacheDirectives('max-age="12", Private'), { maxAge: 12, private: true })
    assert.deepEqual(cacheDirectives('max-age=soon'), { maxAge: 0, private: false }, 'a max-age that is no number: never fresh')
    assert.deepEqual(cacheDirectives(undefined), { maxAge: undefined, private: false })
  })
})

/** A subscriptions/listen request, its answer read as it comes. */
function listen (port: number, id: unknown, notifications: unknown, from = '127.0.0.1', accept = 'application/json, text/event-stream'): Promise<Streamed> {
  return streamed(port, body('subscriptions/listen', { notifications }, META, id), { 'content-type': 'application/json', accept, ...fields('subscriptions/listen') }, from)
}

describe('"Subscriptions": subscriptions/listen', () => {
  it('acknowledges what it will hear, tells changed tools tagged with its id to those that asked, and nothing to others', async () => {
    const asked = await listen(host.port, 'sub-1', { toolsListChanged: true, promptsListChanged: true, resourceSubscriptions: ['x'] })
    const quiet = await listen(host.port, 7, {})
    assert.equal(asked.response.headers['content-type'], 'text/event-stream')
    await eventually(() => events(asked.text()).length === 1 && events(quiet.text()).length === 1, 'both acknowledged')
    assert.deepEqual(events(asked.text()), [{ jsonrpc: '2.0', method: 'notifications/subscriptions/acknowledged', params: { _meta: { 'io.modelcontextprotocol/subscriptionId': 'sub-1' }, notifications: { toolsListChanged: true } } }])
    assert.deepEqual(events(quiet.text()), [{ jsonrpc: '2.0', method: 'notifications/subscriptions/acknowledged', params: { _meta: { 'io.modelcontextprotocol/subscriptionId': 7 }, notifications: {} } }])
    note.update({ prompt: 'Pin a short note.' })
    await eventually(() => events(asked.text()).length === 2, 'told')
    assert.deepEqual(events(asked.text())[1], { jsonrpc: '2.0', method: 'notifications/tools/list_changed', params: { _meta: { 'io.modelcontextprotocol/subscriptionId': 'sub-1' } } })
    assert.equal(events(quiet.text()).length, 1, 'a stream that did not ask hears nothing')
    asked.close()
    quiet.close()
  })

  it('without notifications: -32602; without text/event-stream in Accept: 406; past maxStreams: 503; ended by the bridge with its response', async () => {
    assert.deepEqual(errorOf(await post('subscriptions/listen')), { code: -32602, message: 'Invalid params: notifications must be an object, the notifications to hear' })
    const own = await bridged(() => {}, { maxStreams: 1, serverInfo: SERVER })
    const plain = await listen(own.port, 1, {}, '127.0.0.1', 'application/json')
    assert.equal(plain.response.statusCode, 406)
    const open = await listen(own.port, 2, { toolsListChanged: true })
    const full = await listen(own.port, 3, {}, '127.0.0.2')
    assert.deepEqual([full.response.statusCode, full.response.headers['retry-after']], [503, '1'])
    await eventually(() => events(open.text()).length === 1, 'acknowledged')
    await own.close()
    await open.ended
    assert.deepEqual(events(open.text())[1], { jsonrpc: '2.0', id: 2, result: { resultType: 'complete', _meta: { 'io.modelcontextprotocol/subscriptionId': 2, 'io.modelcontextprotocol/serverInfo': SERVER } } })
  })
})
