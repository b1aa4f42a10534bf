// The bridge across instances: two host processes (test/fixtures/mcp-host.ts) serve the same
// addresses, shared through one Redis, and one MCP SDK client's requests go to them in turn (its
// fetch alternates between their ports). No session is kept, so any instance answers any
// request: initialize on one, tools/list and tools/call on the other; an update() stored by one
// instance is served by the other, which lists the changed tool and tells the client's GET stream;
// a job started by a tools/call on one is read, as a resource and by GET, through the other.
import assert from 'node:assert/strict'
import { request as httpRequest } from 'node:http'
import { after, before, describe, it } from 'node:test'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js'
import { REFUSAL } from '../../src/mcp/index.ts'
import { startFixtureHost, type ChildHost } from '../helpers/child-host.ts'
import { redisServer, until, type RedisServer } from '../helpers/redis.ts'

interface Host {
  readonly child: ChildHost
  readonly port: number
  readonly origin: string
  readonly pid: string
}

/** One request of the client's, as it went: where, what, and which process answered. */
interface Sent {
  readonly port: number
  /** The JSON-RPC method of a POST, or GET. */
  readonly what: string
  status?: number
  pid?: string | null
}

/** A fetch for the SDK's transport that sends each request to the next port in turn, and logs it. */
class Alternating {
  readonly log: Sent[] = []
  #turn = 0
  constructor (readonly ports: readonly [number, number]) {}

  /** The port the next request goes to. */
  get next (): number { return this.ports[this.#turn % 2] as number }

  readonly fetch = async (url: string | URL, init?: RequestInit): Promise<Response> => {
    const port = this.next
    this.#turn++
    const to = new URL(url)
    to.port = String(port)
    const body = typeof init?.body === 'string' ? JSON.parse(init.body) as { method?: string } : undefined
    const sent: Sent = { port, what: init?.method === 'GET' ? 'GET' : body?.method ?? 'response' }
    this.log.push(sent)
    const response = await fetch(to, init)
    sent.status = response.status
    sent.pid = response.headers.get('x-pid')
    return response
  }

  /** The last request of this method, as sent. */
  last (what: string): Sent {
    const found = this.log.findLast((sent) => sent.what === what)
    assert.ok(found !== undefined, `no ${what} was sent: ${JSON.stringify(this.log)}`)
    return found
  }
}

let redis: RedisServer
let a: Host
let b: Host

async function host (port: number): Promise<Host> {
  const child = await startFixtureHost('mcp-host', [String(port)])
  const origin = child.url
  return { child, port: Number(new URL(origin).port), origin, pid: String(child.child.pid) }
}

before(async () => {
  redis = await redisServer()
  ;[a, b] = await Promise.all([host(redis.port), host(redis.port)])
})
after(async () => {
  await Promise.all([a?.child.stop(), b?.child.stop()])
  await redis?.stop()
})

/** A POST of JSON to one instance's own route. */
async function post (to: Host, path: string, body: unknown): Promise<{ status: number, json: unknown }> {
  const response = await fetch(`${to.origin}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
  return { status: response.status, json: await response.json() }
}

/** A GET stream on `to`'s bridge, read raw: everything it has sent so far. */
function stream (to: Host): Promise<{ text: () => string, close: () => void }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest({ host: '127.0.0.1', port: to.port, path: '/mcp', headers: { accept: 'text/event-stream' }, agent: false }, (response) => {
      let text = ''
      response.setEncoding('utf8').on('data', (chunk: string) => { text += chunk }).on('error', () => {})
      assert.equal(response.statusCode, 200)
      resolve({ text: () => text, close: () => { request.destroy() } })
    })
    request.on('error', reject)
    request.end()
  })
}

const LIST_CHANGED = 'data: {"jsonrpc":"2.0","method":"notifications/tools/list_changed"}'

interface Listed { name: string, description?: string, inputSchema: { properties?: Record<string, unknown> }, _meta?: Record<string, unknown> }

describe('two instances behind one Redis, one client answered by each in turn', () => {
  let fetcher: Alternating
  let client: Client
  let changed = 0

  /** Makes the next request go to `to`: a ping to the other first, if need be (any instance answers it). */
  const nextTo = async (to: Host): Promise<void> => {
    if (fetcher.next !== to.port) await client.ping()
    assert.equal(fetcher.next, to.port)
  }

  before(async () => {
    fetcher = new Alternating([a.port, b.port])
    client = new Client({ name: 'cluster', version: '1.0.0' })
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => { changed++ })
    const transport = new StreamableHTTPClientTransport(new URL(`${a.origin}/mcp`), { fetch: fetcher.fetch })
    await client.connect(transport)
    // The transport opens its GET stream once initialized is accepted: it has come when it answers.
    await until(() => fetcher.log.some((sent) => sent.what === 'GET' && sent.status !== undefined), 'the client opens its GET stream')
  })
  after(async () => { await client?.close() })

  it('initialize on A, notifications/initialized on B, the GET stream on A: each a request of its own to the next instance', () => {
    assert.deepEqual(fetcher.log.map(({ port, what, status, pid }) => ({ port, what, status, pid })), [
      { port: a.port, what: 'initialize', status: 200, pid: a.pid },
      { port: b.port, what: 'notifications/initialized', status: 202, pid: b.pid },
      { port: a.port, what: 'GET', status: 200, pid: a.pid }
    ])
    assert.notEqual(a.pid, b.pid)
    assert.equal(client.getServerVersion()?.name, 'fastify-gpt')
  })

  it('tools/list and tools/call on B, after initialize on A: the session A gave is read by B (its actor), no state needed', async () => {
    await nextTo(b)
    const { tools } = await client.listTools()
    assert.deepEqual(fetcher.last('tools/list'), { port: b.port, what: 'tools/list', status: 200, pid: b.pid })
    assert.deepEqual(tools.map((tool) => tool.name), ['board', 'slow'])
    const board = tools[0] as Listed
    assert.equal(board.description, 'A note board: leave a note.')
    assert.deepEqual(Object.keys(board.inputSchema.properties ?? {}), ['note'])

    await nextTo(b)
    const result = await client.callTool({ name: 'board', arguments: { note: 'hello' } })
    assert.deepEqual(fetcher.last('tools/call'), { port: b.port, what: 'tools/call', status: 200, pid: b.pid })
    // The act ran on B, and its actor is the clientInfo given to A at initialize.
    assert.deepEqual(result.structuredContent, { got: { note: 'hello' }, actor: 'cluster/1.0.0', by: Number(b.pid) })

    // And on A, the next request: the same tool, the same answer but for where it ran.
    const again = await client.callTool({ name: 'board', arguments: { note: 'hello' } })
    assert.equal(fetcher.last('tools/call').port, a.port)
    assert.deepEqual(again.structuredContent, { got: { note: 'hello' }, actor: 'cluster/1.0.0', by: Number(a.pid) })

    // A member the form does not have yet is refused, on either instance, with the one result.
    for (let i = 0; i < 2; i++) {
      const refused = await client.callTool({ name: 'board', arguments: { note: 'hello', mood: 'glad' } })
      assert.deepEqual(refused, JSON.parse(REFUSAL))
    }
    assert.deepEqual(fetcher.log.filter((sent) => sent.what === 'tools/call').slice(-2).map((sent) => sent.port).sort(), [a.port, b.port].sort())
  })

  it('an update() stored on B reaches A: A lists the changed tool, acts by its new form, and tells the client\'s GET stream (on A) tools/list_changed', async () => {
    const held = fetcher.last('GET')
    assert.equal(held.port, a.port, 'the client holds its GET stream on A')
    const raw = await stream(b) // and a stream of another client's on B, the instance that updates
    try {
      const before = changed
      const form = {
        type: 'object',
        properties: { note: { type: 'string', minLength: 1, maxLength: 40 }, mood: { enum: ['glad', 'sad'] } },
        required: ['note'],
        additionalProperties: false
      }
      const updated = await post(b, '/_update', { prompt: 'A note board: leave a note, and say how you feel.', form })
      assert.equal(updated.status, 200)
      const { etag } = updated.json as { etag: string }

      await until(() => changed > before, 'tools/list_changed reaches the client through its GET stream on A')
      await until(() => raw.text().includes(LIST_CHANGED), 'and the stream on B, where the update was made')

      await nextTo(a)
      const { tools } = await client.listTools()
      assert.equal(fetcher.last('tools/list').pid, a.pid)
      const board = tools.find((tool) => tool.name === 'board') as Listed
      assert.equal(board.description, 'A note board: leave a note, and say how you feel.')
      assert.deepEqual(board.inputSchema, form)
      assert.equal(board._meta?.['fastify-gpt/etag'], etag, 'A lists the edition B stored, under the same entity tag')
      // the arrival A serves is that edition too
      const arrival = await fetch(`${a.origin}/board`)
      assert.equal(arrival.headers.get('etag'), etag)

      await nextTo(a)
      const result = await client.callTool({ name: 'board', arguments: { note: 'hello', mood: 'glad' } })
      assert.equal(fetcher.last('tools/call').pid, a.pid)
      assert.deepEqual(result.structuredContent, { got: { note: 'hello', mood: 'glad' }, actor: 'cluster/1.0.0', by: Number(a.pid) })
      // a change of nothing the tool shows (the same content again) is no news
      const count = changed
      assert.equal((await post(a, '/_update', { prompt: 'A note board: leave a note, and say how you feel.' })).status, 200)
      await client.ping()
      await client.ping()
      assert.equal(changed, count)
    } finally {
      raw.close()
    }
  })

  it('a job started by tools/call on A is read through B: as a resource (resources/read) and by GET, working, then done', async () => {
    await nextTo(a)
    const started = await client.callTool({ name: 'slow', arguments: { steps: 1 } })
    assert.deepEqual(fetcher.last('tools/call'), { port: a.port, what: 'tools/call', status: 200, pid: a.pid })
    const handle = started.structuredContent as { href: string, status: string }
    assert.equal(handle.status, 'working')
    // The handle names the job on the instance it was started on; its path is the same on every one.
    assert.match(handle.href, new RegExp(`^${a.origin}/slow/jobs/[\\w-]+$`))
    const path = new URL(handle.href).pathname
    const link = (started.content as Array<{ type: string, uri?: string }>)[0]
    assert.deepEqual([link?.type, link?.uri], ['resource_link', handle.href])

    // The next request goes to B: the job's resource, as B reads it from Redis.
    assert.equal(fetcher.next, b.port)
    const read = await client.readResource({ uri: handle.href })
    assert.deepEqual(fetcher.last('resources/read'), { port: b.port, what: 'resources/read', status: 200, pid: b.pid })
    const text = (read.contents[0] as { text: string }).text
    const working = JSON.parse(text) as { p: string, s: unknown, status: string }
    assert.equal(working.status, 'working')
    // ...the very bytes B's GET of the job sends
    const got = await fetch(`${b.origin}${path}`)
    assert.equal(got.status, 200)
    assert.equal(got.headers.get('x-pid'), b.pid)
    assert.equal(await got.text(), text)

    // The act runs on A: its step opened there, the job completes, and B reads the result.
    assert.equal((await post(a, '/_step', {})).status, 200)
    await until(async () => (await (await fetch(`${b.origin}${path}`)).json() as { status: string }).status === 'completed', 'B reads the job completed')
    await nextTo(b)
    const done = await client.readResource({ uri: `${b.origin}${path}` })
    assert.equal(fetcher.last('resources/read').pid, b.pid)
    const completed = JSON.parse((done.contents[0] as { text: string }).text) as { status: string, result: unknown }
    assert.equal(completed.status, 'completed')
    assert.deepEqual(completed.result, { steps: 1, by: Number(a.pid) })
  })
})
