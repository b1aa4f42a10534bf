// The bridge over HTTP (MCP Streamable HTTP, stateless): what each request shape gets, the GET
// streams and what they hear, the DNS-rebinding check, the request's limits, and the options.
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { request as httpRequest, type IncomingMessage } from 'node:http'
import { connect as netConnect } from 'node:net'
import { after, before, describe, it } from 'node:test'
import { McpError, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js'
import Fastify from 'fastify'
import gpt, { type GptAddress } from '../../src/index.ts'
import mcp, { PROTOCOL_VERSIONS, type McpOptions } from '../../src/mcp/index.ts'
import { NOT_OFFERED } from '../../src/mcp/rpc.ts'
import { bridged, callText, eventually, noteForm, raw, rpcText, type Bridged } from './bridge-host.ts'

let host: Bridged
let note: GptAddress
/** GET streams the host has opened so far (the SDK client opens one after initialize). */
let streamsOpened = 0

before(async () => {
  host = await bridged(async (app) => {
    app.addHook('onSend', async (request, reply, payload) => {
      if (request.method === 'GET' && request.url === '/mcp' && reply.statusCode === 200) streamsOpened++
      return payload
    })
    await app.register(gpt, { prefix: '/note', prompt: 'Leave a note.', form: noteForm, act: () => ({ ok: true }), rateLimit: false, onAddress: (address) => { note = address } })
  }, { serverInfo: { name: 'shop', version: '9.9' }, instructions: 'Use the tools.', bodyTimeout: 300, heartbeat: 50 })
})
after(async () => { await host.close() })

const json = (body: string): Record<string, unknown> => JSON.parse(body) as Record<string, unknown>
const error = (code: number, message: string, id: unknown = null): Record<string, unknown> => ({ jsonrpc: '2.0', id, error: { code, message } })

describe('initialize and ping', () => {
  it('echoes each protocol revision it speaks, and answers the newest for any other', async () => {
    for (const version of PROTOCOL_VERSIONS) {
      const response = await raw(host.port, { body: rpcText('initialize', { protocolVersion: version, capabilities: {}, clientInfo: { name: 'x', version: '1' } }) })
      assert.equal((json(response.body)['result'] as Record<string, unknown>)['protocolVersion'], version)
    }
    for (const asked of ['1999-01-01', 7, undefined]) {
      const response = await raw(host.port, { body: rpcText('initialize', { protocolVersion: asked, capabilities: {} }) })
      assert.equal((json(response.body)['result'] as Record<string, unknown>)['protocolVersion'], '2025-11-25', String(asked))
    }
    assert.equal(PROTOCOL_VERSIONS[0], '2025-11-25')
  })

  it('says what the server is and has: tools that change, resources, its name, its instructions', async () => {
    const response = await raw(host.port, { body: rpcText('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } }) })
    assert.equal(response.status, 200)
    assert.equal(response.headers['content-type'], 'application/json; charset=utf-8')
    assert.deepEqual(json(response.body), {
      jsonrpc: '2.0',
      id: 1,
      result: { protocolVersion: '2025-06-18', capabilities: { tools: { listChanged: true }, resources: {} }, serverInfo: { name: 'shop', version: '9.9' }, instructions: 'Use the tools.' }
    })
    const client = await host.connect()
    assert.deepEqual(client.getServerVersion(), { name: 'shop', version: '9.9' })
    assert.equal(client.getInstructions(), 'Use the tools.')
    await client.ping()
    assert.equal((await raw(host.port, { body: rpcText('ping', undefined, 'p') })).body, '{"jsonrpc":"2.0","id":"p","result":{}}')
  })

  it('without serverInfo or instructions: fastify-gpt\'s name, and no instructions member', async () => {
    const bare = await bridged(() => {})
    try {
      const result = json((await raw(bare.port, { body: rpcText('initialize', { protocolVersion: '2025-06-18' }) })).body)['result'] as Record<string, unknown>
      assert.deepEqual(result['serverInfo'], { name: 'fastify-gpt', version: '0.1.0' })
      assert.equal('instructions' in result, false)
    } finally {
      await bare.close()
    }
  })
})

describe('what each request shape gets', () => {
  it('a protocol revision it does not speak, in MCP-Protocol-Version: 400, UnsupportedProtocolVersionError listing those it does; one it speaks: answered', async () => {
    const supported = ['2026-07-28', ...PROTOCOL_VERSIONS]
    const refused = await raw(host.port, { body: rpcText('ping'), headers: { 'mcp-protocol-version': '2099-01-01' } })
    assert.equal(refused.status, 400)
    assert.deepEqual(json(refused.body), { jsonrpc: '2.0', id: 1, error: { code: -32022, message: 'Unsupported protocol version: 2099-01-01', data: { supported, requested: '2099-01-01' } } })
    const long = await raw(host.port, { body: rpcText('ping'), headers: { 'mcp-protocol-version': 'v'.repeat(100) } })
    assert.deepEqual((json(long.body)['error'] as Record<string, unknown>)['data'], { supported, requested: 'v'.repeat(40) }, 'cut to 40')
    assert.equal((await raw(host.port, { body: rpcText('ping'), headers: { 'mcp-protocol-version': '2024-11-05' } })).status, 200)
  })

  it('the UnsupportedProtocolVersionError answers the request\'s id where its body has one (JSON-RPC 2.0 §5), null where it has none', async () => {
    const unspoken = { 'mcp-protocol-version': '2099-01-01' }
    assert.equal(json((await raw(host.port, { body: rpcText('ping', undefined, 301), headers: unspoken })).body)['id'], 301)
    assert.equal(json((await raw(host.port, { body: rpcText('ping', undefined, 'p'), headers: unspoken })).body)['id'], 'p')
    for (const body of ['{"jsonrpc":"2.0","id":1,', '{"jsonrpc":"2.0","id":1,"id":2,"method":"ping"}', '{"jsonrpc":"2.0","id":1.5,"method":"ping"}', '[]']) {
      const refused = await raw(host.port, { body, headers: unspoken })
      assert.equal(refused.status, 400, body)
      assert.equal(json(refused.body)['id'], null, body)
    }
  })

  it('a batch (2025-11-25 has none), or anything that is not one JSON-RPC 2.0 request object: 400', async () => {
    const cases: Array<[string, Record<string, unknown>]> = [
      [`[${rpcText('ping')}]`, error(-32600, 'Batches are not accepted: 2025-03-26 alone has them')],
      ['[]', error(-32600, 'Batches are not accepted: 2025-03-26 alone has them')],
      ['1', error(-32600, 'Not a JSON-RPC message')],
      ['"ping"', error(-32600, 'Not a JSON-RPC message')],
      ['null', error(-32600, 'Not a JSON-RPC message')],
      ['{"jsonrpc":"1.0","id":5,"method":"ping"}', error(-32600, 'Not a JSON-RPC 2.0 message', 5)],
      ['{"jsonrpc":"1.0","id":[5],"method":"ping"}', error(-32600, 'Not a JSON-RPC 2.0 message')],
      ['{"id":"a","method":"ping"}', error(-32600, 'Not a JSON-RPC 2.0 message', 'a')],
      ['{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}', error(-32600, 'The id must be a string or an integer')],
      ['{"jsonrpc":"2.0","id":null,"method":"ping"}', error(-32600, 'The id must be a string or an integer')],
      ['{"jsonrpc":"2.0","id":1.5,"method":"ping"}', error(-32600, 'The id must be a string or an integer')],
      ['{"jsonrpc":"2.0","id":1.5,"method":"ping","jsonrpc":"2.0"}', error(-32600, 'Invalid Request: a duplicated member, a number past 2^53 or a lone surrogate is not taken')]
    ]
    for (const [body, answer] of cases) {
      const response = await raw(host.port, { body })
      assert.equal(response.status, 400, body)
      assert.deepEqual(json(response.body), answer, body)
    }
  })

  it('params that are not an object: -32602', async () => {
    for (const params of ['[]', '"x"', '1', 'null']) {
      const response = await raw(host.port, { body: `{"jsonrpc":"2.0","id":3,"method":"tools/list","params":${params}}` })
      assert.equal(response.status, 200)
      assert.deepEqual(json(response.body), error(-32602, 'params must be an object', 3))
    }
  })

  it('a notification, or a response: 202 and nothing', async () => {
    for (const body of ['{"jsonrpc":"2.0","method":"notifications/initialized"}', '{"jsonrpc":"2.0","id":1,"result":{}}', '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}']) {
      const response = await raw(host.port, { body })
      assert.equal(response.status, 202, body)
      assert.equal(response.body, '')
      assert.equal(response.headers['content-type'], undefined, 'no body, no Content-Type')
    }
  })

  it('a request whose method is not a string: -32600 with its id, never a 202 that leaves the client waiting', async () => {
    for (const [body, id] of [['{"jsonrpc":"2.0","id":1,"method":5}', 1], ['{"jsonrpc":"2.0","id":"a","method":null}', 'a'], ['{"jsonrpc":"2.0","id":7}', 7]] as const) {
      const response = await raw(host.port, { body })
      assert.equal(response.status, 400, body)
      assert.deepEqual(json(response.body), error(-32600, 'The method must be a string', id), body)
    }
  })

  it('an unknown method: -32601; an unknown tool: -32602', async () => {
    assert.deepEqual(json((await raw(host.port, { body: rpcText('prompts/lists') })).body), error(-32601, 'Method not found: prompts/lists', 1))
    assert.deepEqual(json((await raw(host.port, { body: rpcText('m'.repeat(300)) })).body), error(-32601, `Method not found: ${'m'.repeat(100)}`, 1))
    assert.deepEqual(json((await raw(host.port, { body: callText('nope', '{}') })).body), error(-32602, 'Unknown tool: nope', 1))
    assert.deepEqual(json((await raw(host.port, { body: rpcText('tools/call', { arguments: {} }) })).body), error(-32602, 'Unknown tool: undefined', 1))
    assert.deepEqual(json((await raw(host.port, { body: rpcText('tools/call', { name: 'n'.repeat(300) }) })).body), error(-32602, `Unknown tool: ${'n'.repeat(128)}`, 1))
    const client = await host.connect()
    await assert.rejects(client.callTool({ name: 'nope', arguments: {} }), (thrown: unknown) => thrown instanceof McpError && thrown.code === -32602)
  })

  it('a method of MCP\'s not offered: in no capability, -32601 saying why, each listed in docs/mcp.md', async () => {
    const listed = readFileSync(new URL('../../docs/mcp.md', import.meta.url), 'utf8').split(/^## /m).find((part) => part.startsWith('Protocol revisions\n')) ?? ''
    for (const [method, why] of NOT_OFFERED) {
      assert.deepEqual(json((await raw(host.port, { body: rpcText(method, {}) })).body), error(-32601, `Method not found: ${method} (not offered: ${why})`, 1))
      assert.ok(listed.includes(`\`${method}\``), `docs/mcp.md's "Protocol revisions" says ${method} is not offered`)
    }
    const client = await host.connect()
    assert.deepEqual(client.getServerCapabilities(), { tools: { listChanged: true }, resources: {}, tasks: { cancel: {}, requests: { tools: { call: {} } } } })
    await assert.rejects(client.setLoggingLevel('info'), (thrown: unknown) => thrown instanceof McpError && thrown.code === -32601)
    await assert.rejects(client.complete({ ref: { type: 'ref/prompt', name: 'x' }, argument: { name: 'a', value: 'b' } }), (thrown: unknown) => thrown instanceof McpError && thrown.code === -32601)
  })

  it('a body that is not JSON: 400 parse error; JSON a strict reading refuses: 400 invalid request, unless it is a call of a known tool (that is the one refusal, see call.test.ts)', async () => {
    for (const body of ['{', 'not json', '{"jsonrpc":"2.0","id":1,"method":"ping"} x', '\ufeff' + rpcText('ping')]) {
      const response = await raw(host.port, { body })
      assert.equal(response.status, 400, body)
      assert.deepEqual(json(response.body), error(-32700, 'Parse error'), body)
    }
    for (const body of ['{"jsonrpc":"2.0","id":1,"method":"tools/list","method":"tools/list"}',
      '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"nope","name":"nope","arguments":{}}}',
      '{"jsonrpc":"2.0","id":null,"method":"tools/call","params":{"name":"note","name":"note","arguments":{}}}',
      '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":7,"name":7}}',
      '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":[1,1],"params":[1,1]}',
      '{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}']) {
      const response = await raw(host.port, { body })
      assert.equal(response.status, 400, body)
      assert.deepEqual(json(response.body), error(-32600, 'Invalid Request: a duplicated member, a number past 2^53 or a lone surrogate is not taken'), body)
    }
  })

  it('a body labelled other than JSON: 415; JSON with a charset: taken', async () => {
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'text/event-stream']) {
      assert.equal((await raw(host.port, { body: rpcText('ping'), headers: { 'content-type': type } })).status, 415, type)
    }
    assert.equal((await raw(host.port, { body: rpcText('ping'), headers: { 'content-type': 'application/json; charset=utf-8' } })).status, 200)
  })

  it('no body at all: 400', async () => {
    const response = await raw(host.port, { headers: { 'content-type': undefined } })
    assert.equal(response.status, 400)
    assert.deepEqual(json(response.body), error(-32600, 'The request was not received whole'))
    const empty = await raw(host.port, { body: '' })
    assert.equal(empty.status, 400)
  })

  it('GET without Accept: text/event-stream: 405; DELETE (there are no sessions to end): 405', async () => {
    for (const accept of [undefined, 'application/json', '*/*']) {
      const response = await raw(host.port, { method: 'GET', headers: { accept, 'content-type': undefined } })
      assert.equal(response.status, 405, accept)
      assert.equal(response.headers['allow'], 'POST')
    }
    const deleted = await raw(host.port, { method: 'DELETE', headers: { 'mcp-session-id': 'x', 'content-type': undefined } })
    assert.equal(deleted.status, 405)
    assert.equal(deleted.headers['allow'], 'GET, POST')
  })
})

describe('the request\'s limits', () => {
  it('a request larger than the largest body any address takes, with room for its envelope: 413, declared or not', async () => {
    const big = callText('note', JSON.stringify({ note: 'x'.repeat(65536 + 16384) }))
    const declared = await raw(host.port, { body: big })
    assert.equal(declared.status, 413)
    assert.deepEqual(json(declared.body), error(-32600, 'The request was not received whole'))
    const chunked = await new Promise<number>((resolve, reject) => {
      const request = httpRequest({ host: '127.0.0.1', port: host.port, method: 'POST', path: '/mcp', headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' }, agent: false }, (response) => {
        response.resume()
        resolve(response.statusCode ?? 0)
      })
      request.on('error', reject)
      for (let i = 0; i < big.length; i += 4096) request.write(big.slice(i, i + 4096))
      request.end()
    })
    assert.equal(chunked, 413)
    const within = await raw(host.port, { body: callText('note', JSON.stringify({ note: 'x'.repeat(65536) })) })
    assert.equal(within.status, 200, 'over the address\'s limit but within the bridge\'s: the refusal (call.test.ts)')
  })

  it('a body not in within bodyTimeout: 400 and the connection closed', async () => {
    const socket = netConnect(host.port, '127.0.0.1')
    const start = Date.now()
    socket.write('POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"jsonrpc":')
    let text = ''
    socket.on('data', (chunk: Buffer) => { text += chunk.toString() })
    await new Promise((resolve) => socket.on('close', resolve))
    assert.ok(Date.now() - start >= 250, 'not before the timeout')
    assert.match(text, /^HTTP\/1\.1 400 /)
    assert.match(text, /\r\nconnection: close\r\n/i)
    assert.ok(text.endsWith(JSON.stringify(error(-32600, 'The request was not received whole'))))
  })

  it('several bodies at once, each within its own deadline: those that end are answered, the one that stalls times out', async () => {
    const head = (length: number): string => `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`
    const body = rpcText('ping')
    const sockets = [0, 1, 2, 3].map(() => {
      const socket = netConnect(host.port, '127.0.0.1')
      let text = ''
      socket.on('data', (chunk: Buffer) => { text += chunk.toString() })
      const closed = new Promise((resolve) => socket.on('close', resolve))
      socket.write(head(body.length) + body.slice(0, 5))
      return { socket, text: () => text, closed }
    })
    await new Promise((resolve) => setTimeout(resolve, 50)) // all four being read
    // the second, then the last, then the first end: each taken out of the middle, the end, the start
    for (const i of [1, 3, 0]) sockets[i]!.socket.write(body.slice(5))
    for (const i of [1, 3, 0]) await eventually(() => sockets[i]!.text().endsWith('{"jsonrpc":"2.0","id":1,"result":{}}'), `socket ${i} answered`)
    await sockets[2]!.closed
    assert.match(sockets[2]!.text(), /^HTTP\/1\.1 400 /, 'the third never ended: timed out')
    for (const i of [1, 3, 0]) sockets[i]!.socket.destroy()
  })
})

/** A GET stream read as it comes. */
interface Opened {
  readonly response: IncomingMessage
  text (): string
  close (): void
}

function openStream (port: number, headers: Record<string, string> = {}, from = '127.0.0.1'): Promise<Opened> {
  return new Promise((resolve, reject) => {
    let text = ''
    const request = httpRequest({ host: '127.0.0.1', port, path: '/mcp', headers: { accept: 'text/event-stream', ...headers }, agent: false, localAddress: from }, (response) => {
      response.on('data', (chunk: Buffer) => { text += chunk.toString() })
      response.on('error', () => {})
      resolve({ response, text: () => text, close: () => { request.destroy() } })
    })
    request.on('error', reject)
    request.end()
  })
}

describe('GET streams', () => {
  it('open at once with a comment, beat every heartbeat, and are ended when the host closes', async () => {
    const own = await bridged(() => {}, { heartbeat: 40 })
    const stream = await openStream(own.port)
    assert.equal(stream.response.statusCode, 200)
    assert.equal(stream.response.headers['content-type'], 'text/event-stream')
    assert.equal(stream.response.headers['cache-control'], 'no-store')
    assert.equal(stream.response.headers['x-accel-buffering'], 'no')
    await eventually(() => stream.text().split(': \n\n').length - 1 >= 3, 'an opening comment and two heartbeats')
    assert.match(stream.text(), /^(: \n\n)+$/)
    const ended = new Promise((resolve) => stream.response.on('end', resolve))
    await own.close() // would wait for the stream forever if the bridge left it open
    await ended
  })

  it('at most maxStreams at once: the next GET is 405, and one closed makes room', async () => {
    const own = await bridged(() => {}, { maxStreams: 2 })
    try {
      const first = await openStream(own.port)
      assert.equal((await openStream(own.port)).response.statusCode, 405, 'a client holds a quarter of them, at least one')
      const second = await openStream(own.port, {}, '127.0.0.2')
      assert.equal(second.response.statusCode, 200)
      assert.equal((await raw(own.port, { method: 'GET', headers: { accept: 'text/event-stream' } })).status, 405)
      first.close()
      await eventually(async () => {
        const third = await openStream(own.port)
        third.close()
        return third.response.statusCode === 200
      }, 'room again')
      second.close()
    } finally {
      await own.close()
    }
  })

  it('hear notifications/tools/list_changed when update() changes a prompt or a form, and nothing when it changes nothing', async () => {
    const opened = streamsOpened
    const client = await host.connect()
    const heard: unknown[] = []
    client.setNotificationHandler(ToolListChangedNotificationSchema, (notification) => { heard.push(notification) })
    const stream = await openStream(host.port)
    await eventually(() => stream.text().length > 0, 'the raw stream is open')
    await eventually(() => streamsOpened >= opened + 2, 'the SDK client\'s own GET stream is open too')
    const etag = note.etag
    note.update({ prompt: note.prompt }) // the same content: the same tool
    assert.equal(note.etag, etag)
    note.update({ prompt: 'Leave a short note.' })
    await eventually(() => heard.length === 1, 'the SDK client heard of the change')
    assert.deepEqual(heard, [{ method: 'notifications/tools/list_changed' }])
    assert.equal(stream.text().split('event: message\ndata: {"jsonrpc":"2.0","method":"notifications/tools/list_changed"}\n\n').length - 1, 1, 'once, on the raw stream too')
    const [tool] = (await client.listTools()).tools
    assert.equal(tool!.description, 'Leave a short note.')
    note.update({ form: { type: 'object', properties: { note: { type: 'string' } } } })
    await eventually(() => heard.length === 2, 'a form change too')
    const [changed] = (await client.listTools()).tools
    assert.deepEqual(changed!.inputSchema, { type: 'object', properties: { note: { type: 'string' } } })
    assert.equal((changed!._meta as Record<string, string>)['fastify-gpt/etag'], note.etag)
    note.update({ messages: [{ role: 'user', content: 'hi' }] })
    await eventually(() => heard.length === 3, 'and m, which the description holds')
    stream.close()
  })
})

describe('DNS rebinding (a request on a loopback address)', () => {
  it('refuses a Host that is not a loopback name: 403, on POST and GET', async () => {
    for (const hostName of ['evil.example', 'evil.example:80', '127.0.0.1.evil.example', '[::2]:80']) {
      const posted = await raw(host.port, { body: rpcText('ping'), headers: { host: hostName } })
      assert.equal(posted.status, 403, hostName)
      assert.deepEqual(json(posted.body), error(-32000, 'Invalid Host header'))
      const got = await raw(host.port, { method: 'GET', headers: { host: hostName, accept: 'text/event-stream' } })
      assert.equal(got.status, 403, hostName)
    }
    for (const hostName of ['localhost', `localhost:${host.port}`, 'LOCALHOST', `127.0.0.1:${host.port}`, `[::1]:${host.port}`, '[::1]']) {
      assert.equal((await raw(host.port, { body: rpcText('ping'), headers: { host: hostName } })).status, 200, hostName)
    }
  })

  it('refuses an Origin that is not a loopback one: 403', async () => {
    for (const origin of ['http://evil.example', 'https://evil.example:443', 'null', 'file:///etc/passwd', 'http://localhost.evil.example', 'not a url']) {
      const response = await raw(host.port, { body: rpcText('ping'), headers: { origin } })
      assert.equal(response.status, 403, origin)
      assert.deepEqual(json(response.body), error(-32000, 'Invalid Origin header'))
    }
    for (const origin of ['http://localhost:3000', 'https://127.0.0.1', 'http://[::1]:8080', 'HTTP://LOCALHOST']) {
      assert.equal((await raw(host.port, { body: rpcText('ping'), headers: { origin } })).status, 200, origin)
    }
  })

  it('allowedHosts: these names too, on every request; allowedOrigins: these origins too; false: no check', async () => {
    const named = await bridged(() => {}, { allowedHosts: ['API.example'], allowedOrigins: ['https://app.example'] })
    const open = await bridged(() => {}, { allowedHosts: false })
    try {
      assert.equal((await raw(named.port, { body: rpcText('ping'), headers: { host: 'api.example:8443' } })).status, 200)
      assert.equal((await raw(named.port, { body: rpcText('ping'), headers: { host: 'localhost' } })).status, 200, 'loopback names still')
      assert.equal((await raw(named.port, { body: rpcText('ping'), headers: { host: 'evil.example' } })).status, 403)
      assert.equal((await raw(named.port, { body: rpcText('ping'), headers: { origin: 'https://app.example' } })).status, 200)
      assert.equal((await raw(named.port, { body: rpcText('ping'), headers: { origin: 'https://api.example' } })).status, 200, 'an allowed host\'s origin')
      assert.equal((await raw(named.port, { body: rpcText('ping'), headers: { origin: 'https://app.example:8443' } })).status, 403, 'that origin only')
      assert.equal((await raw(open.port, { body: rpcText('ping'), headers: { host: 'evil.example', origin: 'http://evil.example' } })).status, 200)
    } finally {
      await named.close()
      await open.close()
    }
  })
})

describe('the bridge\'s options', () => {
  const refused = async (options: Record<string, unknown>): Promise<{ code?: string, message: string } | undefined> => {
    const app = Fastify()
    app.register(mcp, options as McpOptions)
    try {
      await app.ready()
      return undefined
    } catch (thrown) {
      return thrown as { code?: string, message: string }
    } finally {
      await app.close().catch(() => {})
    }
  }

  it('a path that is not one, or a count that is not a positive integer: GPT_ERR_OPTION_INVALID', async () => {
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ path: 'mcp' }, /"path" must be a path starting with \//],
      [{ path: 5 }, /"path" must be a path/],
      [{ path: '' }, /"path" must be a path/],
      [{ maxStreams: 0 }, /"maxStreams" must be a positive integer/],
      [{ maxStreams: -1 }, /"maxStreams"/],
      [{ maxStreams: 1.5 }, /"maxStreams"/],
      [{ maxStreams: '3' }, /"maxStreams"/],
      [{ maxStreams: Infinity }, /"maxStreams"/],
      [{ heartbeat: 0 }, /"heartbeat" must be a positive integer/],
      [{ bodyTimeout: Number.NaN }, /"bodyTimeout" must be a positive integer/]
    ]
    for (const [options, message] of cases) {
      const thrown = await refused(options)
      assert.equal(thrown?.code, 'GPT_ERR_OPTION_INVALID', JSON.stringify(options))
      assert.match(thrown.message, message)
    }
    assert.equal(await refused({ maxStreams: 1, heartbeat: 1, bodyTimeout: 1, path: '/x' }), undefined)
  })
})

describe('a host\'s own hooks hold for the bridge', () => {
  it('@fastify/bearer-auth on the host: 401 without the key, answered with it', async () => {
    const { default: bearerAuth } = await import('@fastify/bearer-auth')
    const secured = await bridged(async (app) => {
      await app.register(bearerAuth, { keys: new Set(['a-long-random-key']) })
      await app.register(gpt, { prefix: '/note', form: noteForm, act: () => ({ ok: true }), rateLimit: false })
    })
    try {
      assert.equal((await raw(secured.port, { body: rpcText('tools/list') })).status, 401)
      assert.equal((await raw(secured.port, { body: rpcText('tools/list'), headers: { authorization: 'Bearer wrong' } })).status, 401)
      assert.equal((await raw(secured.port, { method: 'GET', headers: { accept: 'text/event-stream' } })).status, 401)
      await assert.rejects(secured.connect(), 'the SDK client without the key')
      const client = await secured.connect(undefined, { authorization: 'Bearer a-long-random-key' })
      assert.deepEqual(await client.callTool({ name: 'note', arguments: { note: 'a' } }), { content: [{ type: 'text', text: '{"ok":true}' }], structuredContent: { ok: true } })
    } finally {
      await secured.close()
    }
  })

  it('an address\'s rate limit counts its posts and its calls together, per client: then 429 with Retry-After', async () => {
    const limited = await bridged(async (app) => {
      await app.register(gpt, { prefix: '/note', form: noteForm, act: () => ({ ok: true }), rateLimit: { max: 3, timeWindow: 60_000 } })
    })
    try {
      const post = (): ReturnType<typeof raw> => raw(limited.port, { path: '/note', body: '{"note":"a"}' })
      assert.equal((await post()).status, 200)
      assert.equal((await raw(limited.port, { body: callText('note', '{"note":"a"}') })).status, 200)
      assert.equal((await raw(limited.port, { body: callText('note', '{"note":""}') })).status, 200, 'a refused call counts too')
      const over = await raw(limited.port, { body: callText('note', '{"note":"a"}', undefined, 9) })
      assert.equal(over.status, 429)
      assert.match(String(over.headers['retry-after']), /^[1-9]\d*$/)
      assert.deepEqual(json(over.body), error(-32000, 'Rate limited: call again later', 9))
      assert.equal((await post()).status, 429, 'and the posts after them')
      const other = await limited.app.inject({ method: 'POST', url: '/mcp', remoteAddress: '10.0.0.9', headers: { 'content-type': 'application/json' }, payload: callText('note', '{"note":"a"}') })
      assert.equal(other.statusCode, 200, 'another client has its own count')
      // tools/list looks at each address by its GET, as this client would make it: the limit holds there too
      const listed = await raw(limited.port, { body: rpcText('tools/list') })
      assert.deepEqual([listed.status, json(listed.body)], [429, error(-32000, 'Rate limited: call again later', 1)])
      const elsewhere = await limited.app.inject({ method: 'POST', url: '/mcp', remoteAddress: '10.0.0.9', headers: { 'content-type': 'application/json' }, payload: rpcText('tools/list') })
      assert.equal(elsewhere.json().result.tools.length, 1, 'another client lists it')
    } finally {
      await limited.close()
    }
  })
})
