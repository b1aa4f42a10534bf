// resources/list and resources/read: each address's arrival, the very bytes its GET sends, and the
// job addresses of one with background; anything else is -32002.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { McpError } from '@modelcontextprotocol/sdk/types.js'
import gpt, { type GptAddress, type GptOptions } from '../../src/index.ts'
import { bridged, noteForm, raw, rpcText, type Bridged } from './bridge-host.ts'
import { gate } from '../helpers/jobs.ts'

/** The text of a resource's first contents (the bridge sends text, never a blob). */
const textOf = (read: { contents: ReadonlyArray<object> }): string => (read.contents[0] as { text: string }).text

/** The view of the tool `name` as resources/list has it (test/mcp/apps.test.ts reads it). */
const view = (name: string, path: string): object => ({
  uri: `ui://fastify-gpt/${name}`,
  name: `${name}_view`,
  description: `The page of ${path}, to act on it in the host: a labelled input for each member of its form.`,
  mimeType: 'text/html;profile=mcp-app'
})

let host: Bridged
let orders: GptAddress
const release = gate()

before(async () => {
  host = await bridged(async (app) => {
    await app.register(gpt, { prefix: '/orders/new', prompt: 'Place an order.', form: noteForm, act: () => null, rateLimit: false, onAddress: (address) => { orders = address } })
    await app.register(gpt, { form: { type: 'string' }, messages: [{ role: 'user', content: 'é' }], act: () => null, rateLimit: false })
    await app.register(gpt, {
      prefix: '/slow',
      prompt: 'Slowly.',
      form: { type: 'object' },
      rateLimit: false,
      background: { after: 1 },
      act: async () => { await release.promise; return { done: 'yes' } }
    } as GptOptions)
  })
})
after(async () => {
  release.open()
  await host.close()
})

describe('resources/list', () => {
  it('lists each address by its URL where the client reached the host, named as its tool, described by p', async () => {
    const client = await host.connect()
    const { resources } = await client.listResources()
    assert.deepEqual(resources, [
      { uri: `${host.origin}/orders/new`, name: 'orders_new', mimeType: 'application/json', description: 'Place an order.' },
      view('orders_new', '/orders/new'),
      { uri: `${host.origin}/`, name: 'root', mimeType: 'application/json', description: '' },
      view('root', '/'),
      { uri: `${host.origin}/slow`, name: 'slow', mimeType: 'application/json', description: 'Slowly.' },
      view('slow', '/slow')
    ], 'each address, then its view (MCP Apps)')
    const named = await raw(host.port, { body: rpcText('resources/list'), headers: { host: 'localhost:8123' } })
    assert.equal(JSON.parse(named.body).result.resources[0].uri, 'http://localhost:8123/orders/new', 'by the Host the request named')
  })

  it('lists the job addresses of an address with background as a template', async () => {
    const client = await host.connect()
    const { resourceTemplates } = await client.listResourceTemplates()
    assert.deepEqual(resourceTemplates, [{
      uriTemplate: `${host.origin}/slow/jobs/{id}`,
      name: 'slow_job',
      mimeType: 'application/json',
      description: 'A job of the tool slow: its state, progress and result.'
    }])
  })
})

describe('resources/read', () => {
  it('reads the arrival: byte for byte what GET sends, and after update() what GET sends then', async () => {
    const client = await host.connect()
    for (const path of ['/orders/new', '/']) {
      const got = await client.readResource({ uri: `${host.origin}${path}` })
      const get = await fetch(host.origin + path)
      assert.deepEqual(got.contents, [{ uri: `${host.origin}${path}`, mimeType: 'application/json', text: await get.text() }])
    }
    // Byte for byte, not only as JSON: the raw answer's text decodes to GET's body.
    const response = await raw(host.port, { body: rpcText('resources/read', { uri: `${host.origin}/` }) })
    const text = JSON.parse(response.body).result.contents[0].text as string
    assert.ok(Buffer.from(text).equals(Buffer.from(await (await fetch(`${host.origin}/`)).arrayBuffer())))
    const before = textOf(await client.readResource({ uri: `${host.origin}/orders/new` }))
    orders.update({ prompt: 'Place a bigger order.', form: { type: 'object', properties: { n: { type: 'integer' } } } })
    const later = textOf(await client.readResource({ uri: `${host.origin}/orders/new` }))
    assert.notEqual(later, before)
    assert.equal(later, await (await fetch(`${host.origin}/orders/new`)).text())
    assert.deepEqual(JSON.parse(later).s, { type: 'object', properties: { n: { type: 'integer' } } })
    const listed = (await client.listResources()).resources[0]!
    assert.equal(listed.description, 'Place a bigger order.', 'and resources/list follows')
  })

  it('reads by path: another origin (a proxy\'s) names the same address; a query is not part of it', async () => {
    const client = await host.connect()
    const got = await client.readResource({ uri: 'https://public.example/orders/new?x=1' })
    assert.equal(got.contents[0]!.uri, 'https://public.example/orders/new?x=1', 'the URI as asked')
    assert.equal(textOf(got), await (await fetch(`${host.origin}/orders/new`)).text())
  })

  it('reads a job address: the job\'s arrival, as its GET sends it', async () => {
    const client = await host.connect()
    const called = await client.callTool({ name: 'slow', arguments: {} })
    const link = (called.content as Array<{ type: string, uri?: string }>).find((item) => item.type === 'resource_link')
    assert.ok(link?.uri !== undefined)
    assert.match(link.uri, new RegExp(`^${host.origin}/slow/jobs/[^/]+$`))
    const read = await client.readResource({ uri: link.uri })
    const text = textOf(read)
    assert.equal(text, await (await fetch(link.uri)).text())
    assert.equal(JSON.parse(text).status, 'working')
  })

  it('answers -32002 for anything that is not an address or a job', async () => {
    const client = await host.connect()
    const uris = [
      `${host.origin}/nowhere`,
      `${host.origin}/slow/jobs/no-such-job`,
      `${host.origin}/slow/jobs/`,
      `${host.origin}/orders/jobs/x`,
      `${host.origin}/jobs/x`,
      'not a uri',
      ''
    ]
    for (const uri of uris) {
      await assert.rejects(client.readResource({ uri }), (error: unknown) => error instanceof McpError && error.code === -32002, uri)
    }
    for (const params of [{}, { uri: 7 }, { uri: null }]) {
      const response = await raw(host.port, { body: rpcText('resources/read', params) })
      assert.deepEqual(JSON.parse(response.body), { jsonrpc: '2.0', id: 1, error: { code: -32002, message: 'Resource not found' } })
    }
  })
})

describe('resources of paths a URI must encode', () => {
  it('lists each as a URI (percent-encoded), and reads back what it lists, jobs too', async () => {
    const held = gate()
    const odd = await bridged(async (app) => {
      await app.register(gpt, { prefix: '/über', form: { type: 'object' }, act: () => null, rateLimit: false })
      await app.register(gpt, { prefix: '/a b', form: { type: 'object' }, act: async () => { await held.promise; return 1 }, rateLimit: false, background: { after: 1 } })
    })
    try {
      const client = await odd.connect()
      const resources = (await client.listResources()).resources.filter((resource) => resource.mimeType === 'application/json')
      assert.deepEqual(resources.map((resource) => resource.uri), [`${odd.origin}/%C3%BCber`, `${odd.origin}/a%20b`])
      for (const { uri } of resources) {
        assert.equal(new URL(uri).href, uri, 'a URI as it stands')
        const got = await client.readResource({ uri })
        assert.equal(textOf(got), await (await fetch(uri)).text(), uri)
      }
      const unencoded = await raw(odd.port, { body: rpcText('resources/read', { uri: `${odd.origin}/über` }) })
      assert.equal(JSON.parse(unencoded.body).result.contents[0].uri, `${odd.origin}/über`, 'written as an IRI: found all the same')
      const { resourceTemplates } = await client.listResourceTemplates()
      assert.equal(resourceTemplates[0]!.uriTemplate, `${odd.origin}/a%20b/jobs/{id}`)
      const called = await client.callTool({ name: 'a_b', arguments: {} })
      const link = (called.content as Array<{ type: string, uri: string }>)[0]!
      assert.equal(link.type, 'resource_link')
      assert.match(link.uri, new RegExp(`^${odd.origin}/a%20b/jobs/[^/ ]+$`))
      assert.equal(new URL(link.uri).href, link.uri)
      assert.equal((called.structuredContent as { events: string }).events, `${link.uri}/events`)
      const job = await client.readResource({ uri: link.uri })
      assert.equal(textOf(job), await (await fetch(link.uri)).text())
      await assert.rejects(client.readResource({ uri: `${odd.origin}/%E0%A4%A` }), (error: unknown) => error instanceof McpError && error.code === -32002, 'a malformed escape')
    } finally {
      held.open()
      await odd.close()
    }
  })
})
