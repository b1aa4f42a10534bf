// The recipe (docs/hosts.md, "The recipe: the app people build"), as its users build it: the
// documents' own blocks under `<!-- check: recipe -->`, each written to the file its first line
// names, in a fresh project beside the packed package; built by `tsc --strict`; started as
// `node app.js` with the real plugins; and driven as its callers would, over HTTP and over MCP with
// the SDK's client on a real socket, with and without each folder's key. Each `it` is a line of the
// recipe's "What each caller gets".
import assert from 'node:assert/strict'
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import SwaggerParser from '@apidevtools/swagger-parser'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { REFUSAL } from '../src/mcp/call.ts'
import { startChild, type ChildHost } from './helpers/child-host.ts'
import { codeBlocks, documents } from './helpers/code-blocks.ts'
import { compilerIn, failure, makeProject, pack, root } from './helpers/packed.ts'
import { need } from './helpers/test-packages.js'

// The app imports it in a process of its own, where the module hook that names what is missing is not.
need('@fastify/swagger-ui')

const compiler = compilerIn(join(root, 'node_modules'))
const FILES = ['app.ts', 'routes/billing/index.ts', 'routes/notes/index.ts']
const KEYS = { BILLING_KEY: 'a-long-random-billing-key', NOTES_KEY: 'a-long-random-notes-key' }
const bearer = (key: string): Record<string, string> => ({ authorization: `Bearer ${key}` })

/** Every recipe block of the documents: where it is, the file its first line names, its code. */
const shown = documents(root).flatMap((document) =>
  codeBlocks(readFileSync(join(root, document), 'utf8')).filter((block) => block.check === 'recipe').map((block) => ({
    where: `${document} line ${block.line}`,
    file: /^\/\/ ([\w./-]+\.ts)[\s:]/.exec(block.code)?.[1] ?? '',
    code: block.code
  })))

describe('the recipe: the app people build, from the packed package', () => {
  let dir = ''
  let home = ''
  let host: ChildHost | undefined
  let origin = ''
  const clients: Client[] = []

  before(async () => {
    const packed = await pack('recipe-')
    dir = packed.dir
    home = join(dir, 'app')
    await makeProject(home, packed.tarball, 'module')
    // A host's tsconfig.json as the README gives it, as test/consumer.test.ts's projects have it.
    writeFileSync(join(home, 'tsconfig.json'), codeBlocks(readFileSync(join(root, 'README.md'), 'utf8')).find((block) => block.check === 'tsconfig')?.code ?? '')
    for (const { file, code } of shown.filter((block) => block.file !== '')) {
      mkdirSync(dirname(join(home, file)), { recursive: true })
      writeFileSync(join(home, file), code)
    }
  })
  after(async () => {
    for (const client of clients) await client.close()
    await host?.stop()
    if (dir !== '') rmSync(dir, { recursive: true, force: true })
  })

  it(`is ${FILES.join(', ')}, each the same wherever the documents show it`, () => {
    assert.deepEqual([...new Set(shown.map((block) => block.file))].sort(), FILES, shown.map((block) => `${block.where}: ${block.file || 'no file named'}`).join('; '))
    for (const file of FILES) {
      const copies = shown.filter((block) => block.file === file)
      for (const copy of copies) assert.equal(copy.code, copies[0]?.code, `${copy.where} differs from ${copies[0]?.where}`)
    }
  })

  it(`builds with tsc --strict against the packed package (${compiler.named})`, async () => {
    // The libraries' own declarations are test/consumer.test.ts's to check, with these blocks among its own.
    assert.equal(await failure(process.execPath, [compiler.tsc, '-p', home, '--strict', '--skipLibCheck', '--outDir', join(home, 'dist'), '--pretty', 'false'], home), '')
  })

  it('starts as `node app.js`, and stops at start where a folder\'s key is not set', async () => {
    assert.match(await failure(process.execPath, [join(home, 'dist/app.js')], home), /Error: (BILLING|NOTES)_KEY is not set/)
    host = await startChild([join(home, 'dist/app.js')], { env: { PORT: '0', ...KEYS }, ready: (line) => line.includes('Server listening at'), within: 20_000 })
    origin = /http:\/\/127\.0\.0\.1:\d+/.exec(host.line)?.[0] ?? ''
    assert.notEqual(origin, '')
  })

  const send = (path: string, init: RequestInit = {}): Promise<Response> => fetch(`${origin}${path}`, init)
  const act = (path: string, body: string, headers: Record<string, string> = {}): Promise<Response> =>
    send(path, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body })

  it('serves the arrivals to anyone (draft §3.1) with helmet\'s headers, and the page under its own policy', async () => {
    for (const path of ['/billing', '/notes']) {
      const arrival = await send(path)
      assert.equal(arrival.status, 200, path)
      assert.deepEqual(Object.keys(await arrival.json() as object), ['p', 'm', 's'], path)
      assert.equal(arrival.headers.get('x-frame-options'), 'SAMEORIGIN', `${path}: helmet's`)
      assert.match(arrival.headers.get('content-security-policy') ?? '', /^default-src 'self'/, `${path}: helmet's policy`)
      const page = await send(path, { headers: { accept: 'text/html' } })
      assert.match(page.headers.get('content-type') ?? '', /^text\/html/, path)
      assert.equal(page.headers.get('x-frame-options'), 'SAMEORIGIN', `${path}: helmet's, on the page too`)
      assert.match(page.headers.get('content-security-policy') ?? '', /^default-src 'none'; script-src 'sha256-/, `${path}: the page's own policy`)
    }
  })

  it('takes an act with its own folder\'s key only: else the folder\'s 401 with WWW-Authenticate', async () => {
    const folders = [
      { path: '/billing', body: '{"cents":250}', key: KEYS.BILLING_KEY, other: KEYS.NOTES_KEY, realm: 'billing', result: (n: unknown) => ({ invoice: n, cents: 250 }) },
      { path: '/notes', body: '{"note":"hi"}', key: KEYS.NOTES_KEY, other: KEYS.BILLING_KEY, realm: 'notes', result: () => ({ pinned: 'hi' }) }
    ]
    for (const { path, body, key, other, realm, result } of folders) {
      for (const headers of [{}, bearer(other)]) {
        const refused = await act(path, body, headers)
        assert.equal(refused.status, 401, path)
        assert.equal(refused.headers.get('www-authenticate'), `Bearer realm="${realm}"`, path)
      }
      const acted = await act(path, body, bearer(key))
      assert.equal(acted.status, 200, path)
      const answer = await acted.json() as Record<string, unknown>
      assert.deepEqual(answer, result(answer['invoice']), path)
      assert.equal(acted.headers.get('www-authenticate'), null, `${path}: the challenge is for refusals only`)
      const unformed = await act(path, '{}', bearer(key))
      assert.deepEqual([unformed.status, await unformed.text()], [204, ''], `${path}: a body the form refuses, with the key`)
    }
  })

  it('replays an Idempotency-Key retry: the first invoice, Idempotent-Replayed: true, never a second', async () => {
    const retry = { ...bearer(KEYS.BILLING_KEY), 'idempotency-key': '"invoice-7"' }
    const first = await act('/billing', '{"cents":700}', retry)
    const firstBody = await first.text()
    const again = await act('/billing', '{"cents":700}', retry)
    assert.equal(first.headers.get('idempotent-replayed'), null)
    assert.deepEqual([again.status, again.headers.get('idempotent-replayed'), await again.text()], [200, 'true', firstBody])
    const next = await act('/billing', '{"cents":700}', { ...retry, 'idempotency-key': '"invoice-8"' })
    assert.notEqual(await next.text(), firstBody, 'a new key is a new invoice')
  })

  it('answers a CORS preflight from the app\'s origin, and only from it', async () => {
    const preflight = (from: string): Promise<Response> => send('/billing', {
      method: 'OPTIONS',
      headers: { origin: from, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type, idempotency-key' }
    })
    const answered = await preflight('https://app.example')
    assert.equal(answered.status, 204)
    assert.equal(answered.headers.get('access-control-allow-origin'), 'https://app.example')
    assert.match(answered.headers.get('access-control-allow-methods') ?? '', /\bPOST\b/)
    assert.equal(answered.headers.get('access-control-allow-headers'), 'authorization, content-type, idempotency-key')
    assert.equal((await preflight('https://elsewhere.example')).headers.get('access-control-allow-origin'), null)
  })

  it('lists both addresses in the OpenAPI document, which is valid; Swagger UI is served with helmet\'s headers', async () => {
    const document = await (await send('/documentation/json')).json() as { paths: Record<string, Record<string, { parameters?: Array<{ name: string, in: string }> }>> }
    for (const path of ['/billing', '/notes']) assert.deepEqual(Object.keys(document.paths[path] ?? {}).sort(), ['get', 'post'], path)
    assert.deepEqual(document.paths['/billing']?.['post']?.parameters?.map(({ name, in: where }) => `${where} ${name}`), ['header idempotency-key'])
    await SwaggerParser.validate(structuredClone(document) as never)
    const ui = await send('/documentation')
    assert.equal(ui.status, 200)
    assert.match(await ui.text(), /swagger-ui-bundle\.js/)
    assert.equal(ui.headers.get('x-frame-options'), 'SAMEORIGIN')
  })

  describe('over MCP, with the SDK\'s client', () => {
    /** The status and challenge of the last POST the client sent, as HTTP answered it. */
    let lastPost = { status: 0, challenge: null as string | null }
    const connect = async (headers: Record<string, string> = {}): Promise<Client> => {
      const client = new Client({ name: 'recipe-test', version: '1.0.0' })
      const transport = new StreamableHTTPClientTransport(new URL('/mcp', origin), {
        requestInit: { headers },
        fetch: async (url, init) => {
          const response = await fetch(url, init)
          if (init?.method === 'POST') lastPost = { status: response.status, challenge: response.headers.get('www-authenticate') }
          return response
        }
      })
      await client.connect(transport)
      clients.push(client)
      return client
    }

    it('lists both tools to every caller, key or not: both arrivals are open', async () => {
      for (const headers of [{}, bearer(KEYS.BILLING_KEY)]) {
        const { tools } = await (await connect(headers)).listTools()
        assert.deepEqual(tools.map((tool) => [tool.name, tool.description]), [['billing', 'Raise an invoice, in cents.'], ['notes', 'Pin a note.']])
      }
    })

    it('answers a call without its folder\'s key with the folder\'s 401 and WWW-Authenticate, as HTTP', async () => {
      for (const [headers, name, realm] of [[{}, 'billing', 'billing'], [bearer(KEYS.BILLING_KEY), 'notes', 'notes']] as const) {
        const client = await connect(headers)
        const thrown = await client.callTool({ name, arguments: name === 'billing' ? { cents: 5 } : { note: 'hi' } }).then(() => undefined, (error: unknown) => error)
        assert.ok(thrown instanceof StreamableHTTPError, `${name}: ${String(thrown)}`)
        assert.equal(thrown.code, 401, name)
        assert.deepEqual(lastPost, { status: 401, challenge: `Bearer realm="${realm}"` }, name)
      }
    })

    it('answers a call with the key with the act\'s result, and one the form refuses with the one refusal', async () => {
      const billing = await connect(bearer(KEYS.BILLING_KEY))
      const invoice = await billing.callTool({ name: 'billing', arguments: { cents: 99 } })
      assert.deepEqual(invoice.structuredContent, { invoice: (invoice.structuredContent as { invoice: number }).invoice, cents: 99 })
      assert.deepEqual(await billing.callTool({ name: 'billing', arguments: { cents: 0 } }), JSON.parse(REFUSAL))
      const notes = await connect(bearer(KEYS.NOTES_KEY))
      assert.deepEqual((await notes.callTool({ name: 'notes', arguments: { note: 'pinned by a tool' } })).structuredContent, { pinned: 'pinned by a tool' })
    })
  })
})
