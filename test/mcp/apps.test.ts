// MCP Apps (the extension io.modelcontextprotocol/ui, specification 2026-01-26): each address's
// tool names its view, a ui:// resource that reads as the address's page made for a host's frame.
// The view acting in a browser, through the official host bridge: test/mcp/apps-browser.test.ts.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { getToolUiResourceUri, RESOURCE_MIME_TYPE } from '@modelcontextprotocol/ext-apps/app-bridge'
import gpt from '../../src/index.ts'
import { renderPage, renderView, VIEW_MAX_BYTES } from '../../src/page/html.ts'
import { SCRIPT } from '../../src/page/script.ts'
import { VIEW_SCRIPT } from '../../src/page/view-script.ts'
import { bridged, noteForm, raw, rpcText, type Bridged } from './bridge-host.ts'

const EVIL = '<script>window.pwned = 1</script>'

let host: Bridged

before(async () => {
  host = await bridged(async (app) => {
    await app.register(gpt, { prefix: '/notes', prompt: `Pin a note. ${EVIL}`, form: noteForm, act: (body) => ({ pinned: body.note }), rateLimit: false })
    await app.register(gpt, { prefix: '/quiet', html: false, form: { type: 'object' }, act: () => null, rateLimit: false })
    await app.register(gpt, { prefix: '/word', form: { type: 'string' }, act: () => null, rateLimit: false })
    await app.register(async (scope) => {
      scope.addHook('onRequest', async (request, reply) => {
        if (request.headers.authorization !== 'Bearer key') await reply.code(401).header('www-authenticate', 'Bearer').send()
      })
      await scope.register(gpt, { prefix: '/admin', form: { type: 'object' }, act: () => null, rateLimit: false })
    })
  })
})
after(async () => { await host.close() })

type Json = Record<string, unknown>
const resultOf = async (method: string, params: Json, revision = '2025-11-25'): Promise<Json> => {
  const name = typeof params['uri'] === 'string' ? { 'mcp-name': params['uri'] } : {}
  const modern = revision === '2026-07-28' ? { 'mcp-method': method, ...name } : {}
  const answer = await raw(host.port, { body: rpcText(method, params), headers: { 'mcp-protocol-version': revision, ...modern } })
  return JSON.parse(answer.body) as Json
}

describe('"Resource Discovery": a tool names its view', () => {
  it('as _meta.ui.resourceUri, read by the extension\'s own helper; none with html: false', async () => {
    const client = await host.connect()
    const { tools } = await client.listTools()
    assert.deepEqual(tools.map((tool) => [tool.name, getToolUiResourceUri({ _meta: tool._meta })]), [
      ['notes', 'ui://fastify-gpt/notes'],
      ['quiet', undefined],
      ['word', 'ui://fastify-gpt/word']
    ], 'the tool /admin is hidden from this caller, as its GET is')
  })

  it('resources/list lists each view beside its address\'s arrival, as the extension\'s MIME type; none with html: false', async () => {
    const client = await host.connect()
    const views = (await client.listResources()).resources.filter((resource) => resource.uri.startsWith('ui://'))
    assert.deepEqual(views.map((view) => [view.uri, view.mimeType]), [['ui://fastify-gpt/notes', RESOURCE_MIME_TYPE], ['ui://fastify-gpt/word', RESOURCE_MIME_TYPE]])
  })
})

describe('"UI Resource Format": resources/read of a view', () => {
  it('is one HTML document of text/html;profile=mcp-app: the page, acting through the host, everything from p escaped', async () => {
    const client = await host.connect()
    const read = await client.readResource({ uri: 'ui://fastify-gpt/notes' })
    assert.equal(read.contents.length, 1)
    const [content] = read.contents as Array<{ uri: string, mimeType: string, text: string, _meta: unknown }>
    assert.deepEqual([content!.uri, content!.mimeType, content!._meta], ['ui://fastify-gpt/notes', 'text/html;profile=mcp-app', { ui: { prefersBorder: true } }])
    const html = content!.text
    assert.match(html, /^<!doctype html>/)
    assert.ok(!html.includes(EVIL) && html.includes('&lt;script&gt;window.pwned = 1&lt;/script&gt;'), 'p is escaped')
    assert.ok(html.includes('<form id="act" class="compose" data-tool="notes" novalidate>'), 'the tool it calls')
    assert.ok(html.includes(`<script>${VIEW_SCRIPT}</script>\n<script>${SCRIPT}</script>`), 'the door first, then the page\'s one script')
    assert.ok(!/\bfetch\(/.test(VIEW_SCRIPT), 'the door never fetches: the host\'s CSP allows no connection')
    assert.ok(!/<(?:script|link|img|iframe)\b[^>]*\s(?:src|href)=/i.test(html), 'nothing loaded from elsewhere: the default CSP allows none')
    for (const member of Object.keys(noteForm.properties)) assert.ok(html.includes(`data-name="${member}"`), `an input for ${member}`)
  })

  it('a form whose root is no object acts with its body as the arguments\' value', async () => {
    const client = await host.connect()
    const read = await client.readResource({ uri: 'ui://fastify-gpt/word' })
    assert.ok((read.contents[0] as { text: string }).text.includes('data-tool="word" data-wrapped novalidate'))
  })

  it('an unknown ui:// URI, or the view of an address with html: false, is the revision\'s not found', async () => {
    for (const uri of ['ui://fastify-gpt/nowhere', 'ui://fastify-gpt/quiet', 'ui://other/notes']) {
      assert.deepEqual((await resultOf('resources/read', { uri }))['error'], { code: -32002, message: 'Resource not found' }, uri)
      const modern = await resultOf('resources/read', {
        uri,
        _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} }
      }, '2026-07-28')
      assert.deepEqual(modern['error'], { code: -32602, message: 'Resource not found', data: { uri } }, uri)
    }
  })
})

describe('a view is its address\'s: a host\'s hook that hides the address hides its view', () => {
  it('not listed to a caller the GET refuses, read as the hook answers it; listed and read with the key', async () => {
    const anonymous = await host.connect()
    assert.ok(!(await anonymous.listResources()).resources.some((resource) => resource.uri === 'ui://fastify-gpt/admin'))
    const refused = await raw(host.port, { body: rpcText('resources/read', { uri: 'ui://fastify-gpt/admin' }) })
    assert.deepEqual([refused.status, refused.headers['www-authenticate']], [401, 'Bearer'])
    const admin = await host.connect(undefined, { authorization: 'Bearer key' })
    assert.ok((await admin.listResources()).resources.some((resource) => resource.uri === 'ui://fastify-gpt/admin'))
    const read = await admin.readResource({ uri: 'ui://fastify-gpt/admin' })
    assert.match((read.contents[0] as { text: string }).text, /data-tool="admin"/)
  })
})

describe('"Capability Negotiation": the extension declared', () => {
  it('in server/discover\'s capabilities (2026-07-28), and not in initialize\'s, whose revisions have no extensions', async () => {
    const discovered = await resultOf('server/discover', {
      _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} }
    }, '2026-07-28')
    assert.deepEqual(((discovered['result'] as Json)['capabilities'] as Json)['extensions'], { 'io.modelcontextprotocol/tasks': {}, 'io.modelcontextprotocol/ui': {} })
    const initialized = await resultOf('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } })
    assert.equal(((initialized['result'] as Json)['capabilities'] as Json)['extensions'], undefined)
  })
})

describe('the view\'s bytes', () => {
  const view = { path: '/board', prompt: 'A board.', form: noteForm }
  const tool = { name: 'board', wrapped: false }

  it('are the page\'s less its links, the published form and the lines for programs', () => {
    const small = renderView({ ...view, messages: [] }, tool)
    assert.ok(Buffer.byteLength(small) < Buffer.byteLength(renderPage({ ...view, messages: [] }).html) + VIEW_SCRIPT.length)
    assert.ok(!small.includes('class="schema"') && !small.includes('<footer>'))
  })

  it(`stay within VIEW_MAX_BYTES (${VIEW_MAX_BYTES}): past it the conversation, then the inputs, then the prompt are left out`, () => {
    const long = 'x'.repeat(1000)
    const messages = Array.from({ length: 1000 }, () => ({ role: 'user', content: `"${long}"` }))
    const full = renderView({ ...view, messages: messages.slice(0, 3) }, tool)
    assert.ok(full.includes('class="messages"'), 'a few messages fit')
    const trimmed = renderView({ ...view, messages }, tool)
    assert.ok(Buffer.byteLength(trimmed) <= VIEW_MAX_BYTES, String(Buffer.byteLength(trimmed)))
    assert.ok(!trimmed.includes('class="messages"') && trimmed.includes('The conversation so far is too long to show here'))
    assert.ok(trimmed.includes('data-name="note"'), 'the inputs stay while they fit')
    const huge = renderView({ ...view, prompt: '"'.repeat(200_000), messages }, tool)
    assert.ok(Buffer.byteLength(huge) <= VIEW_MAX_BYTES, String(Buffer.byteLength(huge)))
    assert.ok(huge.includes('The prompt is too long to show here') && huge.includes('id="body"') && huge.includes('data-kind="json"'), 'the JSON body still acts')
  })
})
