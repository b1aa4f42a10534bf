// `fastify-gpt check <url> --mcp <bridge>` over real HTTP on 127.0.0.1, main() in-process: a
// fastify-gpt host with its own bridge passes; a small fake bridge that breaks one thing fails.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import Fastify, { type FastifyInstance } from 'fastify'
import gpt, { type GptOptions } from '../../src/index.ts'
import mcp, { REFUSAL } from '../../src/mcp/index.ts'
import { parse } from '../../src/parse/parse.ts'
import { main, USAGE } from '../../src/cli/check.ts'
import { noteForm } from '../helpers/host.ts'

async function cli (...argv: string[]): Promise<{ status: number, out: string, err: string }> {
  let out = ''
  let err = ''
  const status = await main(argv, { out: (text: string) => { out += text }, err: (text: string) => { err += text } })
  return { status, out, err }
}

// the judge's time is not what these runs are about
const judged = (...argv: string[]): ReturnType<typeof cli> => cli(...argv, '--judge-timeout', '60000')

/**
 * A bridge of its own for the address at `target` (the tool "notes"): `last-wins` reads calls
 * with JSON.parse (the last of duplicated members wins); `varied` says in each refusal why.
 */
async function fakeBridge (target: string, fault: 'last-wins' | 'varied'): Promise<{ app: FastifyInstance, url: string }> {
  const app = Fastify()
  app.removeAllContentTypeParsers()
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => { done(null, body) })
  app.post('/mcp', async (request, reply) => {
    const bytes = request.body as Buffer
    let why: string | undefined
    try {
      if (fault === 'varied') parse(bytes)
    } catch (error) {
      why = (error as Error).message
    }
    const { id, method, params } = JSON.parse(bytes.toString('utf8')) as { id: number, method: string, params: Record<string, unknown> }
    const answer = (result: unknown): string => JSON.stringify({ jsonrpc: '2.0', id, result })
    reply.type('application/json')
    if (method === 'initialize') return answer({ protocolVersion: params['protocolVersion'], capabilities: { tools: {} }, serverInfo: { name: 'fake', version: '0' } })
    if (method === 'tools/list') return answer({ tools: [{ name: 'notes', inputSchema: noteForm, _meta: { 'fastify-gpt/address': '/notes' } }] })
    if (method !== 'tools/call') return reply.code(202).send()
    const refused = (reason: string): string => answer({ content: [{ type: 'text', text: `Refused: ${reason}` }], isError: true })
    if (why !== undefined) return refused(why)
    const posted = await fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(params['arguments']) })
    const text = await posted.text()
    return posted.status === 200 ? answer({ content: [{ type: 'text', text }], structuredContent: JSON.parse(text) }) : refused(`the address answered ${posted.status}`)
  })
  const base = await app.listen({ port: 0, host: '127.0.0.1' })
  return { app, url: `${base}/mcp` }
}

describe('fastify-gpt check <url> --mcp <url>', () => {
  let host: FastifyInstance
  let base = ''
  const seen: unknown[] = []
  let lastWins: Awaited<ReturnType<typeof fakeBridge>>
  let varied: Awaited<ReturnType<typeof fakeBridge>>

  before(async () => {
    host = Fastify()
    await host.register(gpt, { prefix: '/notes', form: noteForm, act: (body: unknown) => { seen.push(body); return body }, rateLimit: false } as GptOptions)
    await host.register(mcp)
    base = await host.listen({ port: 0, host: '127.0.0.1' })
    lastWins = await fakeBridge(`${base}/notes`, 'last-wins')
    varied = await fakeBridge(`${base}/notes`, 'varied')
  })
  after(async () => { await Promise.all([host.close(), lastWins.app.close(), varied.app.close()]) })

  it('passes a fastify-gpt host with its own bridge (--mcp a path on the origin), and exits 0', async () => {
    const { status, out, err } = await judged(`${base}/notes`, '--mcp', '/mcp', '--acts', '2')
    assert.equal(err, '')
    assert.equal(status, 0)
    const sections = [...out.matchAll(/^§(\S+)/gm)].map((m) => m[1])
    assert.deepEqual(sections, ['3.1', '3.2', '3.3', '4', '5.1', '5.2', '5.3', '6', 'MCP'])
    for (const id of ['MCP-tool', 'MCP-input-schema', 'MCP-refused', 'MCP-admitted', 'MCP-answer']) assert.match(out, new RegExp(`^ {2}pass {2}MUST {4}${id}: `, 'm'))
    assert.match(out, /^ {2}pass {2}SHOULD {2}MCP-uniform: /m)
    assert.match(out, new RegExp(`^The MCP bridge ${base}/mcp \\(MCP 2025-06-18\\): the tool "notes", found by _meta\\["fastify-gpt/address"\\]; the body is the arguments$`, 'm'))
    assert.ok(out.includes(`  a refused call: ${REFUSAL}\n`))
    assert.match(out, /conformant as far as checked\n$/)
  })

  it('--json has the bridge in report.mcp', async () => {
    const { status, out } = await judged(`${base}/notes`, '--mcp', `${base}/mcp`, '--json')
    assert.equal(status, 0)
    const report = JSON.parse(out)
    assert.equal(report.mcp.url, `${base}/mcp`)
    assert.deepEqual(report.mcp.tool, { name: 'notes', by: 'address', wrapped: false })
    assert.equal(report.mcp.disagreed, 0)
    assert.equal(report.mcp.refusal, REFUSAL)
    assert.deepEqual(report.results.filter((r: { id: string }) => r.id.startsWith('MCP-')).map((r: { outcome: string }) => r.outcome), ['pass', 'pass', 'pass', 'skip', 'skip', 'pass'])
  })

  it('fails a bridge on which the last of duplicated members wins: exit 1, the two exchanges shown', async () => {
    const { status, out } = await judged(`${base}/notes`, '--mcp', lastWins.url)
    assert.equal(status, 1)
    const failures = out.slice(out.indexOf('Failed:'), out.indexOf('§3.1'))
    assert.match(failures, /^ {2}fail {2}MUST {4}MCP-refused: .*\n {8}tools\/call acted on a body s refuses, where POST refused it: \{"note":"g","note":"g"\}/m)
    assert.match(failures, /sent: POST content-type: application\/json {2}\{"note":"g","note":"g"\}\n {8}got: {2}204 /)
    assert.match(failures, /sent: POST content-type: application\/json, accept: application\/json, text\/event-stream, mcp-protocol-version: 2025-06-18 {2}\{"jsonrpc":"2\.0","id":\d+,"method":"tools\/call"/)
    assert.match(out, /acted on by one and refused by the other/)
    assert.match(out, /not conformant\n$/)
  })

  it('refusals that say why are a SHOULD: exit 0, and 1 with --strict', async () => {
    const lenient = await judged(`${base}/notes`, '--mcp', varied.url)
    assert.equal(lenient.status, 0)
    assert.match(lenient.out, /^ {2}fail {2}SHOULD {2}MCP-uniform: .*\n {8}two refused calls are answered otherwise: 200 \{"content":\[\{"type":"text","text":"Refused: the address answered 204"\}\],"isError":true\} and 200 .*Refused: JSON body rejected: duplicate/m)
    const strict = await judged(`${base}/notes`, '--mcp', varied.url, '--strict')
    assert.equal(strict.status, 1)
    assert.match(strict.out, /not conformant \(strict: SHOULD counts\)/)
  })

  it('no tool for the address: one line, exit 2, no act sent', async () => {
    const before = seen.length
    const { status, out, err } = await cli(`${base}/elsewhere`, '--mcp', '/mcp', '--acts', '3')
    assert.equal(status, 2)
    assert.equal(out, '')
    assert.equal(err, `fastify-gpt check: the MCP bridge at ${base}/mcp lists no tool for /elsewhere: none has _meta["fastify-gpt/address"] "/elsewhere" or the name "elsewhere" (it lists "notes")\n`)
    assert.equal(seen.length, before)
  })

  it('--mcp takes an http(s) URL, or a path: a usage error otherwise; --help names it', async () => {
    for (const bad of ['http://[', 'ftp://127.0.0.1/mcp']) {
      const { status, out, err } = await cli(`${base}/notes`, '--mcp', bad)
      assert.equal(status, 2, bad)
      assert.equal(out, '')
      assert.ok(err.startsWith(`fastify-gpt check: --mcp takes ${bad === 'http://[' ? 'a URL' : 'an http(s) URL'}, not "${bad}"\n\n${USAGE}`), err)
    }
    const { status, out } = await cli('--help')
    assert.equal(status, 0)
    assert.match(out, /^ {2}--mcp URL {12}also check the address's tool on the MCP bridge at URL/m)
  })
})
