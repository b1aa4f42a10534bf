// The Link header field an address sends is bounded (docs/links.md): Node's fetch (undici) and
// node:http refuse a response whose header fields together pass 16 KiB, so a field past 8 KiB
// would leave a host's other headers too little room. Checked at registration for `links`, and in
// withLinks() with what the reply already carries; then over real sockets with both clients, and
// with fast-check over random link sets.
import assert from 'node:assert/strict'
import { once } from 'node:events'
import { get, type IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, before, describe, it } from 'node:test'
import fc from 'fast-check'
import Fastify, { type FastifyInstance } from 'fastify'
import gpt, { withLinks, type GptOptions, type LinkOption } from '../../src/index.ts'

const BOUND = 8192
const MAX_HREF = 2048
const form = { type: 'object', properties: { choice: { enum: ['a', 'b'] } }, required: ['choice'], additionalProperties: false } as const

interface Written { readonly href: string, readonly rel?: string }

// RFC 8288 §3, written out here apart from src: `<href>; rel="…"` for each link, joined by ", ".
const field = (links: readonly Written[]): string => links.map((link) => `<${link.href}>; rel="${link.rel ?? 'related'}"`).join(', ')
const joined = (carried: string, links: readonly Written[]): string => [carried, field(links)].filter((part) => part !== '').join(', ')

/** Links to other hosts after which the field (`carried` first, when the reply has one) is exactly `bytes` long. */
function filling (bytes: number, carried: string): Written[] {
  const links: Written[] = []
  const entry = '<>; rel="related"'.length
  for (let i = 0; ; i++) {
    const origin = `https://h${i}.example/`
    const used = joined(carried, links).length
    const room = bytes - used - (used === 0 ? 0 : 2) - entry
    // Leave the next link room for an href of its own when this one cannot take all that is left.
    const length = room <= MAX_HREF ? room : Math.min(MAX_HREF, room - 2 - entry - 40)
    assert.ok(length >= origin.length, `no link fits in ${room} bytes`)
    links.push({ href: origin + 'a'.repeat(length - origin.length) })
    if (length === room) break
  }
  assert.equal(joined(carried, links).length, bytes)
  return links
}

async function app (addresses: Record<string, Partial<GptOptions>>, extra?: (host: FastifyInstance) => void): Promise<FastifyInstance> {
  const host = Fastify()
  for (const [path, options] of Object.entries(addresses)) {
    await host.register(gpt, { form, act: () => ({ ok: true }), rateLimit: false, ...(path === '/' ? {} : { prefix: path }), ...options } as GptOptions)
  }
  extra?.(host)
  await host.ready()
  return host
}

/** The error registering these links fails with. */
async function refusal (links: readonly LinkOption[]): Promise<Error & { code?: string }> {
  const host = Fastify()
  try {
    await host.register(gpt, { form, act: () => ({}), rateLimit: false, links })
    await host.register(gpt, { form, act: () => ({}), rateLimit: false, prefix: '/poll' })
    await host.ready()
  } catch (error) {
    return error as Error
  } finally {
    await host.close().catch(() => {})
  }
  assert.fail('registration accepted the links')
}

// A local link's `p` is in `l`, never in the field: a prompt this long leaves the field alone.
const poll: Partial<GptOptions> = { prompt: `${'Vote once on a long question. '.repeat(60)}` }
const local: Written = { href: '/poll' }

describe('the Link header of an arrival is at most 8192 bytes, checked at registration', () => {
  it('accepts links whose field is exactly 8192 bytes, and serves it as written', async () => {
    const links = [local, ...filling(BOUND, field([local]))]
    const host = await app({ '/': { links: [local.href, ...links.slice(1)] }, '/poll': poll })
    const reply = await host.inject('/')
    assert.equal(reply.headers.link, field(links))
    assert.equal((reply.headers.link as string).length, BOUND)
    assert.equal((reply.json().l as { p?: string }[])[0]!.p, 'Vote once on a long question.')
    await host.close()
  })

  it('refuses a field of 8193 bytes with GPT_ERR_LINK_HEADER_TOO_LARGE, saying where, how large and the bound', async () => {
    const links = filling(BOUND + 1, field([local]))
    const error = await refusal([local.href, ...links])
    assert.equal(error.code, 'GPT_ERR_LINK_HEADER_TOO_LARGE', error.message)
    assert.equal(error.message, 'fastify-gpt address /: the Link header is too large: /links: the Link field of these links would be 8193 bytes, more than 8192 (Node\'s fetch and http refuse a response whose headers together pass 16 KiB, and the other headers need room)')
  })

  it('counts a relation as it is written: one character more of rel is one byte too many', async () => {
    const links = filling(BOUND, '')
    const last = links.at(-1)!
    const longer = [...links.slice(0, -1), { href: last.href, rel: 'relatedx' }]
    assert.equal(field(longer).length, BOUND + 1)
    assert.equal((await refusal(longer)).code, 'GPT_ERR_LINK_HEADER_TOO_LARGE')
  })

  it('refuses 8 links of 2,048 characters, each allowed alone (16 KiB together: no Node client reads it)', async () => {
    const eight = Array.from({ length: 8 }, (_, i) => `https://h${i}.example/${'a'.repeat(MAX_HREF - `https://h${i}.example/`.length)}`)
    const error = await refusal(eight)
    assert.equal(error.code, 'GPT_ERR_LINK_HEADER_TOO_LARGE')
    assert.match(error.message, new RegExp(`/links: the Link field of these links would be ${field(eight.map((href) => ({ href }))).length} bytes, more than 8192`))
  })
})

/** An act that sets `carried` bytes of Link field (in one field line or two) and then names links to make it `bytes` long. */
interface Case { readonly bytes: number, readonly carried: number, readonly lines: 1 | 2 }

const monitor = (bytes: number): string => field([{ href: `/jobs/${'j'.repeat(bytes - '</jobs/>; rel="monitor"'.length)}`, rel: 'monitor' }])
/** The field lines the act sets, which a reader joins with ", " (RFC 9110 §5.3). */
const carriedLines = ({ carried, lines }: Case): string[] => carried === 0 ? [] : lines === 1 ? [monitor(carried)] : [monitor(1000), monitor(carried - 1002)]

function acting (): Partial<GptOptions> {
  return {
    form: {
      type: 'object',
      properties: { bytes: { type: 'integer' }, carried: { type: 'integer' }, lines: { enum: [1, 2] } },
      required: ['bytes', 'carried', 'lines'],
      additionalProperties: false
    },
    act: (body, _request, reply) => {
      const lines = carriedLines(body as Case)
      if (lines.length > 0) reply.header('link', lines.length === 1 ? lines[0] : lines)
      return withLinks(reply, { ok: true }, ['/poll', ...filling((body as Case).bytes, joined(lines.join(', '), [local]))])
    }
  }
}

describe('withLinks() keeps the reply\'s Link header within 8192 bytes, with what it already carries', () => {
  let host: FastifyInstance
  const failures: unknown[] = []
  before(async () => {
    host = await app({ '/': acting(), '/poll': poll }, (server) => {
      server.addHook('onError', async (_request, _reply, error) => { failures.push(error) })
    })
  })
  after(() => host.close())

  const act = async (payload: Case) => await host.inject({ method: 'POST', url: '/', payload })

  for (const [carried, lines] of [[0, 1], [3000, 1], [3000, 2]] as const) {
    const what = carried === 0 ? 'alone' : `after ${carried} bytes the act set in ${lines} field line${lines === 1 ? '' : 's'}`
    const header = carriedLines({ bytes: 0, carried, lines }).join(', ')
    it(`accepts a field of exactly 8192 bytes ${what}`, async () => {
      const reply = await act({ bytes: BOUND, carried, lines })
      assert.equal(reply.statusCode, 200)
      assert.equal(reply.headers.link, joined(header, [local, ...filling(BOUND, joined(header, [local]))]))
      assert.equal((reply.headers.link as string).length, BOUND)
    })

    it(`fails the act at 8193 bytes ${what}: the bare 500, GPT_ERR_LINK_HEADER_TOO_LARGE its cause`, async () => {
      failures.length = 0
      const reply = await act({ bytes: BOUND + 1, carried, lines })
      assert.equal(reply.statusCode, 500)
      assert.equal(reply.body, '')
      assert.equal(reply.headers.link, undefined, 'no header the act set is sent')
      const [failure] = failures as (Error & { code: string, cause: Error & { code: string } })[]
      assert.equal(failure?.code, 'GPT_ERR_ACT_FAILED')
      assert.equal(failure.cause.code, 'GPT_ERR_LINK_HEADER_TOO_LARGE')
      const said = carried === 0
        ? 'the Link field of these links would be 8193 bytes'
        : 'with the 3000 bytes of Link field the reply already carries, the field would be 8193 bytes'
      assert.equal(failure.cause.message, `fastify-gpt address /: the Link header is too large: /l: ${said}, more than 8192 (Node's fetch and http refuse a response whose headers together pass 16 KiB, and the other headers need room)`)
      // After what the reply carries, links well within the bound by themselves are refused.
      if (carried > 0) assert.ok(field([local, ...filling(BOUND + 1, joined(header, [local]))]).length < BOUND)
    })
  }
})

/** A GET read by node:http with its default maxHeaderSize (16 KiB). */
async function httpRead (url: string): Promise<{ status: number, link: string | undefined }> {
  const request = get(url)
  const [response] = await once(request, 'response') as [IncomingMessage]
  response.resume()
  await once(response, 'end')
  return { status: response.statusCode!, link: response.headers.link as string | undefined }
}

async function listening (host: FastifyInstance): Promise<string> {
  await host.listen({ port: 0, host: '127.0.0.1' })
  return `http://127.0.0.1:${(host.server.address() as AddressInfo).port}`
}

describe('over real sockets: what registration accepts, Node\'s clients read', () => {
  const eight = Array.from({ length: 8 }, (_, i) => ({ href: `https://h${i}.example/${'a'.repeat(MAX_HREF - `https://h${i}.example/`.length)}` }))
  let host: FastifyInstance
  let base = ''
  before(async () => {
    const links = filling(BOUND, '')
    host = await app({ '/': { links }, '/act': acting(), '/poll': poll }, (server) => {
      // What 8 links of 2,048 characters would send, were they accepted (registration refuses them).
      server.get('/unbounded', async (_request, reply) => reply.header('link', field(eight)).send({}))
    })
    base = await listening(host)
  })
  after(() => host.close())

  it('Node\'s fetch (undici) reads the largest accepted field on an arrival and on an act\'s result', async () => {
    const arrival = await fetch(`${base}/`)
    assert.equal(arrival.status, 200)
    assert.equal(arrival.headers.get('link'), field(filling(BOUND, '')))
    await arrival.body?.cancel()
    const result = await fetch(`${base}/act`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ bytes: BOUND, carried: 3000, lines: 1 }) })
    assert.equal(result.status, 200)
    assert.equal(result.headers.get('link')?.length, BOUND)
    assert.deepEqual(Object.keys(await result.json() as object), ['ok', 'l'])
  })

  it('node:http reads the largest accepted field', async () => {
    assert.deepEqual(await httpRead(`${base}/`), { status: 200, link: field(filling(BOUND, '')) })
  })

  it('the field the bound refuses overflows both clients', async () => {
    assert.ok(field(eight).length > BOUND)
    assert.equal((await refusal(eight.map((link) => link.href))).code, 'GPT_ERR_LINK_HEADER_TOO_LARGE')
    await assert.rejects(fetch(`${base}/unbounded`), (error: Error & { cause?: { code?: string } }) => {
      assert.equal(error.cause?.code, 'UND_ERR_HEADERS_OVERFLOW')
      return true
    })
    await assert.rejects(httpRead(`${base}/unbounded`), { code: 'HPE_HEADER_OVERFLOW' })
  })
})

describe('for any links: what registration accepts sends a Link field of at most 8192 bytes, which fetch reads', () => {
  // Relations as RFC 8288 §3.3 allows them, some long.
  const rel = fc.option(fc.oneof(
    fc.constantFrom('related', 'monitor', 'next'),
    fc.string({ unit: fc.constantFrom('a', 'z', '0', '.', '-'), maxLength: 400 }).map((rest) => `r${rest}`)
  ), { nil: undefined })
  // Up to 98 links to other hosts (with the 2 here, as many as an address may name), their hrefs about as long as puts the field near the bound, to both sides of it.
  const remotes = fc.integer({ min: 0, max: 98 }).chain((count) => fc.array(
    fc.record({ length: fc.integer({ min: 0, max: Math.min(MAX_HREF - 30, Math.round(2 * BOUND / count)) }), rel }),
    { minLength: count, maxLength: count }))
  const links = fc.record({ local: fc.subarray(['/poll', `/${'p'.repeat(1500)}`]), remote: remotes })

  it('accepts exactly the sets whose field is within the bound, and Node\'s fetch reads each arrival', async () => {
    const seen = { accepted: 0, refused: 0 }
    await fc.assert(fc.asyncProperty(links, async ({ local, remote }) => {
      const written: Written[] = [
        ...local.map((href) => ({ href })),
        ...remote.map(({ length, rel }, i) => ({ href: `https://h${i}.example/${'a'.repeat(length)}`, ...(rel === undefined ? {} : { rel }) }))
      ]
      const expected = field(written)
      const host = Fastify()
      try {
        const ready = await (async () => {
          await host.register(gpt, { form, act: () => ({}), rateLimit: false, links: written })
          for (const prefix of ['/poll', `/${'p'.repeat(1500)}`]) await host.register(gpt, { form, act: () => ({}), rateLimit: false, prefix, prompt: 'A target.' })
          await host.ready()
        })().then(() => undefined, (error: Error & { code?: string }) => error)
        if (ready !== undefined) {
          assert.equal(ready.code, 'GPT_ERR_LINK_HEADER_TOO_LARGE', ready.message)
          assert.ok(expected.length > BOUND, `refused ${expected.length} bytes`)
          seen.refused++
          return
        }
        assert.ok(expected.length <= BOUND, `accepted ${expected.length} bytes`)
        seen.accepted++
        const reply = await fetch(`${await listening(host)}/`)
        assert.equal(reply.status, 200)
        assert.equal(reply.headers.get('link') ?? '', expected)
        await reply.body?.cancel()
      } finally {
        await host.close()
      }
    }), { numRuns: 150 })
    assert.ok(seen.accepted > 10 && seen.refused > 10, `both sides of the bound reached: ${JSON.stringify(seen)}`)
  })
})
