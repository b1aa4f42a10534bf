// JSON-RPC batches under 2025-03-26, whose servers MUST accept them ("Base Protocol", "Batching";
// Streamable HTTP: the responses in one array, 202 for notifications and responses alone), and
// under no other revision. Each message of a batch is answered as it would be alone: a call is its
// address's POST, with the bytes of its own arguments.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import gpt from '../../src/index.ts'
import { REFUSAL, PROTOCOL_VERSIONS } from '../../src/mcp/index.ts'
import { MAX_BATCH } from '../../src/mcp/batch.ts'
import { bridged, callText, noteForm, raw, rpcText, type Bridged } from './bridge-host.ts'

let host: Bridged
const acted: unknown[] = []

before(async () => {
  host = await bridged(async (app) => {
    await app.register(gpt, { prefix: '/notes', prompt: 'Pin a note.', form: noteForm, act: (body) => { acted.push(body); return { pinned: body.note } }, rateLimit: false, maxDepth: 3 })
    await app.register(gpt, { prefix: '/nest', form: { type: 'array' }, act: (body) => { acted.push(body); return body }, rateLimit: false, maxDepth: 3 })
    await app.register(async (gated) => {
      gated.addHook('onRequest', async (request, reply) => { if (request.method === 'POST') await reply.code(401).header('www-authenticate', 'Bearer').send() })
      await gated.register(gpt, { prefix: '/gated', form: { type: 'object' }, act: () => ({}), rateLimit: false, maxDepth: 3 })
    })
  })
})
after(async () => { await host.close() })

const OLD = { 'mcp-protocol-version': '2025-03-26' }
const batch = (items: readonly string[], headers: Record<string, string | undefined> = OLD): ReturnType<typeof raw> =>
  raw(host.port, { body: `[${items.join(',')}]`, headers })
const notification = (method: string): string => JSON.stringify({ jsonrpc: '2.0', method })
const parsed = (body: string): Array<Record<string, unknown>> => JSON.parse(body) as Array<Record<string, unknown>>

describe('2025-03-26: batches are accepted', () => {
  it('answers the requests in one array, each as it would be answered alone; a notification gets nothing', async () => {
    acted.length = 0
    const response = await batch([rpcText('ping', undefined, 'p'), callText('notes', ' {"note" : "a"} ', undefined, 2), notification('notifications/initialized'), rpcText('tools/list', undefined, 3), callText('notes', '{"note":7}', undefined, 4)])
    assert.equal(response.status, 200)
    assert.equal(response.headers['content-type'], 'application/json; charset=utf-8')
    const byId = new Map(parsed(response.body).map((item) => [item['id'], item]))
    assert.deepEqual([...byId.keys()].sort(), [2, 3, 4, 'p'])
    assert.deepEqual(byId.get('p'), { jsonrpc: '2.0', id: 'p', result: {} })
    assert.deepEqual(byId.get(2), { jsonrpc: '2.0', id: 2, result: { content: [{ type: 'text', text: '{"pinned":"a"}' }] } }, '2025-03-26\'s shapes: no structuredContent')
    assert.deepEqual(byId.get(4), { jsonrpc: '2.0', id: 4, result: JSON.parse(REFUSAL) }, 'refused as a POST of its arguments is')
    assert.deepEqual((byId.get(3)!['result'] as { tools: Array<{ name: string }> }).tools.map((tool) => tool.name), ['notes', 'nest', 'gated'])
    assert.deepEqual(acted, [{ note: 'a' }], 'the one acceptable call acted, once')
  })

  it('a batch of notifications or responses alone: 202, no body', async () => {
    for (const items of [[notification('notifications/initialized')], ['{"jsonrpc":"2.0","id":1,"result":{}}', notification('notifications/cancelled')]]) {
      const response = await batch(items)
      assert.equal(response.status, 202, items.join())
      assert.equal(response.body, '')
      assert.equal(response.headers['content-type'], undefined)
    }
  })

  it('a message that is no request is an error in the array; initialize, which may not be batched, too', async () => {
    const response = await batch(['1', '{"jsonrpc":"2.0","id":"a","method":5}', '{"jsonrpc":"2.0","id":2,"method":"tools/list","params":[]}', rpcText('initialize', { protocolVersion: '2025-03-26' }, 3), rpcText('logging/setLevel', { level: 'info' }, 4)])
    assert.equal(response.status, 200)
    assert.equal(response.headers['mcp-session-id'], undefined)
    assert.deepEqual(parsed(response.body).map((item) => [item['id'], (item['error'] as { code: number }).code]).sort(), [[null, -32600], [2, -32602], [3, -32600], [4, -32601], ['a', -32600]])
  })

  it('a call a host\'s hook answers is an error naming the status, beside the others\' answers (alone, it gets that answer)', async () => {
    const response = await batch([callText('gated', '{}', undefined, 1), rpcText('ping', undefined, 2)])
    assert.deepEqual(parsed(response.body).sort((a, b) => Number(a['id']) - Number(b['id'])), [
      { jsonrpc: '2.0', id: 1, error: { code: -32000, message: 'The host answered the call with HTTP 401: send it alone to read that answer' } },
      { jsonrpc: '2.0', id: 2, result: {} }
    ])
    const alone = await raw(host.port, { body: callText('gated', '{}'), headers: OLD })
    assert.equal(alone.status, 401)
    assert.equal(alone.headers['www-authenticate'], 'Bearer')
  })

  it('a wrapped form\'s body at its address\'s maxDepth: a batch is read one level deeper than a request', async () => {
    acted.length = 0
    const response = await batch([callText('nest', '{"value":[[["deep"]]]}')])
    assert.deepEqual(parsed(response.body), [{ jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: '[[["deep"]]]' }] } }])
    assert.deepEqual(acted, [[[['deep']]]])
  })

  it('is taken from the session\'s revision too, and where a request names none', async () => {
    const started = await raw(host.port, { body: rpcText('initialize', { protocolVersion: '2025-03-26', capabilities: {} }), headers: { 'mcp-protocol-version': undefined } })
    const session = String(started.headers['mcp-session-id'])
    for (const headers of [{ 'mcp-protocol-version': undefined, 'mcp-session-id': session }, { 'mcp-protocol-version': undefined }]) {
      const response = await batch([rpcText('ping')], headers)
      assert.deepEqual(parsed(response.body), [{ jsonrpc: '2.0', id: 1, result: {} }], JSON.stringify(headers))
    }
  })

  it('refuses whole an empty batch, one of more than MAX_BATCH messages, and one the strict parser refuses', async () => {
    for (const body of ['[]', `[${Array.from({ length: MAX_BATCH + 1 }, (_, i) => rpcText('ping', undefined, i)).join(',')}]`, `[${rpcText('ping')},{"jsonrpc":"2.0","id":2,"id":3,"method":"ping"}]`]) {
      const response = await raw(host.port, { body, headers: OLD })
      assert.equal(response.status, 400, body.slice(0, 40))
      assert.equal((JSON.parse(response.body) as { error: { code: number } }).error.code, -32600)
    }
    const full = await batch(Array.from({ length: MAX_BATCH }, (_, i) => rpcText('ping', undefined, i)))
    assert.equal(parsed(full.body).length, MAX_BATCH)
  })
})

describe('every other revision refuses a batch', () => {
  for (const revision of PROTOCOL_VERSIONS.filter((version) => version !== '2025-03-26')) {
    it(revision, async () => {
      const response = await batch([rpcText('ping')], { 'mcp-protocol-version': revision })
      assert.equal(response.status, 400)
      assert.deepEqual(JSON.parse(response.body), { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Batches are not accepted: 2025-03-26 alone has them' } })
    })
  }
})
