// fastify-gpt/catalog (docs/catalog.md): the host's API catalog at /.well-known/api-catalog
// (RFC 9727), a linkset (RFC 9264) of every address on the host, and the Link naming it on every
// arrival.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import compress from '@fastify/compress'
import swagger from '@fastify/swagger'
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify'
import gpt, { type GptAddress, type GptOptions } from '../../src/index.ts'
import catalog, { CATALOG_LINK, CATALOG_PATH, type CatalogOptions } from '../../src/catalog/index.ts'
import { MCP_TITLE, OPENAPI_TYPE } from '../../src/catalog/linkset.ts'
import mcp from '../../src/mcp/index.ts'
import { linksetErrors } from '../helpers/linkset.ts'

const form = { type: 'object', properties: { note: { type: 'string', maxLength: 80 } }, required: ['note'], additionalProperties: false } as const
const address = (prefix: string, prompt: string, more: Partial<GptOptions> = {}): GptOptions =>
  ({ form, act: () => ({ ok: true }), rateLimit: false, lint: false, prompt, ...(prefix === '/' ? {} : { prefix }), ...more }) as GptOptions

interface Link { href: string, type?: string, title?: string }
type Context = { anchor: string } & Record<string, Link[]>

async function read (app: FastifyInstance): Promise<Context[]> {
  const reply = await app.inject(CATALOG_PATH)
  assert.equal(reply.statusCode, 200)
  const document = reply.json<{ linkset: Context[] }>()
  assert.deepEqual(linksetErrors(document), [])
  return document.linkset
}

/** A ready host: the catalog and the addresses, registered in the order `register` does. */
async function ready (register: (app: FastifyInstance) => Promise<void>, server: FastifyServerOptions = {}): Promise<FastifyInstance> {
  const app = Fastify(server)
  await register(app)
  await app.ready()
  return app
}

describe('RFC 9727 §2: GET and HEAD at /.well-known/api-catalog', () => {
  it('GET answers the linkset as application/linkset+json with the profile RFC 9727 registers, and the Link naming the catalog', async () => {
    const app = await ready(async (app) => { await app.register(catalog); await app.register(gpt, address('/', 'A board. Pin a note.')) })
    const reply = await app.inject(CATALOG_PATH)
    assert.equal(reply.statusCode, 200)
    assert.equal(reply.headers['content-type'], 'application/linkset+json; profile="https://www.rfc-editor.org/info/rfc9727"')
    assert.equal(reply.headers.link, '</.well-known/api-catalog>; rel="api-catalog"')
    assert.ok(Array.isArray(reply.json().linkset))
    await app.close()
  })

  it('HEAD sends GET\'s header fields, the Link among them, and no body, whatever the host\'s exposeHeadRoutes', async () => {
    for (const exposeHeadRoutes of [true, false]) {
      const app = await ready(async (app) => { await app.register(gpt, address('/', 'A board.')); await app.register(catalog) }, { exposeHeadRoutes })
      const get = await app.inject(CATALOG_PATH)
      const head = await app.inject({ method: 'HEAD', url: CATALOG_PATH })
      assert.equal(head.statusCode, 200)
      assert.equal(head.body, '')
      assert.equal(head.headers.link, CATALOG_LINK)
      for (const name of ['content-type', 'content-length', 'etag', 'link']) assert.equal(head.headers[name], get.headers[name], name)
      await app.close()
    }
  })

  it('a client holding the document gets a 304 with its Link; the tag is weak, the same over a host\'s compression', async () => {
    const app = await ready(async (app) => {
      await app.register(compress, { threshold: 0 })
      await app.register(catalog)
      for (let i = 0; i < 20; i++) await app.register(gpt, address(`/a${i}`, `Address ${i}. It takes notes.`))
    })
    const plain = await app.inject(CATALOG_PATH)
    const gzipped = await app.inject({ url: CATALOG_PATH, headers: { 'accept-encoding': 'gzip' } })
    assert.equal(gzipped.headers['content-encoding'], 'gzip')
    assert.match(String(plain.headers.etag), /^W\/"[\w-]{32}"$/)
    assert.equal(gzipped.headers.etag, plain.headers.etag)
    for (const tag of [String(plain.headers.etag), String(plain.headers.etag).slice(2), `"other", ${String(plain.headers.etag)}`]) {
      const again = await app.inject({ url: CATALOG_PATH, headers: { 'if-none-match': tag } })
      assert.equal(again.statusCode, 304, tag)
      assert.equal(again.body, '')
      assert.equal(again.headers.link, CATALOG_LINK)
    }
    assert.equal((await app.inject({ url: CATALOG_PATH, headers: { 'if-none-match': '"other"' } })).statusCode, 200)
    await app.close()
  })
})

describe('RFC 9264 §4.2: the catalog is a linkset', () => {
  it('holds to a JSON Schema of RFC 9264 §4.2 written from its text, which refuses what the text forbids', async () => {
    // The schema can fail: each of these breaks one sentence of §4.2.
    const wrong: unknown[] = [
      { linkset: [], other: 1 }, // "as its sole member"
      { linkset: { anchor: '/' } }, // "MUST be wrapped in an array"
      { linkset: [{ anchor: '/', item: { href: '/a' } }] }, // a target object alone
      { linkset: [{ anchor: '/', item: [{ title: 'no href' }] }] }, // "MUST contain an "href" member"
      { linkset: [{ anchor: '/', item: [{ href: '/a', hreflang: 'en' }] }] }, // hreflang "MUST be an array"
      { linkset: [{ anchor: '/', item: [{ href: '/a', 'title*': [{ language: 'de' }] }] }] }, // title* without its value
      { linkset: [{ anchor: '/', item: [{ href: '/a', foo: 'bar' }] }] }, // an extension attribute "MUST be represented by an array"
      { linkset: [{ anchor: '/', item: [{ href: 'http://[bad' }] }] }, // href "MUST be a URI reference"
      { linkset: [{ anchor: '/', Item: [{ href: '/a' }] }] } // neither a registered name nor a URI
    ]
    for (const value of wrong) assert.notDeepEqual(linksetErrors(value), [], JSON.stringify(value))
    assert.deepEqual(linksetErrors({ linkset: [{ anchor: 'https://example.net/bar', next: [{ href: 'https://example.com/foo', hreflang: ['en', 'de'], 'title*': [{ value: 'nächstes Kapitel', language: 'de' }] }], 'https://example.com/relations/baz': [{ href: '' }] }] }), [])

    const app = await ready(async (app) => {
      await app.register(catalog)
      await app.register(gpt, address('/', 'A board. Pin a note.'))
      await app.register(gpt, address('/poll', 'Vote once: tabs or spaces?', { html: false }))
      await app.register(gpt, address('/quiet', ''))
    })
    const linkset = await read(app)
    const anchors = linkset.map((context) => context.anchor)
    // §4.2.2: links of one context are one object: no anchor twice.
    assert.equal(new Set(anchors).size, anchors.length)
    await app.close()
  })

  it('lists each address as an item of the catalog, and as its own anchor: its arrival (service-desc) and its page (service-doc), titled by its first sentence', async () => {
    const app = await ready(async (app) => {
      await app.register(catalog)
      await app.register(gpt, address('/', 'A board. Pin a note.'))
      await app.register(gpt, address('/poll', 'Vote once: tabs or spaces?', { html: false }))
      await app.register(gpt, address('/quiet', ''))
    })
    assert.deepEqual(await read(app), [
      { anchor: CATALOG_PATH, item: [{ href: '/', title: 'A board.' }, { href: '/poll', title: 'Vote once: tabs or spaces?' }, { href: '/quiet' }] },
      { anchor: '/', 'service-desc': [{ href: '/', type: 'application/json', title: 'A board.' }], 'service-doc': [{ href: '/', type: 'text/html' }] },
      // html: false serves no page, so there is no documentation for people to link
      { anchor: '/poll', 'service-desc': [{ href: '/poll', type: 'application/json', title: 'Vote once: tabs or spaces?' }] },
      // an empty prompt gives no title
      { anchor: '/quiet', 'service-desc': [{ href: '/quiet', type: 'application/json' }], 'service-doc': [{ href: '/quiet', type: 'text/html' }] }
    ])
    await app.close()
  })

  it('with `origin`, every anchor and href is absolute (RFC 9264 §4.2.2, §4.2.3: SHOULD NOT be relative)', async () => {
    const app = await ready(async (app) => {
      await app.register(catalog, { origin: 'https://api.example.com' })
      await app.register(gpt, address('/notes/café', 'Notes.'))
    })
    const linkset = await read(app)
    assert.deepEqual(linkset.map((context) => context.anchor), ['https://api.example.com/.well-known/api-catalog', 'https://api.example.com/notes/caf%C3%A9'])
    for (const context of linkset) {
      const { anchor, ...relations } = context
      assert.ok(URL.canParse(anchor), anchor)
      for (const link of Object.values(relations).flat()) assert.ok(URL.canParse(link.href), link.href)
    }
    await app.close()
  })

  it('a host without addresses serves an empty linkset', async () => {
    const app = await ready(async (app) => { await app.register(catalog) })
    assert.deepEqual(await read(app), [])
    await app.close()
  })

  it('names the OpenAPI document of the addresses shown in it, and the MCP endpoint as an item', async () => {
    const app = await ready(async (app) => {
      await app.register(swagger, { openapi: { info: { title: 'host', version: '1.0.0' } } })
      app.get('/openapi.json', () => app.swagger())
      await app.register(catalog, { openapi: '/openapi.json', mcp: '/mcp' })
      await app.register(gpt, address('/shown', 'Shown.', { openapi: true }))
      await app.register(gpt, address('/hidden', 'Hidden.'))
      await app.register(mcp)
    })
    const [root, shown, hidden] = await read(app)
    assert.deepEqual(root?.['item']?.at(-1), { href: '/mcp', title: MCP_TITLE })
    assert.deepEqual(shown?.['service-desc'], [{ href: '/shown', type: 'application/json', title: 'Shown.' }, { href: '/openapi.json', type: OPENAPI_TYPE }])
    assert.deepEqual(hidden?.['service-desc'], [{ href: '/hidden', type: 'application/json', title: 'Hidden.' }])
    assert.ok('/shown' in ((await app.inject('/openapi.json')).json<{ paths: object }>().paths))
    await app.close()
  })

  it('with only the MCP endpoint, the catalog lists it', async () => {
    const app = await ready(async (app) => { await app.register(mcp); await app.register(catalog, { mcp: '/mcp' }) })
    assert.deepEqual(await read(app), [{ anchor: CATALOG_PATH, item: [{ href: '/mcp', title: MCP_TITLE }] }])
    await app.close()
  })
})

describe('every address on the host, wherever it was registered', () => {
  it('before or after the catalog, under prefixes and in nested plugins, in the order they registered', async () => {
    const app = await ready(async (app) => {
      await app.register(gpt, address('/first', 'Before the catalog.'))
      await app.register(async (api) => {
        await api.register(gpt, address('/poll', 'In a prefix.'))
        await api.register(async (inner) => { await inner.register(gpt, address('/deep', 'Nested twice.')) }, { prefix: '/inner' })
      }, { prefix: '/v1' })
      await app.register(async (scope) => { await scope.register(catalog) })
      await app.register(gpt, address('/last', 'After the catalog.'))
    })
    const [root] = await read(app)
    assert.deepEqual(root?.['item']?.map((link) => link.href), ['/first', '/v1/poll', '/v1/inner/deep', '/last'])
    assert.equal((await app.inject('/v1/inner/deep')).headers.link, CATALOG_LINK)
    await app.close()
  })

  it('`addresses` lists only the paths it admits', async () => {
    const app = await ready(async (app) => {
      await app.register(catalog, { addresses: (path) => !path.startsWith('/internal') })
      await app.register(gpt, address('/public', 'Public.'))
      await app.register(gpt, address('/internal/admin', 'Internal.'))
    })
    assert.deepEqual((await read(app)).map((context) => context.anchor), [CATALOG_PATH, '/public'])
    await app.close()
  })

  it('two hosts in one process list their own addresses', async () => {
    const one = await ready(async (app) => { await app.register(catalog); await app.register(gpt, address('/one', 'One.')) })
    const two = await ready(async (app) => { await app.register(gpt, address('/two', 'Two.')) })
    assert.deepEqual((await read(one)).map((context) => context.anchor), [CATALOG_PATH, '/one'])
    assert.equal((await two.inject(CATALOG_PATH)).statusCode, 404)
    assert.equal((await two.inject('/two')).headers.link, undefined)
    await Promise.all([one.close(), two.close()])
  })
})

describe('a title is the first sentence of p, kept current through update()', () => {
  it('an update changing the first sentence changes the title and the tag; one changing the rest, or the messages, changes nothing', async () => {
    let board: GptAddress | undefined
    const app = await ready(async (app) => {
      await app.register(catalog)
      await app.register(gpt, address('/', 'A board. Pin a note.', { onAddress: (a: GptAddress) => { board = a } }))
      await app.register(gpt, address('/poll', 'Vote once.'))
    })
    const before = await app.inject(CATALOG_PATH)
    board?.update({ prompt: 'A board. Pin two notes.' })
    board?.update({ messages: [{ role: 'user', content: 'hello' }] })
    assert.equal((await app.inject(CATALOG_PATH)).body, before.body)
    board?.update({ prompt: 'A wall. Pin a note.' })
    const after = await app.inject(CATALOG_PATH)
    assert.notEqual(after.headers.etag, before.headers.etag)
    const [root, own, poll] = after.json<{ linkset: Context[] }>().linkset
    assert.deepEqual(root?.['item'], [{ href: '/', title: 'A wall.' }, { href: '/poll', title: 'Vote once.' }])
    assert.equal(own?.['service-desc']?.[0]?.title, 'A wall.')
    assert.equal(poll?.['service-desc']?.[0]?.title, 'Vote once.')
    await app.close()
  })
})

describe('RFC 9727 §3: every arrival of the host names the catalog', () => {
  it('the JSON and the page carry Link rel="api-catalog", after the links the address names', async () => {
    const app = await ready(async (app) => {
      await app.register(gpt, address('/', 'A board.', { links: ['/poll'] }))
      await app.register(catalog)
      await app.register(gpt, address('/poll', 'Vote once.'))
    })
    assert.equal((await app.inject('/')).headers.link, `</poll>; rel="related", ${CATALOG_LINK}`)
    assert.equal((await app.inject('/poll')).headers.link, CATALOG_LINK)
    const page = await app.inject({ url: '/poll', headers: { accept: 'text/html' } })
    assert.match(String(page.headers['content-type']), /^text\/html/)
    assert.equal(page.headers.link, CATALOG_LINK)
    await app.close()
  })

  it('only where the catalog is registered; the tag is the body\'s either way, and a 304 carries the Link', async () => {
    const arrival = async (withCatalog: boolean): Promise<{ app: FastifyInstance, board: GptAddress }> => {
      let board: GptAddress | undefined
      const app = await ready(async (app) => {
        await app.register(gpt, address('/', 'A board.', { onAddress: (a: GptAddress) => { board = a } }))
        if (withCatalog) await app.register(catalog)
      })
      return { app, board: board as GptAddress }
    }
    const without = await arrival(false)
    const withIt = await arrival(true)
    const plain = await without.app.inject('/')
    const named = await withIt.app.inject('/')
    assert.equal(plain.headers.link, undefined)
    assert.equal(named.headers.link, CATALOG_LINK)
    assert.equal(named.body, plain.body)
    assert.equal(named.headers.etag, plain.headers.etag)
    const revalidated = await withIt.app.inject({ url: '/', headers: { 'if-none-match': String(named.headers.etag) } })
    assert.equal(revalidated.statusCode, 304)
    assert.equal(revalidated.headers.link, CATALOG_LINK)
    // every later edition names it too
    withIt.board.update({ prompt: 'A wall.' })
    assert.equal((await withIt.app.inject('/')).headers.link, CATALOG_LINK)
    await Promise.all([without.app.close(), withIt.app.close()])
  })

  it('a job address\'s arrival names it too, in JSON, as a page and in a 304, only where the catalog is registered', async () => {
    for (const withCatalog of [false, true]) {
      let finish = (): void => {}
      const app = await ready(async (app) => {
        if (withCatalog) await app.register(catalog)
        await app.register(gpt, address('/slow', 'A slow board.', { background: { after: 1 }, act: () => new Promise<object>((resolve) => { finish = () => { resolve({ done: true }) } }) }))
      })
      const handed = await app.inject({ method: 'POST', url: '/slow', payload: { note: 'a' } })
      const href = (handed.json<{ href: string }>()).href
      const job = await app.inject(href)
      const page = await app.inject({ url: href, headers: { accept: 'text/html' } })
      const held = await app.inject({ url: href, headers: { 'if-none-match': String(job.headers.etag) } })
      assert.deepEqual([job.statusCode, page.statusCode, held.statusCode], [200, 200, 304])
      for (const reply of [job, page, held]) assert.equal(reply.headers.link, withCatalog ? CATALOG_LINK : undefined)
      finish()
      await app.close()
    }
  })
})

describe('options: named errors at registration, and at ready for the routes they name', () => {
  const refuses = async (options: unknown, message: RegExp, setup: (app: FastifyInstance) => void = () => {}): Promise<void> => {
    const app = Fastify()
    setup(app)
    await assert.rejects(async () => { await app.register(catalog, options as CatalogOptions); await app.ready() },
      (error: Error & { code?: string }) => error.code === 'GPT_ERR_OPTION_INVALID' && message.test(error.message))
    await app.close().catch(() => {})
  }

  it('refuses a misspelt option, an origin that is not one, a path that is not on this host, addresses that are not a function', async () => {
    await refuses({ orign: 'https://a.example' }, /"orign" is not an option of fastify-gpt\/catalog/)
    for (const origin of ['https://a.example/', 'https://a.example/api', 'ftp://a.example', 'https://user@a.example', 'a.example', 42]) {
      await refuses({ origin }, /"origin" must be an http\(s\) origin/)
    }
    for (const path of ['//evil.example/openapi.json', 'openapi.json', '/open api.json', 7]) await refuses({ openapi: path }, /"openapi" must be a path on this host/)
    await refuses({ mcp: 'https://a.example/mcp' }, /"mcp" must be a path on this host, such as \/mcp/)
    await refuses({ addresses: ['/a'] }, /"addresses" must be a function/)
  })

  it('refuses to serve under a prefix: a well-known URI is at the root of the host (RFC 8615)', async () => {
    const app = Fastify()
    await assert.rejects(async () => {
      await app.register(async (api) => { await api.register(catalog) }, { prefix: '/v1' })
      await app.ready()
    }, (error: Error & { code?: string }) => error.code === 'GPT_ERR_OPTION_INVALID' && /under the prefix \/v1: register fastify-gpt\/catalog outside any prefix/.test(error.message))
    await app.close().catch(() => {})
  })

  it('fails ready() when `openapi` or `mcp` names no such route', async () => {
    await refuses({ openapi: '/openapi.json' }, /"openapi": no GET route at \/openapi.json on this host/)
    await refuses({ mcp: '/mcp' }, /"mcp": no POST route at \/mcp on this host/, (app) => { app.get('/mcp', () => 'not the bridge') })
  })
})

describe('a thousand addresses', () => {
  it('are listed in order, and one update() rebuilds its own entries and nothing else', async () => {
    const addresses: GptAddress[] = []
    const app = await ready(async (app) => {
      await app.register(catalog)
      for (let i = 0; i < 1000; i++) app.register(gpt, address(`/a${i}`, `Address ${i}. It takes notes.`, { html: false, onAddress: (a: GptAddress) => { addresses.push(a) } }))
    })
    const before = await read(app)
    assert.equal(before[0]?.['item']?.length, 1000)
    assert.deepEqual(before.slice(1).map((context) => context.anchor), Array.from({ length: 1000 }, (_, i) => `/a${i}`))
    addresses[500]?.update({ prompt: 'Renamed. It takes notes.' })
    const after = await read(app)
    assert.deepEqual(after[0]?.['item']?.[500], { href: '/a500', title: 'Renamed.' })
    const changed = after.slice(1).filter((context, i) => JSON.stringify(context) !== JSON.stringify(before[i + 1]))
    assert.deepEqual(changed.map((context) => context.anchor), ['/a500'])
    await app.close()
  })
})
