// Appendix B, "Composition", as fastify-gpt answers it (docs/links.md): an address names other
// addresses in an advisory `l` member of its arrival, mirrored in Link headers.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import fc from 'fast-check'
import Fastify, { type FastifyInstance } from 'fastify'
import type { Redis } from 'ioredis'
import gpt, { withLinks, type GptAddress, type GptOptions, type LinkOption, type SharedGptAddress } from '../../src/index.ts'
import { DESCRIBED, firstSentence } from '../../src/sentence.ts'
import { redisServer, until, type RedisServer } from '../helpers/redis.ts'

const form = { type: 'object', properties: { choice: { enum: ['a', 'b'] } }, required: ['choice'], additionalProperties: false } as const
const pollForm = { type: 'object', properties: { vote: { enum: ['tabs', 'spaces'], description: 'SECRET-FORM-MARK' } }, required: ['vote'], additionalProperties: false } as const

/** Registers each address (path -> options) on one app and makes it ready. */
async function app (addresses: Record<string, Partial<GptOptions>>): Promise<FastifyInstance> {
  const host = Fastify()
  for (const [path, options] of Object.entries(addresses)) {
    await host.register(gpt, { form, act: () => ({ ok: true }), rateLimit: false, ...(path === '/' ? {} : { prefix: path }), ...options } as GptOptions)
  }
  await host.ready()
  return host
}

/** Registering must fail, with this code, naming this. */
async function refused (addresses: Record<string, Partial<GptOptions>>, code: string, message: RegExp): Promise<void> {
  const host = Fastify()
  try {
    await assert.rejects(async () => {
      for (const [path, options] of Object.entries(addresses)) {
        await host.register(gpt, { form, act: () => ({}), rateLimit: false, ...(path === '/' ? {} : { prefix: path }), ...options } as GptOptions)
      }
      await host.ready()
    }, (error: Error & { code?: string }) => {
      assert.equal(error.code, code, error.message)
      assert.match(error.message, message)
      return true
    })
  } finally {
    await host.close().catch(() => {})
  }
}

const arrival = async (host: FastifyInstance, url = '/'): Promise<{ body: Record<string, unknown>, link: string | undefined, etag: string, raw: string }> => {
  const reply = await host.inject(url)
  assert.equal(reply.statusCode, 200)
  return { body: reply.json(), link: reply.headers.link as string | undefined, etag: reply.headers.etag as string, raw: reply.body }
}

describe('Composition: the arrival names addresses in l (draft §3.2: "An address MAY include additional members")', () => {
  it('names each address with its p read from the target\'s own prompt, mirrored in the Link header', async () => {
    const host = await app({
      '/': { prompt: 'A board. Pin a note.', links: ['/poll', '/quiz'] },
      '/poll': { form: pollForm, prompt: 'Vote once: tabs or spaces? Then leave.' },
      '/quiz': { prompt: '' }
    })
    const { body, link } = await arrival(host)
    assert.deepEqual(Object.keys(body), ['p', 'm', 's', 'l'])
    assert.deepEqual(body['l'], [{ href: '/poll', p: 'Vote once: tabs or spaces?' }, { href: '/quiz' }])
    assert.equal(link, '</poll>; rel="related", </quiz>; rel="related"')
    await host.close()
  })

  it('never copies the target\'s form: the actor reads it at the moment of contact (Abstract)', async () => {
    const host = await app({ '/': { links: ['/poll'] }, '/poll': { form: pollForm, prompt: 'Vote.' } })
    const { raw } = await arrival(host)
    assert.doesNotMatch(raw, /SECRET-FORM-MARK|spaces/)
    assert.match((await host.inject('/poll')).body, /SECRET-FORM-MARK/)
    await host.close()
  })

  it('an address without links serves exactly {p, m, s} and no Link header, as before', async () => {
    const host = await app({ '/': { prompt: 'Alone.' } })
    const { body, link } = await arrival(host)
    assert.deepEqual(Object.keys(body), ['p', 'm', 's'])
    assert.equal(link, undefined)
    await host.close()
  })

  it('what it says of a target follows the target\'s update(): it cannot drift (§7.3)', async () => {
    let poll: GptAddress | undefined
    let board: GptAddress | undefined
    const host = await app({
      '/': { prompt: 'A board.', links: ['/poll'], onAddress: (a: GptAddress) => { board = a } },
      '/poll': { prompt: 'Vote once.', onAddress: (a: GptAddress) => { poll = a } }
    })
    const before = await arrival(host)
    poll!.update({ prompt: 'Vote twice now. Really.' })
    const changed = await arrival(host)
    assert.deepEqual(changed.body['l'], [{ href: '/poll', p: 'Vote twice now.' }])
    assert.notEqual(changed.etag, before.etag, 'other bytes, another entity tag')
    assert.equal(board!.etag, changed.etag, 'the handle reports the tag served')
    // a change of the target that leaves its description alone leaves the arrival alone
    poll!.update({ prompt: 'Vote twice now. Another second sentence.' })
    assert.equal((await arrival(host)).etag, changed.etag)
    poll!.update({ messages: [{ role: 'user', content: 'hi' }] })
    assert.equal((await arrival(host)).etag, changed.etag)
    // the board's own update keeps its links
    board!.update({ prompt: 'A new board.' })
    const own = await arrival(host)
    assert.equal(own.body['p'], 'A new board.')
    assert.deepEqual(own.body['l'], [{ href: '/poll', p: 'Vote twice now.' }])
    assert.equal(own.link, '</poll>; rel="related"')
    await host.close()
  })

  it('does not vary with prior contact (§3.2): the same bytes and headers to every GET, HEAD and 304 included', async () => {
    const host = await app({ '/': { links: ['/poll'] }, '/poll': { prompt: 'Vote.' } })
    const first = await host.inject('/')
    for (const headers of [{}, { cookie: 'seen=1' }, { 'gpt-actor': 'x' }, { accept: 'application/json' }, { 'user-agent': 'other' }]) {
      const again = await host.inject({ url: '/', headers })
      assert.equal(again.body, first.body)
      assert.equal(again.headers.link, first.headers.link)
      assert.equal(again.headers.etag, first.headers.etag)
    }
    const head = await host.inject({ method: 'HEAD', url: '/' })
    assert.equal(head.headers.link, '</poll>; rel="related"')
    const notModified = await host.inject({ url: '/', headers: { 'if-none-match': first.headers.etag as string } })
    assert.equal(notModified.statusCode, 304)
    const page = await host.inject({ url: '/', headers: { accept: 'text/html' } })
    assert.match(page.headers['content-type'] as string, /text\/html/)
    assert.equal(page.headers.link, '</poll>; rel="related"', 'the page names the same addresses')
    await host.close()
  })

  it('names an address on another host with the p its author wrote, and a relation when one is given', async () => {
    const host = await app({
      '/': { links: [{ href: 'https://other.example/poll', p: 'A poll elsewhere.' }, { href: 'http://other.example:8080/x' }, { href: '/jobs', rel: 'monitor' }] },
      '/jobs': { prompt: 'Your jobs.' }
    })
    const { body, link } = await arrival(host)
    assert.deepEqual(body['l'], [
      { href: 'https://other.example/poll', p: 'A poll elsewhere.' },
      { href: 'http://other.example:8080/x' },
      { href: '/jobs', p: 'Your jobs.', rel: 'monitor' }
    ])
    assert.equal(link, '<https://other.example/poll>; rel="related", <http://other.example:8080/x>; rel="related", </jobs>; rel="monitor"')
    await host.close()
  })

  it('the HTML view lists the addresses named, each a link to follow, every word escaped', async () => {
    const host = await app({
      '/': { links: ['/poll', { href: 'https://other.example/x', p: '<script>alert(1)</script> & more' }] },
      '/poll': { prompt: 'Vote <b>once</b>.' }
    })
    const page = (await host.inject({ url: '/', headers: { accept: 'text/html' } })).body
    assert.match(page, /<h2 id="l-title">Addresses named here<\/h2>/)
    assert.match(page, /<li><a href="\/poll"><code>\/poll<\/code><\/a> <span class="content">Vote &lt;b&gt;once&lt;\/b&gt;\.<\/span><\/li>/)
    assert.match(page, /<a href="https:\/\/other\.example\/x">.*&lt;script&gt;alert\(1\)&lt;\/script&gt; &amp; more/)
    assert.doesNotMatch(page, /<script>alert/)
    const alone = await app({ '/': {} })
    assert.doesNotMatch((await alone.inject({ url: '/', headers: { accept: 'text/html' } })).body, /l-title/)
    await Promise.all([host.close(), alone.close()])
  })

  it('addresses may name each other: a loop is not an error (actors bound their hops)', async () => {
    const host = await app({ '/': { prompt: 'A.', links: ['/b'] }, '/b': { prompt: 'B.', links: ['/'] } })
    assert.deepEqual((await arrival(host)).body['l'], [{ href: '/b', p: 'B.' }])
    assert.deepEqual((await arrival(host, '/b')).body['l'], [{ href: '/', p: 'A.' }])
    await host.close()
  })
})

describe('Composition: links are checked when the host is ready', () => {
  it('a path with no address fails ready() with GPT_ERR_LINK_UNRESOLVED, naming the link and the addresses there are', async () => {
    await refused({ '/': { links: ['/pol'] }, '/poll': {} }, 'GPT_ERR_LINK_UNRESOLVED',
      /address \/: a link names no address on this host: \/links\/0: \/pol is nothing \(addresses here: \/poll\)/)
  })

  it('a route that is not a fastify-gpt address fails too: a target must itself be an address', async () => {
    const host = Fastify()
    await host.register(gpt, { form, act: () => ({}), links: ['/health'] })
    host.get('/health', async () => ({ ok: true }))
    await assert.rejects(async () => { await host.ready() }, { code: 'GPT_ERR_LINK_UNRESOLVED', message: /\/links\/0: \/health is a route that is not a fastify-gpt address/ })
  })

  it('an address of another app is not on this host', async () => {
    const other = Fastify()
    await other.register(gpt, { form, act: () => ({}), prefix: '/poll' })
    await other.ready()
    await refused({ '/': { links: ['/poll'] } }, 'GPT_ERR_LINK_UNRESOLVED', /\/poll is nothing \(addresses here: none\)/)
    await other.close()
  })

  it('finds an address registered inside another plugin, before or after the one naming it', async () => {
    const host = Fastify()
    await host.register(async (child) => {
      await child.register(gpt, { form, act: () => ({}), prefix: '/inner', prompt: 'Inner.' })
    }, { prefix: '/v1' })
    await host.register(gpt, { form, act: () => ({}), links: ['/v1/inner', '/later'] })
    await host.register(gpt, { form, act: () => ({}), prefix: '/later', prompt: 'Later.' })
    await host.ready()
    assert.deepEqual((await arrival(host)).body['l'], [{ href: '/v1/inner', p: 'Inner.' }, { href: '/later', p: 'Later.' }])
    await host.close()
  })

  const invalid: [string, unknown, RegExp][] = [
    ['not an array', '/poll', /\/links: must be an array/],
    ['more than 100', Array.from({ length: 101 }, (_, i) => `/a${i}`), /\/links: names 101 addresses, more than 100/],
    ['twice the same', ['/poll', '/poll'], /\/links\/1: names \/poll a second time/],
    ['the address itself', ['/'], /\/links\/0: names the address itself/],
    ['a relative path', ['poll'], /\/links\/0\/href: "poll" is neither a path on this host/],
    ['a query', ['/poll?x=1'], /\/links\/0\/href: "\/poll\?x=1" has a query or fragment/],
    ['a fragment', ['/poll#top'], /has a query or fragment/],
    ['a path not as on the wire', ['/a/../poll'], /is not a path as written on the wire \(\/poll\)/],
    ['a space', ['/a b'], /is not a path as written on the wire \(\/a%20b\)/],
    ['a p for a path here', [{ href: '/poll', p: 'Vote.' }], /\/links\/0\/p: is derived from the prompt of the address at \/poll/],
    ['a copy of the form', [{ href: '/poll', s: {} }], /\/links\/0: carries "s": a link never copies its target's form/],
    ['an unknown member', [{ href: '/poll', title: 'x' }], /\/links\/0\/title: is not a member of a link/],
    ['an empty href', [{ href: '' }], /\/links\/0\/href: must be a non-empty string/],
    ['not a link', [42], /\/links\/0: must be a path or/],
    ['mailto', ['mailto:a@b.example'], /is not an http\(s\) URL/],
    ['credentials', ['https://u:pw@other.example/'], /carries credentials/],
    ['a fragment elsewhere', ['https://other.example/#x'], /has a fragment/],
    ['a URL not as on the wire', ['https://Other.example'], /is not written as a URL is on the wire \(https:\/\/other\.example\/\)/],
    ['a p too long', [{ href: 'https://other.example/', p: 'x'.repeat(1001) }], /\/links\/0\/p: must be a string of at most 1000/],
    ['a bad relation', [{ href: '/poll', rel: 'Next Page' }], /\/links\/0\/rel: must be a lower-case relation type/],
    ['a protocol-relative URL', ['//other.example/poll'], /is neither a path on this host/],
    // A URL parser reads "/\\" as "//": a host that is not there, so no path at all.
    ['a backslash after the slash', ['/\\'], /\/links\/0\/href: "\/\\\\" is not a path/]
  ]
  for (const [name, links, message] of invalid) {
    it(`refuses ${name} at registration with GPT_ERR_LINK_INVALID`, async () => {
      await refused({ '/': { links: links as LinkOption[] }, '/poll': {} }, 'GPT_ERR_LINK_INVALID', message)
    })
  }
})

describe('Composition: an act\'s result names addresses with withLinks()', () => {
  let host: FastifyInstance
  before(async () => {
    host = await app({
      '/': {
        act: (body, _request, reply) => {
          const { choice } = body as { choice: string }
          if (choice === 'b') return withLinks(reply, [1] as unknown as object, ['/poll'])
          reply.header('link', '</jobs/1>; rel="monitor"')
          return withLinks(reply, { ordered: true }, ['/poll', { href: 'https://pay.example/42', p: 'Pay for order 42.' }])
        }
      },
      '/poll': { prompt: 'Vote once: tabs or spaces?', act: (_body, _request, reply) => withLinks(reply, { voted: true }, ['/nowhere']) }
    })
  })
  after(() => host.close())

  it('adds l to the result and the links to the Link header, after any the act set', async () => {
    const reply = await host.inject({ method: 'POST', url: '/', payload: { choice: 'a' } })
    assert.equal(reply.statusCode, 200)
    assert.deepEqual(reply.json(), { ordered: true, l: [{ href: '/poll', p: 'Vote once: tabs or spaces?' }, { href: 'https://pay.example/42', p: 'Pay for order 42.' }] })
    assert.equal(reply.headers.link, '</jobs/1>; rel="monitor", </poll>; rel="related", <https://pay.example/42>; rel="related"')
  })

  it('a link to no address, or a result that is not an object, fails the act: the bare 500', async () => {
    for (const [url, payload] of [['/poll', { choice: 'a' }], ['/', { choice: 'b' }]] as const) {
      const reply = await host.inject({ method: 'POST', url, payload })
      assert.equal(reply.statusCode, 500)
      assert.equal(reply.body, '')
      assert.equal(reply.headers.link, undefined)
    }
  })

  it('a rejected body is still the bare 204, with no Link header', async () => {
    const reply = await host.inject({ method: 'POST', url: '/', payload: { choice: 'c' } })
    assert.equal(reply.statusCode, 204)
    assert.equal(reply.headers.link, undefined)
  })
})

describe('Composition: the form chooses among the addresses l names (docs/links.md, a router)', () => {
  it('l names the choices, the form admits exactly them, and the act names the one chosen', async () => {
    const host = await app({
      '/start': {
        prompt: 'Where to? Choose an address.',
        form: { type: 'object', properties: { go: { enum: ['/poll', '/'] } }, required: ['go'], additionalProperties: false },
        links: ['/poll', '/'],
        act: (body, _request, reply) => withLinks(reply, { go: (body as { go: string }).go }, [(body as { go: string }).go])
      },
      '/poll': { prompt: 'Vote once.' },
      '/': { prompt: 'A board.' }
    })
    const { body } = await arrival(host, '/start')
    assert.deepEqual((body['l'] as { href: string }[]).map((entry) => entry.href), ((body['s'] as { properties: { go: { enum: string[] } } }).properties.go.enum))
    const chosen = await host.inject({ method: 'POST', url: '/start', payload: { go: '/poll' } })
    assert.deepEqual(chosen.json(), { go: '/poll', l: [{ href: '/poll', p: 'Vote once.' }] })
    assert.equal(chosen.headers.link, '</poll>; rel="related"')
    assert.equal((await host.inject({ method: 'POST', url: '/start', payload: { go: '/elsewhere' } })).statusCode, 204)
    await host.close()
  })
})

describe('Composition: what a link says of an address is read from its prompt', () => {
  it('is the first sentence of the first line, or the line, cut at a word past 200 characters', () => {
    assert.equal(firstSentence('A public note board. Leave one short note.'), 'A public note board.')
    assert.equal(firstSentence('\n  Vote once: tabs or spaces?\nMore.'), 'Vote once: tabs or spaces?')
    assert.equal(firstSentence('Version 1.2 is out! Try it.'), 'Version 1.2 is out!')
    assert.equal(firstSentence(''), undefined)
    assert.equal(firstSentence(' \n\t\n'), undefined)
    const long = `${'word '.repeat(60)}end.`
    const said = firstSentence(long)!
    assert.ok(said.endsWith('…') && said.length <= DESCRIBED, said)
  })

  it('for any prompt: one line, at most 200 characters, taken from the prompt\'s first non-empty line', () => {
    fc.assert(fc.property(fc.string({ unit: fc.constantFrom('a', 'B', ' ', '.', '!', '?', '\n', 'é', '\t', 'x') }), (prompt) => {
      const said = firstSentence(prompt)
      const line = prompt.split('\n').map((text) => text.trim()).find((text) => text !== '')
      if (line === undefined) return said === undefined
      assert.ok(said !== undefined)
      assert.ok(said.length <= DESCRIBED)
      assert.ok(!said.includes('\n'))
      const kept = said.endsWith('…') ? said.slice(0, -1) : said
      assert.ok(line.startsWith(kept), `${JSON.stringify(said)} is not from ${JSON.stringify(line)}`)
      return true
    }), { numRuns: 500 })
  })

  it('for any prompts of the addresses named: l and the Link header name the same addresses, in order, each described from its prompt', async () => {
    await fc.assert(fc.asyncProperty(fc.array(fc.string({ maxLength: 300 }), { minLength: 1, maxLength: 6 }), async (prompts) => {
      const addresses: Record<string, Partial<GptOptions>> = { '/': { links: prompts.map((_, i) => `/t${i}`), html: false, lint: false } }
      prompts.forEach((prompt, i) => { addresses[`/t${i}`] = { prompt, html: false, lint: false } })
      const host = await app(addresses)
      const { body, link } = await arrival(host)
      const l = body['l'] as { href: string, p?: string }[]
      assert.deepEqual(l.map((entry) => entry.href), prompts.map((_, i) => `/t${i}`))
      assert.deepEqual(link?.split(', ').map((field) => /^<([^>]*)>; rel="related"$/.exec(field)?.[1]), l.map((entry) => entry.href))
      prompts.forEach((prompt, i) => assert.equal(l[i]?.p, firstSentence(prompt)))
      await host.close()
    }), { numRuns: 25 })
  })
})

describe('Composition: with editions shared through Redis', () => {
  let redis: RedisServer
  const hosts: FastifyInstance[] = []
  before(async () => { redis = await redisServer() })
  after(async () => {
    await Promise.all(hosts.map((host) => host.close()))
    await redis.stop()
  })

  it('a target updated on one instance is described anew on every instance', async () => {
    const polls: SharedGptAddress[] = []
    for (let i = 0; i < 2; i++) {
      const client = redis.client()
      await once(client, 'ready')
      hosts.push(await app({
        '/': { prompt: 'A board.', links: ['/poll'] },
        '/poll': { prompt: 'Vote once.', share: { redis: client, key: `links-test:poll:${redis.port}` }, onAddress: (a: unknown) => { polls.push(a as SharedGptAddress) } }
      } as Record<string, Partial<GptOptions>>))
    }
    await polls[0]!.update({ prompt: 'Vote on tabs. Or spaces.' })
    await until(async () => JSON.stringify((await arrival(hosts[1]!)).body['l']) === JSON.stringify([{ href: '/poll', p: 'Vote on tabs.' }]), 'the other instance describes the new prompt')
    const [a, b] = await Promise.all(hosts.map((host) => arrival(host)))
    assert.equal(a!.etag, b!.etag, 'the same arrival, byte for byte, on both instances')
  })
})

async function once (client: Redis, event: string): Promise<void> {
  if (client.status === 'ready') return
  await new Promise((resolve) => client.once(event, resolve))
}
