// `fastify-gpt check` follows the addresses an arrival's l names (docs/links.md, docs/checking.md):
// real HTTP against a server whose arrivals name what each test needs, and a property search over
// random link graphs through an in-memory transport.
import assert from 'node:assert/strict'
import { createServer, type Server } from 'node:http'
import { after, before, describe, it } from 'node:test'
import fc from 'fast-check'
import { main } from '../../src/cli/check.ts'
import { Client } from '../../src/check/client.ts'
import { followLinks } from '../../src/check/links.ts'
import { Results } from '../../src/check/results.ts'
import type { LinkGraph, Report, Response, Send } from '../../src/check/types.ts'

const form = { type: 'object', properties: { x: { type: 'string' } }, required: ['x'], additionalProperties: false }
type Page = { status?: number, type?: string, body: string }
const arrival = (links: unknown): Page => ({ body: JSON.stringify({ p: 'An address.', m: [], s: form, l: links }) })

/** A loopback server answering GET from `pages` (404 elsewhere), every POST with a bare 204; counts GETs per path. */
async function graphServer (pages: Record<string, Page>): Promise<{ server: Server, url: string, hits: Map<string, number> }> {
  const hits = new Map<string, number>()
  const server = createServer((request, response) => {
    request.resume()
    const path = request.url ?? '/'
    if (request.method !== 'GET') return request.on('end', () => response.writeHead(204).end())
    hits.set(path, (hits.get(path) ?? 0) + 1)
    const page = pages[path]
    if (page === undefined) return response.writeHead(404).end()
    response.writeHead(page.status ?? 200, { 'content-type': page.type ?? 'application/json' }).end(page.body)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  return { server, url: `http://127.0.0.1:${port}`, hits }
}

async function cli (...argv: string[]): Promise<{ status: number, out: string }> {
  let out = ''
  const status = await main(argv, { out: (text: string) => { out += text }, err: () => {} })
  return { status, out }
}

describe('fastify-gpt check follows l', () => {
  let graph: Awaited<ReturnType<typeof graphServer>>
  let other: Awaited<ReturnType<typeof graphServer>>

  before(async () => {
    other = await graphServer({ '/x': arrival([]) })
    graph = await graphServer({
      '/': arrival(['/a', '/missing', '/page', '/plain', `${other.url}/x`, 'mailto:someone@example.org', '/a#again'].map((href) => ({ href }))),
      '/a': arrival([{ href: '/' }, { href: 'b', p: 'relative to /a' }]),
      '/b': arrival([{ href: '/b' }, { href: '/c0' }]),
      '/page': { type: 'text/html', body: '<p>a page</p>' },
      '/plain': { body: JSON.stringify({ p: 'no form here', m: [] }) },
      '/c0': arrival([{ href: '/c1' }]),
      '/c1': arrival([{ href: '/c2' }]),
      '/c2': arrival([{ href: '/c3' }]),
      '/c3': arrival([{ href: '/c4' }]),
      '/bad': arrival('not a list'),
      '/odd': arrival([{ href: '/twice' }, { href: 'http://[' }, { href: '/big' }]),
      '/twice': { body: '{"p":"x","p":"y","m":[],"s":{}}' },
      '/big': arrival([{ href: '/'.padEnd(5000, 'x') }]),
      '/wide': arrival(Array.from({ length: 10_000 }, (_, i) => ({ href: `/w${i}` })))
    })
  })
  after(() => { graph.server.close(); other.server.close() })

  it('reports targets that are not addresses, links leaving the origin (never contacted) and loops', async () => {
    graph.hits.clear()
    const { status, out } = await cli(`${graph.url}/`, '--json', '--depth', '3')
    const report = JSON.parse(out) as Report
    const links = report.links as LinkGraph
    assert.equal(status, 0, 'a SHOULD: not a failed run without --strict')
    assert.deepEqual(links.loops, [[`${graph.url}/`, `${graph.url}/a`], [`${graph.url}/b`]])
    assert.deepEqual(links.offOrigin, [{ from: `${graph.url}/`, href: `${other.url}/x` }])
    assert.equal(other.hits.size, 0, 'another origin is named, never contacted')
    assert.deepEqual(links.notAddresses.map(({ href, why }) => [href, why]).sort(), [
      [`${graph.url}/missing`, 'a plain GET was answered 404'],
      [`${graph.url}/page`, 'answered text/html, not application/json'],
      [`${graph.url}/plain`, 's is not an object'],
      ['mailto:someone@example.org', 'not an http(s) URL']
    ])
    assert.deepEqual(links.addresses.map((a) => [a.url.slice(graph.url.length), a.depth]), [['/', 0], ['/a', 1], ['/b', 2], ['/c0', 3]])
    assert.equal(links.counts.beyond, 1, '/c1 is past 3 hops')
    assert.equal(graph.hits.get('/c1'), undefined, 'and never read')
    assert.equal(graph.hits.get('/a'), 1, 'each target is read once, however often it is named')
    const failed = report.results.find((r) => r.id === 'B-links-address')
    assert.equal(failed?.outcome, 'fail')
    assert.equal(failed?.level, 'SHOULD')
    assert.ok((failed?.exchanges?.length ?? 0) > 0, 'with what was sent and what came back')
    assert.equal((await cli(`${graph.url}/`, '--strict', '--depth', '3')).status, 1, 'with --strict, the run fails')
  })

  it('says so in the human report', async () => {
    const { out } = await cli(`${graph.url}/`, '--depth', '1')
    assert.match(out, /§B Composition/)
    assert.match(out, new RegExp(`loop: ${graph.url}/, ${graph.url}/a lead to one another`))
    assert.match(out, new RegExp(`leaves the origin, not followed: ${other.url}/x \\(named by ${graph.url}/\\)`))
    assert.match(out, new RegExp(`not an address: ${graph.url}/missing \\(named by ${graph.url}/\\): a plain GET was answered 404`))
    assert.match(out, /1 address named past 1 hop, not read/)
  })

  it('reads no target with --depth 0, and follows a chain no further than --depth', async () => {
    graph.hits.clear()
    const none = JSON.parse((await cli(`${graph.url}/c0`, '--json', '--depth', '0')).out) as Report
    assert.equal(none.links?.addresses.length, 1)
    assert.equal(graph.hits.get('/c1'), undefined)
    const two = JSON.parse((await cli(`${graph.url}/c0`, '--json', '--depth', '2')).out) as Report
    assert.deepEqual(two.links?.addresses.map((a) => a.url.slice(graph.url.length)), ['/c0', '/c1', '/c2'])
    assert.equal(graph.hits.get('/c3'), undefined)
  })

  it('an l that is not a list of links fails B-links-member; of 10,000 links, 100 are read', async () => {
    const bad = JSON.parse((await cli(`${graph.url}/bad`, '--json')).out) as Report
    assert.equal(bad.results.find((r) => r.id === 'B-links-member')?.outcome, 'fail')
    graph.hits.clear()
    const wide = JSON.parse((await cli(`${graph.url}/wide`, '--json', '--max-requests', '1000')).out) as Report
    assert.equal(wide.links?.counts.notAddresses, 100)
    assert.equal([...graph.hits.keys()].filter((path) => /^\/w\d/.test(path)).length, 100)
  })

  it('a duplicate member is not an arrival, an href that is no URL is a bad member, an arrival too large to read is unread', async () => {
    const report = JSON.parse((await cli(`${graph.url}/odd`, '--json', '--max-bytes', '4000')).out) as Report
    const links = report.links as LinkGraph
    assert.match(links.notAddresses[0]?.why ?? '', /^the body is not strictly valid JSON/)
    assert.equal(links.counts.unread, 1)
    const member = report.results.find((r) => r.id === 'B-links-member')
    assert.equal(member?.outcome, 'fail')
    assert.match(member?.detail ?? '', /"http:\/\/\[" is not a URL reference/)
    assert.match((await cli(`${graph.url}/odd`, '--max-bytes', '4000')).out, /1 target not read\n/)
  })

  it('an arrival without l is checked as before: no B section, no extra request', async () => {
    const plain = await graphServer({ '/': { body: JSON.stringify({ p: 'x', m: [], s: form }) } })
    const report = JSON.parse((await cli(`${plain.url}/`, '--json')).out) as Report
    assert.equal(report.links, undefined)
    assert.ok(report.results.every((r) => r.section !== 'B'))
    assert.equal(plain.hits.size, 1)
    plain.server.close()
  })
})

/** Which nodes each node reaches in one or more links: Floyd–Warshall over the adjacency matrix. */
function closure (n: number, edges: readonly (readonly number[])[]): boolean[][] {
  const reach = Array.from({ length: n }, (_, i) => Array.from({ length: n }, (_, j) => edges[i]!.includes(j)))
  for (let k = 0; k < n; k++) for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) if (reach[i]![k]! && reach[k]![j]!) reach[i]![j] = true
  return reach
}

describe('following random link graphs', () => {
  const ORIGIN = 'http://graph.invalid'
  const graphs = fc.integer({ min: 1, max: 12 }).chain((n) => fc.record({
    n: fc.constant(n),
    edges: fc.array(fc.uniqueArray(fc.integer({ min: 0, max: n - 1 }), { maxLength: 5 }), { minLength: n, maxLength: n }),
    addresses: fc.array(fc.boolean(), { minLength: n, maxLength: n }),
    elsewhere: fc.array(fc.boolean(), { minLength: n, maxLength: n }),
    depth: fc.integer({ min: 0, max: 5 }),
    maxRequests: fc.integer({ min: 1, max: 40 })
  }))

  it('ends within its bounds, reads only what is within depth, and reports every loop among what it read', async () => {
    await fc.assert(fc.asyncProperty(graphs, async ({ n, edges, addresses, elsewhere, depth, maxRequests }) => {
      addresses[0] = true
      const url = (i: number): string => `${ORIGIN}/n${i}`
      const page = (i: number): Response => addresses[i]
        ? {
            status: 200,
            headers: { 'content-type': 'application/json' },
            body: Buffer.from(JSON.stringify({ p: `n${i}`, m: [], s: {}, l: [...edges[i]!.map((j) => ({ href: `/n${j}` })), ...(elsewhere[i]! ? [{ href: `https://elsewhere.invalid/n${i}` }] : [])] }))
          }
        : { status: 404, headers: {}, body: new Uint8Array() }
      const read: number[] = []
      const route: { send: Send } = { send: async () => { throw new Error('no route') } }
      const client = new Client((request) => route.send(request), { maxRequests, interval: 0, maxWait: 0, sleep: async () => {} })
      const results = new Results()
      const graph = await followLinks(client, route, page(0), {
        url: url(0),
        depth,
        sendTo: (target) => async () => {
          const i = Number(target.pathname.slice(2))
          assert.equal(target.origin, ORIGIN, 'never another origin')
          read.push(i)
          return page(i)
        }
      }, results)

      assert.ok(client.requests <= maxRequests)
      assert.equal(new Set(read).size, read.length, 'each target read once')
      // distances through addresses: what the checker may reach
      const distance = new Array<number>(n).fill(Infinity)
      distance[0] = 0
      for (const queue = [0]; queue.length > 0;) {
        const i = queue.shift()!
        if (!addresses[i]) continue
        for (const j of edges[i]!) if (distance[j] === Infinity) { distance[j] = distance[i]! + 1; queue.push(j) }
      }
      for (const i of read) assert.ok(distance[i]! <= depth && distance[i]! >= 1, `n${i} read at distance ${distance[i]}, depth ${depth}`)
      const seen = graph.addresses.map((a) => Number(new URL(a.url).pathname.slice(2)))
      if (graph.stopped === undefined) {
        const expected = [...Array(n).keys()].filter((i) => addresses[i] && distance[i]! <= depth)
        assert.deepEqual([...seen].sort((a, b) => a - b), expected)
        assert.equal(graph.counts.offOrigin, expected.filter((i) => elsewhere[i]).length)
      }
      // every loop among the addresses read, by an independent computation
      const index = new Map(seen.map((node, k) => [node, k]))
      const sub = seen.map((i) => edges[i]!.filter((j) => index.has(j)).map((j) => index.get(j)!))
      const reach = closure(seen.length, sub)
      const loops = new Set<string>()
      for (let a = 0; a < seen.length; a++) {
        if (!reach[a]![a]) continue
        const part = seen.filter((_, b) => reach[a]![b]! && reach[b]![a]!).map((i) => url(i)).sort()
        loops.add(JSON.stringify(part))
      }
      assert.deepEqual(new Set(graph.loops.map((loop) => JSON.stringify([...loop].sort()))), loops)
      // each link from an address read to a target read that is not an address is reported
      const bad = seen.flatMap((i) => edges[i]!.filter((j) => read.includes(j) && !addresses[j]).map((j) => `${url(i)} ${url(j)}`))
      assert.deepEqual(graph.notAddresses.map((l) => `${l.from} ${l.href}`).sort(), bad.sort())
      assert.equal(results.list.find((r) => r.id === 'B-links-address')?.outcome, bad.length > 0 ? 'fail' : graph.counts.unread > 0 ? 'skip' : 'pass')
    }), { numRuns: 300 })
  })
})
