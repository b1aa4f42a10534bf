// The official SDKs' clients against one host over a real socket: the 2.x client pinned to
// 2026-07-28, in auto mode (which probes with server/discover and so speaks 2026-07-28 here), and
// in legacy mode (initialize, 2025-11-25), and the 1.x client. Each lists the tools, calls one with
// arguments the form accepts and with arguments it refuses, reads a resource, and meets the host's
// gate on acts as a POST does.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client'
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import gpt from '../../src/index.ts'
import { REFUSAL } from '../../src/mcp/index.ts'
import { bridged, noteForm, raw, type Bridged } from './bridge-host.ts'

/** What each client is asked, whatever it speaks. */
interface Speaking {
  listTools (): Promise<{ tools: Array<{ name: string, title?: string | undefined }> }>
  callTool (params: { name: string, arguments: Record<string, unknown> }): Promise<unknown>
  readResource (params: { uri: string }): Promise<{ contents: Array<Record<string, unknown>> }>
  close (): Promise<void>
}

let host: Bridged
const acted: unknown[] = []

/** A result without its `_meta`, and who that `_meta` says answered (2026-07-28 alone names it). */
function apart (result: unknown): [unknown, unknown] {
  const { _meta: meta, ...rest } = result as { _meta?: Record<string, unknown> }
  return [rest, meta?.['io.modelcontextprotocol/serverInfo']]
}
const SERVER = { name: 'fastify-gpt', version: '0.1.0' }

before(async () => {
  host = await bridged(async (app) => {
    await app.register(gpt, { prefix: '/notes', prompt: 'Pin a note.', form: noteForm, act: (body) => { acted.push(body); return { pinned: body.note } }, rateLimit: false })
    await app.register(async (gated) => {
      // A gate on acts (draft §3.1: never the arrival): a POST without the key is the host's 401.
      gated.addHook('onRequest', async (request, reply) => {
        if (request.method === 'POST' && request.headers.authorization !== 'Bearer k') await reply.code(401).header('www-authenticate', 'Bearer').send()
      })
      await gated.register(gpt, { prefix: '/vault', form: { type: 'object' }, act: () => ({ opened: true }), rateLimit: false })
    })
  })
})
after(async () => { await host.close() })

const url = (): URL => new URL(`${host.origin}/mcp`)

const clients: Record<string, (headers?: Record<string, string>) => Promise<Speaking>> = {
  'SDK 2.x pinned to 2026-07-28': async (headers = {}) => {
    const client = new ClientV2({ name: 'pinned', version: '2' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } })
    await client.connect(new TransportV2(url(), { requestInit: { headers } }))
    return client as unknown as Speaking
  },
  'SDK 2.x in auto mode': async (headers = {}) => {
    const client = new ClientV2({ name: 'auto', version: '2' }, { versionNegotiation: { mode: 'auto' } })
    await client.connect(new TransportV2(url(), { requestInit: { headers } }))
    return client as unknown as Speaking
  },
  'SDK 2.x in legacy mode': async (headers = {}) => {
    const client = new ClientV2({ name: 'legacy', version: '2' }, { versionNegotiation: { mode: 'legacy' } })
    await client.connect(new TransportV2(url(), { requestInit: { headers } }))
    return client as unknown as Speaking
  },
  'SDK 1.x': async (headers = {}) => {
    const client = new ClientV1({ name: 'one', version: '1' })
    await client.connect(new TransportV1(url(), { requestInit: { headers } }))
    return client as unknown as Speaking
  }
}

describe('the SDKs\' clients, each against the same host', () => {
  for (const [name, connect] of Object.entries(clients)) {
    it(`${name}: lists the tools, calls one (accepted, refused), reads a resource, and meets the gate on acts`, async () => {
      const server = name.includes('2026-07-28') || name.includes('auto') ? SERVER : undefined
      const client = await connect()
      try {
        const { tools } = await client.listTools()
        assert.deepEqual(tools.map((tool) => [tool.name, tool.title]), [['notes', 'Pin a note.'], ['vault', undefined]])
        const start = acted.length
        assert.deepEqual(apart(await client.callTool({ name: 'notes', arguments: { note: 'hi', stars: 5 } })), [{
          content: [{ type: 'text', text: '{"pinned":"hi"}' }],
          structuredContent: { pinned: 'hi' }
        }, server])
        assert.deepEqual(acted.slice(start), [{ note: 'hi', stars: 5 }], 'the arguments, as sent')
        assert.deepEqual(apart(await client.callTool({ name: 'notes', arguments: { note: '' } })), [JSON.parse(REFUSAL), server], 'the one refusal')
        assert.equal(acted.length, start + 1, 'not acted on')
        const { contents } = await client.readResource({ uri: `${host.origin}/notes` })
        assert.equal(contents[0]!['text'], (await raw(host.port, { method: 'GET', path: '/notes', headers: { accept: 'application/json' } })).body, 'the arrival\'s very bytes')
        await assert.rejects(client.callTool({ name: 'vault', arguments: {} }), 'the host\'s 401, as for a POST')
      } finally {
        await client.close()
      }
      const keyed = await connect({ authorization: 'Bearer k' })
      try {
        assert.deepEqual((await keyed.callTool({ name: 'vault', arguments: {} }) as { structuredContent: unknown }).structuredContent, { opened: true })
      } finally {
        await keyed.close()
      }
    })
  }
})
