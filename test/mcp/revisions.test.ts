// Each protocol revision the bridge speaks answers with its own shapes: a tool's title, annotations
// and icons, a result's structuredContent and resource_link, only where the revision has them
// (each revision's schema.ts). The revision is the request's MCP-Protocol-Version, else the one its
// session negotiated, else 2025-03-26, which Streamable HTTP assumes without either.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import gpt from '../../src/index.ts'
import { PROTOCOL_VERSIONS } from '../../src/mcp/index.ts'
import { bridged, callText, noteForm, raw, rpcText, type Bridged } from './bridge-host.ts'

const icons = [{ src: 'https://example.com/notes.png', mimeType: 'image/png', sizes: ['48x48'], theme: 'dark' as const }]
const annotations = { readOnlyHint: false, destructiveHint: false, openWorldHint: false }

let host: Bridged
let release = (): void => {}
const held = new Promise<void>((resolve) => { release = resolve })

before(async () => {
  host = await bridged(async (app) => {
    await app.register(gpt, { prefix: '/notes', prompt: 'Pin a note. It stays a day.', title: 'Pin a note', annotations, icons, idempotency: true, form: noteForm, act: () => ({ pinned: true }), rateLimit: false })
    await app.register(gpt, { prefix: '/plain', prompt: 'Say hello. Nothing else.', form: { type: 'object' }, act: () => ({ hello: 1 }), rateLimit: false })
    await app.register(gpt, { prefix: '/bare', form: { type: 'object' }, act: () => null, rateLimit: false })
    await app.register(gpt, { prefix: '/slow', form: { type: 'object' }, background: { after: 1 }, act: async () => { await held; return {} }, rateLimit: false })
  })
})
after(async () => {
  release()
  await host.close()
})

type Listed = Record<string, unknown>
const tools = async (headers: Record<string, string | undefined>): Promise<Listed[]> =>
  (JSON.parse((await raw(host.port, { body: rpcText('tools/list'), headers })).body).result as { tools: Listed[] }).tools

/** A session id as `initialize` of `revision` gives it. */
async function sessionOf (revision: string): Promise<string> {
  const answer = await raw(host.port, { body: rpcText('initialize', { protocolVersion: revision, capabilities: {}, clientInfo: { name: 'old', version: '1' } }), headers: { 'mcp-protocol-version': undefined } })
  return String(answer.headers['mcp-session-id'])
}

describe('tools/list, as each revision has a tool', () => {
  it('2025-11-25: title, annotations as declared, icons, and the Idempotency-Key support in _meta, never as idempotentHint', async () => {
    const [notes, plain, bare] = await tools({ 'mcp-protocol-version': '2025-11-25' })
    assert.deepEqual(Object.keys(notes!), ['name', 'title', 'description', 'inputSchema', 'annotations', 'icons', '_meta'])
    assert.equal(notes!['title'], 'Pin a note')
    assert.deepEqual(notes!['annotations'], annotations)
    assert.deepEqual(notes!['icons'], icons)
    assert.equal((notes!['_meta'] as Listed)['fastify-gpt/idempotency'], true)
    assert.deepEqual(Object.keys(plain!), ['name', 'title', 'description', 'inputSchema', '_meta'], 'nothing declared: no annotations, no icons')
    assert.equal(plain!['title'], 'Say hello.', 'the prompt\'s first sentence')
    assert.equal((plain!['_meta'] as Listed)['fastify-gpt/idempotency'], undefined)
    assert.deepEqual(Object.keys(bare!), ['name', 'description', 'inputSchema', '_meta'], 'no prompt, no title')
  })

  it('2025-06-18: title and annotations, no icons', async () => {
    const [notes, plain] = await tools({ 'mcp-protocol-version': '2025-06-18' })
    assert.deepEqual(Object.keys(notes!), ['name', 'title', 'description', 'inputSchema', 'annotations', '_meta'])
    assert.deepEqual(notes!['annotations'], annotations)
    assert.equal(plain!['title'], 'Say hello.')
  })

  it('2025-03-26: the title as annotations.title, its one place there; no icons, and no _meta (a Tool has none before 2025-06-18)', async () => {
    const [notes, plain, bare] = await tools({ 'mcp-protocol-version': '2025-03-26' })
    assert.deepEqual(Object.keys(notes!), ['name', 'description', 'inputSchema', 'annotations'])
    assert.deepEqual(notes!['annotations'], { title: 'Pin a note', ...annotations })
    assert.deepEqual(plain!['annotations'], { title: 'Say hello.' })
    assert.deepEqual(Object.keys(bare!), ['name', 'description', 'inputSchema'])
  })

  it('2024-11-05: name, description and inputSchema alone', async () => {
    const [notes] = await tools({ 'mcp-protocol-version': '2024-11-05' })
    assert.deepEqual(Object.keys(notes!), ['name', 'description', 'inputSchema'])
  })

  it('without MCP-Protocol-Version: the revision the session negotiated, else 2025-03-26', async () => {
    for (const revision of PROTOCOL_VERSIONS) {
      const [notes] = await tools({ 'mcp-protocol-version': undefined, 'mcp-session-id': await sessionOf(revision) })
      assert.deepEqual(notes, (await tools({ 'mcp-protocol-version': revision }))[0], revision)
    }
    const assumed = await tools({ 'mcp-protocol-version': undefined })
    assert.deepEqual(assumed, await tools({ 'mcp-protocol-version': '2025-03-26' }))
    for (const session of ['x.', 'x.e30', 'x.bm90IGpzb24', `x.${Buffer.from('["a","b","1999-01-01"]').toString('base64url')}`, `x.${Buffer.from('["a","b"]').toString('base64url')}`]) {
      assert.deepEqual(await tools({ 'mcp-protocol-version': undefined, 'mcp-session-id': session }), assumed, `${session}: none it names`)
    }
    const [notes] = await tools({ 'mcp-protocol-version': '2025-11-25', 'mcp-session-id': await sessionOf('2025-03-26') })
    assert.equal(notes!['title'], 'Pin a note', 'the header names the revision, whatever the session said')
  })

  it('the SDK client (2025-11-25) reads every member', async () => {
    const client = await host.connect()
    const listed = (await client.listTools()).tools[0]!
    assert.equal(listed.title, 'Pin a note')
    assert.deepEqual(listed.annotations, annotations)
    assert.deepEqual(listed.icons, icons)
  })
})

describe('tools/call, as each revision has a result', () => {
  const called = async (name: string, revision: string): Promise<Listed> =>
    JSON.parse((await raw(host.port, { body: callText(name, '{}'), headers: { 'mcp-protocol-version': revision } })).body).result as Listed

  it('structuredContent from 2025-06-18 only', async () => {
    for (const revision of PROTOCOL_VERSIONS) {
      const text = [{ type: 'text', text: '{"hello":1}' }]
      const structured = revision >= '2025-06-18'
      assert.deepEqual(await called('plain', revision), structured ? { content: text, structuredContent: { hello: 1 } } : { content: text }, revision)
    }
  })

  it('a job\'s handle: a resource_link and structuredContent from 2025-06-18, its JSON as text before', async () => {
    for (const revision of PROTOCOL_VERSIONS) {
      const result = await called('slow', revision) as { content: Array<{ type: string, text?: string, uri?: string }>, structuredContent?: { href: string } }
      const handle = JSON.parse(result.content.at(-1)!.text!) as { href: string }
      assert.match(handle.href, /^http:\/\/127\.0\.0\.1:\d+\/slow\/jobs\//, revision)
      if (revision >= '2025-06-18') {
        assert.deepEqual(result.content.map((part) => part.type), ['resource_link', 'text'], revision)
        assert.deepEqual(result.structuredContent, handle)
      } else {
        assert.deepEqual(result, { content: [{ type: 'text', text: JSON.stringify(handle) }] }, revision)
      }
    }
  })
})
