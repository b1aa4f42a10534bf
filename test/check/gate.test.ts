// The checker against acts behind the host's own gate (src/check/gate.ts): auth answering a POST
// 401 or 403 before the address reads it. The draft leaves auth outside the protocol (§1.2), so the
// gate's answers are neither refusals (§5.3) nor passes of §5.2: the checks are `gate`, the report
// says which --header would pass it, and a run no POST got through is not a pass (exit 2).
import assert from 'node:assert/strict'
import { once } from 'node:events'
import { createServer, type Server } from 'node:http'
import { after, before, describe, it } from 'node:test'
import bearerAuth from '@fastify/bearer-auth'
import Fastify, { type FastifyInstance } from 'fastify'
import { main } from '../../src/cli/check.ts'
import { checkAddress, formatReport, type Report } from '../../src/check/testing.ts'
import { schemes } from '../../src/check/gate.ts'
import gpt from '../../src/index.ts'

const KEY = 'a-long-random-key'
const form = { type: 'object', properties: { room: { type: 'string', maxLength: 8 } }, required: ['room'], additionalProperties: false } as const

/**
 * docs/hosts.md's setup: @fastify/bearer-auth on acts only, the arrival open to all. `challenge`
 * adds the WWW-Authenticate a 401 carries (RFC 6750 §3), which the plugin itself leaves out.
 */
async function booking (challenge: boolean): Promise<FastifyInstance> {
  const app = Fastify()
  await app.register(async (scope) => {
    await scope.register(bearerAuth, { keys: new Set([KEY]), addHook: false })
    scope.addHook('onRequest', (request, reply, done) => {
      if (request.method !== 'POST') return done() // draft §3.1: the arrival needs no header
      scope.verifyBearerAuth?.(request, reply, done)
    })
    if (challenge) {
      scope.addHook('onSend', async (_request, reply) => {
        if (reply.statusCode === 401) reply.header('www-authenticate', 'Bearer realm="bookings", error="invalid_token"')
      })
    }
    await scope.register(gpt, { prefix: '/bookings', form, act: (booked) => ({ booked }), rateLimit: false })
  })
  return app
}

const judged = { judgeTimeout: 60_000 }
const of = (report: Report, prefix: string): string[] => report.results.filter((r) => r.id.startsWith(prefix) && r.outcome !== 'skip').map((r) => r.outcome)

describe('a gate in front of every act', () => {
  it('@fastify/bearer-auth answering 401 with a Bearer challenge: each act check is the gate\'s, none failed, and the report names the --header', async (t) => {
    const app = await booking(true)
    t.after(() => app.close())
    const report = await checkAddress(app, { path: '/bookings', ...judged })
    assert.deepEqual(report.results.filter((r) => r.outcome === 'fail'), [])
    for (const id of ['5.3-bare-204', '5.3-uniform', '5.1-content-type', '5.2-empty', '5.2-duplicate', '5.2-form-maxLength']) {
      const result = report.results.find((r) => r.id === id)
      assert.equal(result?.outcome, 'gate', id)
      assert.equal(result?.detail, 'answered 401 by the host\'s gate: the address never judged the body')
    }
    // no act check passes for an answer the address never gave
    assert.ok(of(report, '5.').every((outcome) => outcome === 'gate'), of(report, '5.').join())
    assert.equal(report.counts.gate, of(report, '5.').length)
    assert.deepEqual(report.gate, { gated: report.gate?.gated, through: 0, status: 401, challenge: 'Bearer realm="bookings", error="invalid_token"', header: 'Authorization: Bearer …' })
    assert.ok((report.gate?.gated ?? 0) > 10)
    assert.match(report.unfinished ?? '', /^the acts were not checked: the host's gate answered every POST 401; pass --header 'Authorization: Bearer …'$/)
    const text = formatReport(report)
    assert.match(text, /^ {2}gate {2}SHOULD {2}5\.3-bare-204: /m)
    assert.match(text, /^The host's gate \(auth in front of the address\): \d+ POSTs answered 401 \(WWW-Authenticate: Bearer realm="bookings", error="invalid_token"\), none reached the address\n {2}the acts were not checked: to check them, give the credentials an actor sends, --header 'Authorization: Bearer …'$/m)
    assert.match(text, /\d+ passed, 0 failed \(0 MUST\), \d+ skipped, \d+ gated; /)
  })

  it('the command over HTTP: exit 2 with the report and the --header to pass; with the key, every check runs and passes', async (t) => {
    const app = await booking(true)
    t.after(() => app.close())
    const url = `${await app.listen({ port: 0, host: '127.0.0.1' })}/bookings`
    const run = async (...argv: string[]): Promise<{ status: number, out: string, err: string }> => {
      let out = ''
      let err = ''
      const status = await main([url, '--judge-timeout', '60000', ...argv], { out: (text) => { out += text }, err: (text) => { err += text } })
      return { status, out, err }
    }
    const shut = await run()
    assert.equal(shut.status, 2, shut.out + shut.err)
    assert.doesNotMatch(shut.out, /^Failed:|fail {2}SHOULD {2}5\.3-bare-204/m)
    assert.match(shut.out, /^conformant as far as checked$/m)
    assert.equal(shut.err, 'fastify-gpt check: could not check everything: the acts were not checked: the host\'s gate answered every POST 401; pass --header \'Authorization: Bearer …\'\n')

    const wrong = await run('--header', 'Authorization: Bearer not-the-key', '--acts', '2')
    assert.equal(wrong.status, 2)
    assert.match(wrong.out, /none reached the address; the headers given \(authorization\) did not pass it\n/)
    assert.match(wrong.out, /^ {2}gate {2}MUST {4}5\.2-admitted: [^\n]+\n {8}answered 401 by the host's gate/m)
    assert.doesNotMatch(wrong.out, /not-the-key/, 'a header\'s value is never shown')

    const key = await run('--header', `Authorization: Bearer ${KEY}`, '--acts', '2', '--json')
    assert.equal(key.status, 0, key.out + key.err)
    const report = JSON.parse(key.out) as Report
    assert.equal(report.gate, undefined)
    assert.equal(report.counts.gate, 0)
    assert.equal(report.results.find((r) => r.id === '5.3-bare-204')?.outcome, 'pass')
    assert.equal(report.results.find((r) => r.id === '5.2-admitted')?.outcome, 'pass')
  })

  it('a 403 without a challenge: generic advice', async (t) => {
    const app = Fastify()
    t.after(() => app.close())
    await app.register(async (scope) => {
      scope.addHook('onRequest', async (request, reply) => {
        if (request.method === 'POST' && request.headers['x-api-key'] !== KEY) return reply.code(403).send({ error: 'forbidden' })
      })
      await scope.register(gpt, { form, act: () => ({ ok: true }), rateLimit: false })
    })
    const report = await checkAddress(app, judged)
    assert.equal(report.gate?.status, 403)
    assert.equal(report.gate?.header, undefined)
    assert.match(report.unfinished ?? '', /pass --header 'NAME: VALUE' \(Authorization, or the field an API key goes in\)$/)
    assert.equal((await checkAddress(app, { ...judged, headers: { 'x-api-key': KEY } })).gate, undefined)
  })
})

describe('a 401 or 403 that depends on the body is the address\'s refusal', () => {
  let server: Server
  let url = ''
  before(async () => {
    // acts on an integer of at least 0, and answers anything else 403
    server = createServer((request, response) => {
      const chunks: Buffer[] = []
      request.on('data', (chunk: Buffer) => chunks.push(chunk))
      request.on('end', () => {
        if (request.method === 'GET') return response.writeHead(200, { 'content-type': 'application/json' }).end('{"p":"","m":[],"s":{"type":"integer","minimum":0}}')
        const text = Buffer.concat(chunks).toString()
        if (/^\d+$/.test(text)) response.writeHead(200, { 'content-type': 'application/json' }).end(text)
        else response.writeHead(403).end()
      })
    }).listen(0, '127.0.0.1')
    await once(server, 'listening')
    url = `http://127.0.0.1:${(server.address() as { port: number }).port}/`
  })
  after(() => { server.closeAllConnections(); server.close() })

  it('where acts got through, a refusal answered 403 fails 5.3-bare-204, and the report says why it is no gate', async () => {
    const report = await checkAddress(url, { acts: 2, ...judged })
    assert.equal(report.results.find((r) => r.id === '5.2-admitted')?.outcome, 'pass')
    const bare = report.results.find((r) => r.id === '5.3-bare-204')
    assert.equal(bare?.outcome, 'fail')
    assert.match(bare?.detail ?? '', /^a refusal was answered 403 0 bytes, though other POSTs reached the address \(answered 204 or acted on\): a gate answers every body alike, this one judged the body$/)
    assert.equal(report.gate?.through, 2)
    assert.equal(report.unfinished, undefined)
    assert.match(formatReport(report), /^The host's gate \(auth in front of the address\): \d+ POSTs answered 403, yet 2 reached the address \(204 or acted on\)\n {2}a gate answers every POST alike: one that lets some bodies through judges them, and its 403 is a refusal \(5\.3\)$/m)
  })
})

describe('the xgrammar actor behind a gate', () => {
  it('writes its bodies, and the gate answers them: 5.2-decoder and 5.3-success are the gate\'s, not refusals of values s admits', async (t) => {
    const app = await booking(false)
    t.after(() => app.close())
    const report = await checkAddress(app, { path: '/bookings', actor: 'xgrammar', acts: 2, ...judged })
    for (const id of ['5.2-decoder', '5.3-success']) assert.equal(report.results.find((r) => r.id === id)?.outcome, 'gate', id)
    assert.deepEqual({ accepted: report.actor?.accepted, refused: report.actor?.refused, gated: report.actor?.gated }, { accepted: 0, refused: 0, gated: 2 })
    assert.match(formatReport(report), /: 2 bodies written, 0 acted on, 0 refused, 2 answered by the host's gate\n/)
  })
})

describe('WWW-Authenticate read for its schemes (RFC 9110 §11.6.1)', () => {
  it('names each challenge\'s scheme, never a parameter, whatever a quoted string holds', () => {
    assert.deepEqual(schemes('Bearer'), ['Bearer'])
    assert.deepEqual(schemes('Bearer realm="a, b=c", error="invalid_token"'), ['Bearer'])
    assert.deepEqual(schemes('Basic realm="x", charset = "UTF-8", Bearer'), ['Basic', 'Bearer'])
    assert.deepEqual(schemes('Negotiate YWJj==, ,Digest realm="\\"q,"'), ['Negotiate', 'Digest'])
    assert.deepEqual(schemes('realm=x'), [])
  })
})
