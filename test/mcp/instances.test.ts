// Two host processes behind one Redis answer one MCP client's requests in turn: no session is
// kept, so initialize on one and calls on the other work; an update stored by one reaches the
// other's tools and its GET streams; a job started through one is read through the other.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js'
import { startChild, type ChildHost } from '../helpers/child-host.ts'
import { redisServer, type RedisServer } from '../helpers/redis.ts'

describe('two instances behind one Redis, one client', () => {
  let redis: RedisServer
  let hosts: ChildHost[] = []
  let origins: string[] = []
  const answered: string[] = []

  before(async () => {
    redis = await redisServer()
    hosts = await Promise.all([0, 1].map(() => startChild(['--import', './test/register.js', 'test/fixtures/mcp-cluster-host.ts', String(redis.port)])))
    origins = hosts.map((host) => host.line.trim())
  })
  after(async () => {
    await Promise.all(hosts.map((host) => host.stop()))
    await redis.stop()
  })

  /** A client whose requests go to the instances in turn (or always to `only`), each noted. */
  async function client (only?: number): Promise<Client> {
    let turn = 0
    const fetchInTurn = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
      const index = only ?? turn++ % 2
      answered.push(String(index))
      const url = new URL(String(input instanceof Request ? input.url : input))
      return await fetch(`${origins[index]}${url.pathname}`, init)
    }
    const connected = new Client({ name: 'cluster-test', version: '1.0' })
    await connected.connect(new StreamableHTTPClientTransport(new URL(`${origins[0]}/mcp`), { fetch: fetchInTurn }))
    return connected
  }

  it('initializes on one instance and lists and calls on the other, the board one across both', async () => {
    const c = await client()
    answered.length = 0
    const tools = await c.listTools()
    assert.deepEqual(tools.tools.map((tool) => tool.name).sort(), ['board', 'slow'])
    const pids = new Set<number>()
    for (const note of ['a', 'b', 'c', 'd']) {
      const result = await c.callTool({ name: 'board', arguments: { note } })
      const { pinned, by } = result.structuredContent as { pinned: string, by: number }
      assert.equal(pinned, note)
      pids.add(by)
    }
    assert.equal(pids.size, 2, 'both instances acted')
    assert.ok(answered.includes('0') && answered.includes('1'))
    await c.close()
  })

  it('tells a client streaming from one instance of an update stored through the other, and lists the new tool there', async () => {
    const listener = await client(1)
    const changed = new Promise<void>((resolve) => { listener.setNotificationHandler(ToolListChangedNotificationSchema, () => { resolve() }) })
    await new Promise((resolve) => setTimeout(resolve, 300)) // the GET stream opens after initialize
    const updated = await fetch(`${origins[0]}/update`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'Pin a short note.' })
    assert.equal(updated.status, 200)
    await Promise.race([changed, new Promise((_resolve, reject) => setTimeout(() => { reject(new Error('no list_changed within 5 s')) }, 5000))])
    const board = (await listener.listTools()).tools.find((tool) => tool.name === 'board')
    assert.equal(board?.description, 'Pin a short note.')
    await listener.close()
  })

  it('reads a job started through one instance through the other: by resources/read and by GET', async () => {
    const starter = await client(0)
    const started = await starter.callTool({ name: 'slow', arguments: { value: 3 } })
    const link = (started.content as Array<{ type: string, uri?: string }>).find((part) => part.type === 'resource_link')
    assert.ok(link?.uri !== undefined, JSON.stringify(started))
    const path = new URL(link.uri).pathname
    const reader = await client(1)
    const read = await reader.readResource({ uri: `${origins[1]}${path}` })
    const job = JSON.parse((read.contents[0] as { text: string }).text) as { status: string }
    assert.ok(['working', 'completed'].includes(job.status), job.status)
    const got = await fetch(`${origins[1]}${path}`)
    assert.equal(got.status, 200)
    await starter.close()
    await reader.close()
  })
})
