// checkMcp (fastify-gpt/testing): an address's tool on an MCP bridge against its own POST. A
// fastify-gpt host with its own bridge (fastify-gpt/mcp) passes; a bridge written to break one
// thing (a small fake one here, in front of a real address) fails exactly the check it breaks.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import Fastify, { type FastifyInstance, type FastifyReply } from 'fastify'
import gpt, { type GptOptions } from '../../src/index.ts'
import mcp, { REFUSAL } from '../../src/mcp/index.ts'
import { parse } from '../../src/parse/parse.ts'
import { checkMcp, formatReport, type Report } from '../../src/check/testing.ts'
import { differs, inputSchemaOf } from '../../src/check/agree.ts'
import { member, nameOf } from '../../src/check/mcp.ts'
import { faultyForm, faultyHost } from '../helpers/faulty.ts'
import { noteForm } from '../helpers/host.ts'
import { freePort } from '../helpers/port.ts'

const failed = (report: Report): string[] => report.results.filter((r) => r.outcome === 'fail').map((r) => r.id).sort()
const mcpFailed = (report: Report): string[] => failed(report).filter((id) => id.startsWith('MCP-'))
const result = (report: Report, id: string): { outcome: string, detail?: string } | undefined => report.results.find((r) => r.id === id)
const outcome = (report: Report, id: string): string | undefined => result(report, id)?.outcome
const MCP_IDS = ['MCP-tool', 'MCP-input-schema', 'MCP-refused', 'MCP-admitted', 'MCP-answer', 'MCP-uniform']
// the judge's time is not what these runs are about
const judged = { judgeTimeout: 60_000 }

const tagsForm = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'array',
  items: { $ref: '#/$defs/tag' },
  maxItems: 3,
  $defs: { tag: { enum: ['red', 'blue'] } }
}

/** The host: addresses that echo their body, one that answers otherwise, a wrapped form, the root; and its bridge. */
async function realHost (): Promise<{ app: FastifyInstance, base: string, seen: unknown[] }> {
  const seen: unknown[] = []
  let counted = 0
  const app = Fastify()
  const address = async (options: Partial<GptOptions> & { prefix?: string }): Promise<void> => {
    await app.register(gpt, { rateLimit: false, act: (body: unknown) => body, ...options } as GptOptions)
  }
  await address({ prefix: '/notes', form: noteForm, act: (body: unknown) => { seen.push(body); return body } })
  await address({ prefix: '/tags', form: tagsForm })
  await address({ prefix: '/count', form: { type: 'object', properties: { n: { type: 'integer', minimum: 1, maximum: 5 } }, required: ['n'], additionalProperties: false }, act: () => ({ counted: ++counted }) })
  await address({ prefix: '/long', form: { type: 'string', minLength: 20_000 } })
  await address({ form: { type: 'integer', minimum: 0 } })
  await app.register(mcp)
  const base = await app.listen({ port: 0, host: '127.0.0.1' })
  return { app, base, seen }
}

type Fault =
  | 'none' // strict, forwards each call to the address, one refusal
  | 'last-wins' // parses with JSON.parse: the last of duplicated members wins
  | 'varied' // says in each refusal why
  | 'errors' // refuses with one JSON-RPC error, always the same
  | 'reshapes' // re-serializes the act's answer
  | 'no-text' | 'prose' | 'structured' // an act's result without text, with text that is not JSON, with other structuredContent
  | 'loosened' // lists the form without maxLength
  | 'unwrapped' // lists a form whose root is not an object as it is
  | 'no-meta' // no _meta: found by name
  | 'paged' // tools/list in two pages
  | 'sse' // answers as an event stream, a notification first
  | 'lenient' // acts without validating (strict parse still)
  | 'accepts-all' // acts on anything
  | 'stricter' // refuses every call
  // initialize and tools/list answered otherwise: the tool cannot be found
  | 'init-text' | 'init-cut' | 'init-empty-sse' | 'init-dup' | 'init-huge' | 'init-not-rpc' | 'init-id' | 'init-error' | 'init-201' | 'init-no-version'
  | 'list-none' | 'list-error' | 'list-empty' | 'list-many'

interface Fake {
  readonly fault: Fault
  /** The address the calls go to, and its path and form as the bridge lists them. */
  readonly target: string
  readonly path: string
  readonly form: Record<string, unknown>
}

const REFUSED = JSON.parse(REFUSAL) as unknown

/** A small bridge of its own in front of an address: a call is parsed, then posted to the address re-serialized. */
async function fakeBridge (fake: Fake): Promise<{ app: FastifyInstance, url: string, base: string }> {
  const { fault, form } = fake
  const app = Fastify()
  app.removeAllContentTypeParsers()
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: 1 << 24 }, (_request, body, done) => { done(null, body) })
  // an address that does not answer: its tool is listed all the same
  app.get('/gone', (_request, reply) => reply.code(500).send())
  const wrapped = form['type'] !== 'object' && fault !== 'unwrapped'
  const name = nameOf(fake.path)
  const send = (reply: FastifyReply, id: unknown, payload: object, type = 'application/json'): FastifyReply => {
    const message = { jsonrpc: '2.0', id, ...payload }
    if (fault !== 'sse') return reply.type(type).send(JSON.stringify(message))
    const lines = JSON.stringify(message, null, 1).split('\n').map((line, i) => i === 1 ? `data:${line}\ndata` : `data: ${line}`)
    return reply.type('text/event-stream').send(`: hello\n\nevent: message\ndata: {"jsonrpc":"2.0","method":"notifications/message","params":{}}\n\n${lines.join('\n')}\n\n`)
  }
  app.post('/mcp', async (request, reply) => {
    const bytes = request.body as Buffer
    let strict = true
    let message: Record<string, unknown>
    try {
      message = parse(bytes, { maxDepth: Infinity }) as Record<string, unknown>
    } catch {
      strict = fault === 'last-wins'
      message = JSON.parse(bytes.toString('utf8')) as Record<string, unknown>
    }
    const { id, method } = message
    const params = (message['params'] ?? {}) as Record<string, unknown>
    if (method === 'notifications/initialized') return reply.code(202).send()
    if (method === 'initialize') return initialize(fault, reply, send, id, params)
    const tool = { name, description: 'a fake', inputSchema: fault === 'loosened' ? loosened(form) : wrapped ? wrap(form) : form, ...(fault === 'no-meta' ? {} : { _meta: { 'fastify-gpt/address': fake.path } }) }
    if (method === 'tools/list') return list(fault, reply, send, id, params, tool)
    const refuse = (why: string): FastifyReply => fault === 'varied'
      ? send(reply, id, { result: { content: [{ type: 'text', text: `Refused: ${why}` }], isError: true } })
      : fault === 'errors' ? send(reply, id, { error: { code: -32602, message: 'Invalid arguments' } }) : send(reply, id, { result: REFUSED })
    const args = params['arguments'] as Record<string, unknown>
    const body = wrapped ? args['value'] : args
    if (fault === 'accepts-all') return send(reply, id, { result: actResult(fault, JSON.stringify(body)) })
    if (!strict) return refuse('not strict JSON')
    if (fault === 'stricter') return refuse('no')
    if (fault === 'lenient') return send(reply, id, { result: actResult(fault, JSON.stringify(body)) })
    const answer = await fetch(fake.target, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
    const text = await answer.text()
    return answer.status === 200 ? send(reply, id, { result: actResult(fault, text) }) : refuse(`the address answered ${answer.status}`)
  })
  const base = await app.listen({ port: 0, host: '127.0.0.1' })
  return { app, url: `${base}/mcp`, base }
}

type Sender = (reply: FastifyReply, id: unknown, payload: object, type?: string) => FastifyReply

function initialize (fault: Fault, reply: FastifyReply, send: Sender, id: unknown, params: Record<string, unknown>): FastifyReply {
  const ok = { result: { protocolVersion: params['protocolVersion'], capabilities: { tools: {} }, serverInfo: { name: 'fake', version: '0' } } }
  switch (fault) {
    case 'init-text': return reply.code(404).type('text/plain').send('no MCP here')
    case 'init-cut': return send(reply, id, { result: { protocolVersion: '2025-06-18', pad: 'x'.repeat(200_000) } })
    case 'init-empty-sse': return reply.type('text/event-stream').send(': nothing to say\n\n')
    case 'init-dup': return reply.type('application/json').send(`{"jsonrpc":"2.0","id":${String(id)},"id":${String(id)},"result":{}}`)
    case 'init-huge': return send(reply, id, { result: { protocolVersion: '2025-06-18', pad: new Array(1_100_000).fill(0) } })
    case 'init-not-rpc': return send(reply, id, { hello: 'world' })
    case 'init-id': return send(reply, 99, ok)
    case 'init-error': return send(reply, id, { error: { code: -32600, message: 'nope' } })
    case 'init-201': return send(reply.code(201), id, ok)
    case 'init-no-version': return send(reply, id, { result: {} })
    default: return send(reply, id, ok)
  }
}

function list (fault: Fault, reply: FastifyReply, send: Sender, id: unknown, params: Record<string, unknown>, tool: object): FastifyReply {
  const others = (n: number): object[] => Array.from({ length: n }, (_, i) => ({ name: `other_${i}`, inputSchema: { type: 'object' } }))
  switch (fault) {
    case 'list-none': return send(reply, id, { result: {} })
    case 'list-error': return send(reply, id, { error: { code: -32601, message: 'Method not found' } })
    case 'list-empty': return send(reply, id, { result: { tools: [] } })
    case 'list-many': return send(reply, id, { result: { tools: [...others(12), 'not a tool'] } })
    case 'paged': return send(reply, id, { result: params['cursor'] === 'two' ? { tools: [tool] } : { tools: others(2), nextCursor: 'two' } })
    default: return send(reply, id, { result: { tools: [tool] } })
  }
}

/** An act's result as the fault has it: its JSON as text, and as structuredContent when an object. */
function actResult (fault: Fault, text: string): object {
  if (fault === 'no-text') return { content: [] }
  if (fault === 'prose') return { content: [{ type: 'text', text: 'done' }] }
  if (fault === 'structured') return { content: [{ type: 'text', text }], structuredContent: { other: true } }
  const shown = fault === 'reshapes' ? JSON.stringify(JSON.parse(text), null, 1) : text
  return { content: [{ type: 'text', text: shown }], ...(text.startsWith('{') ? { structuredContent: JSON.parse(text) } : {}) }
}

const wrap = (form: object): object => ({ type: 'object', properties: { value: form }, required: ['value'], additionalProperties: false })
const loosened = (form: Record<string, unknown>): object => JSON.parse(JSON.stringify(form).replace(/"maxLength":\d+,?/g, '').replace(/,}/g, '}'))

describe('checkMcp: a fastify-gpt host and its own bridge agree', () => {
  let host: Awaited<ReturnType<typeof realHost>>
  before(async () => { host = await realHost() })
  after(() => host.app.close())

  it('an address that echoes its body: every MCP check passes, each body sent both ways', async () => {
    const before = host.seen.length
    const report = await checkMcp(`${host.base}/notes`, '/mcp', { acts: 3, ...judged })
    assert.deepEqual(failed(report), [])
    for (const id of MCP_IDS) assert.equal(outcome(report, id), 'pass', id)
    const { mcp: bridge } = report
    assert.equal(bridge?.url, `${host.base}/mcp`)
    assert.equal(bridge?.protocolVersion, '2025-06-18')
    assert.deepEqual(bridge?.tool, { name: 'notes', by: 'address', wrapped: false })
    assert.equal(bridge?.disagreed, 0)
    assert.equal(bridge?.sent.admitted, 3)
    // a near-miss for each of type, required, additionalProperties, minLength, maxLength, minimum, maximum; duplicates; bad UTF-8
    assert.ok((bridge?.sent.refused ?? 0) >= 8, `${bridge?.sent.refused} refused`)
    assert.equal(bridge?.refusal, REFUSAL)
    // the regular check's 3 acts, then 3 values each as a POST and as a call
    assert.equal(host.seen.length - before, 9)
    const text = formatReport(report)
    assert.match(text, /^§MCP the address as an MCP tool: tools\/call against POST \(--mcp\)$/m)
    assert.match(text, /^The MCP bridge http:\/\/127\.0\.0\.1:\d+\/mcp \(MCP 2025-06-18\): the tool "notes", found by _meta\["fastify-gpt\/address"\]; the body is the arguments$/m)
    assert.match(text, /^ {2}\d+ bodies sent as POST and as tools\/call \(\d+ s refuses, 3 it admits\): acted on and refused alike$/m)
    assert.ok(text.includes(`  a refused call: ${REFUSAL}\n`))
  })

  it('a form whose root is not an object: the wrapper, its $ref moved into value and its $schema up', async () => {
    const report = await checkMcp(`${host.base}/tags`, `${host.base}/mcp`, { acts: 2, ...judged })
    assert.deepEqual(failed(report), [])
    for (const id of MCP_IDS) assert.equal(outcome(report, id), 'pass', id)
    assert.deepEqual(report.mcp?.tool, { name: 'tags', by: 'address', wrapped: true })
    assert.match(formatReport(report), /the body goes in arguments\.value/)
  })

  it('an act that answers otherwise than with its body: both acted on, the answers not compared', async () => {
    const report = await checkMcp(`${host.base}/count`, '/mcp', { acts: 2, ...judged })
    assert.deepEqual(failed(report), [])
    assert.equal(outcome(report, 'MCP-answer'), 'pass')
  })

  it('the root address is the tool root; through inject too', async () => {
    const report = await checkMcp(`${host.base}/`, '/mcp', { acts: 1, ...judged })
    assert.deepEqual(failed(report), [])
    assert.equal(report.mcp?.tool?.name, 'root')
    const injected = await checkMcp(host.app, '/mcp', { path: '/notes', ...judged })
    assert.deepEqual(failed(injected), [])
    assert.equal(injected.mcp?.url, 'inject /mcp')
    assert.equal(outcome(injected, 'MCP-refused'), 'pass')
  })

  it('without acts only refusals go both ways: the address acts on nothing', async () => {
    const before = host.seen.length
    const report = await checkMcp(`${host.base}/notes`, '/mcp', judged)
    assert.equal(host.seen.length, before)
    assert.equal(result(report, 'MCP-admitted')?.detail, 'sends acts: run with acts (--acts N)')
    assert.equal(outcome(report, 'MCP-answer'), 'skip')
    assert.equal(outcome(report, 'MCP-uniform'), 'pass')
    assert.equal(report.mcp?.sent.admitted, 0)
  })

  it('a form no value of which can be built: the bodies are skipped, saying why', async () => {
    const report = await checkMcp(`${host.base}/long`, '/mcp', { acts: 1, ...judged })
    assert.deepEqual(mcpFailed(report), [])
    assert.match(result(report, 'MCP-refused')?.detail ?? '', /^no value that s admits could be generated/)
    assert.equal(result(report, 'MCP-admitted')?.detail, 'no value that s admits could be generated')
    assert.equal(result(report, 'MCP-uniform')?.detail, 'no call was refused')
    assert.equal(outcome(report, 'MCP-input-schema'), 'pass')
  })

  it('the request budget spent before the bodies: they are skipped, not failed', async () => {
    const whole = await checkMcp(`${host.base}/notes`, '/mcp', { acts: 1, ...judged })
    const { refused, admitted } = whole.mcp?.sent ?? { refused: 0, admitted: 0 }
    const report = await checkMcp(`${host.base}/notes`, '/mcp', { acts: 1, maxRequests: whole.requests - 2 * (refused + admitted), ...judged })
    assert.deepEqual(failed(report), [])
    assert.match(result(report, 'MCP-refused')?.detail ?? '', /the request budget \(\d+\) is spent/)
    assert.match(result(report, 'MCP-admitted')?.detail ?? '', /the request budget \(\d+\) is spent/)
  })

  it('no tool for the address: one reason, nothing else checked, no act sent', async () => {
    const before = host.seen.length
    const report = await checkMcp(`${host.base}/nowhere`, '/mcp', { acts: 3 })
    assert.equal(host.seen.length, before)
    assert.deepEqual(report.results.map((r) => `${r.id} ${r.outcome}`), ['MCP-tool skip'])
    assert.equal(report.requests, 3) // initialize, notifications/initialized, tools/list
    assert.equal(report.unfinished, `the MCP bridge at ${host.base}/mcp lists no tool for /nowhere: none has _meta["fastify-gpt/address"] "/nowhere" or the name "nowhere" (it lists "notes", "tags", "count", "long", "root")`)
    assert.deepEqual(report.mcp, { url: `${host.base}/mcp`, sent: { refused: 0, admitted: 0 }, disagreed: 0 })
    assert.match(formatReport(report), /The MCP bridge http:\/\/127\.0\.0\.1:\d+\/mcp: no tool found for the address/)
  })
})

describe('checkMcp: a bridge written to break one thing fails exactly that check', () => {
  let host: Awaited<ReturnType<typeof realHost>>
  before(async () => { host = await realHost() })
  after(() => host.app.close())

  const against = async (fault: Fault, acts: number, path = '/notes', form: Record<string, unknown> = noteForm): Promise<Report> => {
    const fake = await fakeBridge({ fault, target: `${host.base}${path}`, path, form })
    try {
      return await checkMcp(`${host.base}${path}`, fake.url, { acts, ...judged })
    } finally {
      await fake.app.close()
    }
  }

  const cases: [Fault, string[]][] = [
    ['none', []],
    ['last-wins', ['MCP-refused']],
    ['varied', ['MCP-uniform']],
    ['errors', []],
    ['reshapes', ['MCP-answer']],
    ['no-text', ['MCP-answer']],
    ['prose', ['MCP-answer']],
    ['structured', ['MCP-answer']],
    ['loosened', ['MCP-input-schema']],
    ['no-meta', []],
    ['paged', []],
    ['sse', []],
    ['lenient', ['MCP-refused']],
    ['accepts-all', ['MCP-refused']],
    ['stricter', ['MCP-admitted']]
  ]
  for (const [fault, expected] of cases) {
    it(`${fault}: ${expected.join(', ') || 'nothing fails'}`, async () => {
      const report = await against(fault, 2)
      // the address itself keeps the draft: only the bridge's checks can fail
      assert.deepEqual(failed(report), expected, JSON.stringify(report.results.filter((r) => r.outcome === 'fail'), null, 1))
      assert.equal(outcome(report, 'MCP-tool'), 'pass')
    })
  }

  it('what the failures say', async () => {
    const lastWins = await against('last-wins', 0)
    assert.match(result(lastWins, 'MCP-refused')?.detail ?? '', /^tools\/call acted on a body s refuses, where POST refused it: \{"note":"g","note":"g"\} \(POST answered 204, tools\/call acted on it\)/)
    // the member written twice, and again escaped; the invalid UTF-8, read as U+FFFD (no value of this form has a nested object)
    assert.equal(lastWins.mcp?.disagreed, 3)
    assert.match(formatReport(lastWins), /Failed:\n {2}fail {2}MUST {4}MCP-refused: .*\n {8}tools\/call acted on .*\n {8}sent: POST content-type: application\/json {2}\{"note":"g","note":"g"\}\n {8}got: {2}204 .*\n {8}sent: POST content-type: application\/json, accept: application\/json, text\/event-stream, mcp-protocol-version: 2025-06-18 {2}\{"jsonrpc":"2\.0","id":\d+,"method":"tools\/call","params":\{"name":"notes","arguments":\{"note":"g","note":"g"\}\}\}\n {8}got: {2}200 /)
    assert.match(formatReport(lastWins), /3 acted on by one and refused by the other/)

    const varied = await against('varied', 0)
    assert.equal(varied.ok, true) // a SHOULD: only --strict fails the run for it
    assert.match(result(varied, 'MCP-uniform')?.detail ?? '', /^two refused calls are answered otherwise: 200 \{"content":\[\{"type":"text","text":"Refused: the address answered 204"\}\],"isError":true\} and 200 \{"content":\[\{"type":"text","text":"Refused: not strict JSON"\}\],"isError":true\}$/)

    const errors = await against('errors', 0)
    assert.equal(errors.mcp?.refusal, 'JSON-RPC error -32602: Invalid arguments')

    const reshapes = await against('reshapes', 1)
    assert.match(result(reshapes, 'MCP-answer')?.detail ?? '', /^POST echoed the body, \{"note":"g"\}, but the call's text is \{\\n "note": "g"\\n\} \(the act of \{"note":"g"\}\)$/)
    assert.match(result(await against('no-text', 1), 'MCP-answer')?.detail ?? '', /^the result has no text content/)
    assert.match(result(await against('prose', 1), 'MCP-answer')?.detail ?? '', /^its text content is not JSON/)
    assert.match(result(await against('structured', 1), 'MCP-answer')?.detail ?? '', /^its structuredContent is not the JSON of its text content/)

    assert.equal(result(await against('loosened', 0), 'MCP-input-schema')?.detail, 'the inputSchema is not s: it differs at /properties/note/maxLength')
    assert.deepEqual((await against('no-meta', 0)).mcp?.tool, { name: 'notes', by: 'name', wrapped: false })
    assert.match(result(await against('lenient', 0), 'MCP-refused')?.detail ?? '', /^tools\/call acted on a body s refuses, where POST refused it: .* \(\d+ such bodies\)$/)
    assert.equal(result(await against('accepts-all', 0), 'MCP-uniform')?.detail, 'no call was refused')
    const stricter = await against('stricter', 2)
    assert.match(result(stricter, 'MCP-admitted')?.detail ?? '', /^tools\/call refused a value s admits that POST acted on: \{"note":"g"\} \(POST answered 200, tools\/call refused it \(isError\)\) \(2 such values\)$/)
    assert.equal(result(stricter, 'MCP-answer')?.detail, 'no value was acted on both ways: run with acts (--acts N)')
  })

  it('a form whose root is not an object, listed unwrapped or wrapped naively: MCP-input-schema fails, the calls still agree', async () => {
    const report = await against('unwrapped', 1, '/tags', tagsForm)
    assert.deepEqual(failed(report), ['MCP-input-schema'])
    assert.match(result(report, 'MCP-input-schema')?.detail ?? '', /^the inputSchema is s itself, whose root is not "type": "object"/)
    assert.deepEqual(report.mcp?.tool, { name: 'tags', by: 'address', wrapped: false })
    // s wrapped as it is: its $ref (#/$defs/tag) now names what the wrapper does not have
    const naive = await against('none', 1, '/tags', tagsForm)
    assert.deepEqual(failed(naive), ['MCP-input-schema'])
    assert.match(result(naive, 'MCP-input-schema')?.detail ?? '', /^the inputSchema is neither s nor s wrapped as the one member value: it differs from the wrapper at \/properties\/value\/(\$schema|items\/\$ref)$/)
    assert.equal(outcome(naive, 'MCP-refused'), 'pass')
  })

  // an address at fault (test/helpers/faulty.ts) behind a fake bridge: who is at fault is said
  const faulted: [Parameters<typeof faultyHost>[0], Fault, number, string, RegExp][] = [
    ['duplicates', 'none', 0, 'MCP-refused', /^POST acted on a body s refuses, where tools\/call refused it: \{"note":"g","note":"g"/],
    ['duplicates', 'last-wins', 0, 'MCP-refused', /^tools\/call acted on a body s refuses, as POST did: \{"note":"g","note":"g"/],
    ['stricter', 'none', 2, 'MCP-admitted', /^neither POST nor tools\/call acted on a value s admits: .* \(POST answered 204, tools\/call refused it \(isError\)\)/],
    ['stricter', 'lenient', 2, 'MCP-admitted', /^POST refused a value s admits that tools\/call acted on: /]
  ]
  for (const [addressFault, fault, acts, id, detail] of faulted) {
    it(`an address that ${addressFault === 'duplicates' ? 'takes duplicated members' : 'is stricter than its form'} behind the fake bridge ${fault}: ${id}`, async () => {
      const { app } = await faultyHost(addressFault)
      const target = await app.listen({ port: 0, host: '127.0.0.1' })
      const fake = await fakeBridge({ fault, target, path: '/', form: faultyForm })
      try {
        const report = await checkMcp(target, fake.url, { acts, ...judged })
        assert.ok(failed(report).includes(addressFault === 'duplicates' ? '5.2-duplicate' : '5.2-admitted'))
        // a bridge that acts without validating acts on the near-misses too
        assert.deepEqual(mcpFailed(report), fault === 'lenient' ? [id, 'MCP-refused'] : [id])
        assert.match(result(report, id)?.detail ?? '', detail)
      } finally {
        await Promise.all([fake.app.close(), app.close()])
      }
    })
  }

  it('an address that does not answer: its tool is found, and the checks that need s say why not', async () => {
    const fake = await fakeBridge({ fault: 'none', target: '', path: '/gone', form: noteForm })
    try {
      const report = await checkMcp(`${fake.base}/gone`, fake.url)
      assert.equal(outcome(report, 'MCP-tool'), 'pass')
      for (const id of MCP_IDS.slice(1)) assert.equal(result(report, id)?.detail, 'a plain GET was answered 500, not 200 (3.1): no arrival to check', id)
      assert.deepEqual(report.mcp?.tool, { name: 'gone', by: 'address' })
      assert.match(formatReport(report), /the tool "gone", found by _meta\["fastify-gpt\/address"\]\n/)
    } finally {
      await fake.app.close()
    }
  })

  const unfound: [Fault, RegExp][] = [
    ['init-text', /did not answer initialize: answered 404 text\/plain/],
    ['init-cut', /did not answer initialize: its answer did not come in full \(announced \d+ bytes, over the 100000 the checker reads\)/],
    ['init-empty-sse', /did not answer initialize: answered 200 with an empty event stream/],
    ['init-dup', /did not answer initialize: answered 200, but it is not strictly valid JSON \(JSON body rejected: duplicate\)/],
    ['init-huge', /did not answer initialize: answered 200, but it holds more than 1000000 JSON values/],
    ['init-not-rpc', /did not answer initialize: answered 200 with what is not a JSON-RPC response/],
    ['init-id', /did not answer initialize: answered 200 with the id 99, not 1/],
    ['init-error', /did not answer initialize: JSON-RPC error -32600: nope/],
    ['init-201', /did not answer initialize: answered 201$/],
    ['init-no-version', /did not answer initialize: its result has no protocolVersion/],
    ['list-none', /did not answer tools\/list with tools: its result has no tools array/],
    ['list-error', /did not answer tools\/list with tools: JSON-RPC error -32601: Method not found/],
    ['list-empty', /lists no tool for \/notes: none has _meta\["fastify-gpt\/address"\] "\/notes" or the name "notes" \(it lists none\)$/],
    ['list-many', /\(it lists "other_0", "other_1", .*"other_9" and 2 more\)$/]
  ]
  for (const [fault, why] of unfound) {
    it(`the tool cannot be found (${fault}): unfinished, saying why`, async () => {
      const fake = await fakeBridge({ fault, target: `${host.base}/notes`, path: '/notes', form: noteForm })
      try {
        const report = await checkMcp(`${host.base}/notes`, fake.url, { acts: 2, ...(fault === 'init-cut' ? { maxBytes: 100_000 } : {}) })
        assert.match(report.unfinished ?? '', why)
        assert.ok(report.unfinished?.startsWith(`the MCP bridge at ${fake.url} `))
        assert.deepEqual(report.results.map((r) => r.id), ['MCP-tool'])
      } finally {
        await fake.app.close()
      }
    })
  }

  it('a bridge that cannot be reached: unfinished, saying so', async () => {
    const report = await checkMcp(`${host.base}/notes`, `http://127.0.0.1:${await freePort()}/mcp`)
    assert.match(report.unfinished ?? '', /did not answer initialize: could not connect: .*ECONNREFUSED/)
  })
})

describe('the parts of the MCP check', () => {
  it('nameOf: the path\'s segments joined by _, / is root', () => {
    assert.equal(nameOf('/'), 'root')
    assert.equal(nameOf('/orders/new'), 'orders_new')
    assert.equal(nameOf('/a/b/'), 'a_b')
    assert.equal(nameOf('/caf%C3%A9 x'), 'caf_C3_A9_x')
  })

  it('member: the bytes of a member as written, or none', () => {
    const text = new TextEncoder().encode('{ "id" : 1 , "\\u0072esult" :  {"a":[1,{"b":"}"}]}  , "z":2 }')
    assert.equal(new TextDecoder().decode(member(text, 'result')), '{"a":[1,{"b":"}"}]}')
    assert.equal(new TextDecoder().decode(member(text, 'z')), '2')
    assert.equal(member(text, 'nothing'), undefined)
    assert.equal(new TextDecoder().decode(member(new TextEncoder().encode('{"result":"a\\"b"}'), 'result')), '"a\\"b"')
  })

  it('differs: the same JSON, members in any order; where not, a pointer', () => {
    assert.equal(differs({ a: [1, { b: null }], c: 'x' }, { c: 'x', a: [1, { b: null }] }, false), undefined)
    assert.equal(differs({ a: [1, 2] }, { a: [1] }, false), '/a')
    assert.equal(differs({ a: [1, 2] }, { a: { 0: 1 } }, false), '/a')
    assert.equal(differs({ a: 1, 'b/c': 2 }, { a: 1 }, false), '/b~1c')
    assert.equal(differs({ a: 1 }, { a: 1, b: 2 }, false), '/b')
    assert.equal(differs('x', { a: 1 }, false), '')
    // moved: root $refs point into value; not inside a subschema with an $id; not in data
    const form = { $ref: '#/$defs/a', $defs: { a: { prefixItems: [{ $ref: '#' }] }, b: { $id: 'b', $ref: '#/x' } }, const: { $ref: '#/y' } }
    const moved = { $ref: '#/properties/value/$defs/a', $defs: { a: { prefixItems: [{ $ref: '#/properties/value' }] }, b: { $id: 'b', $ref: '#/x' } }, const: { $ref: '#/y' } }
    assert.equal(differs(moved, form, true), undefined)
    assert.equal(differs(form, form, true), '/$ref')
    assert.equal(differs({ ...moved, $defs: { ...moved.$defs, b: { $id: 'b', $ref: '#/properties/value/x' } } }, form, true), '/$defs/b/$ref')
    // a pointer is the same however it is percent-encoded; a ref that is not one, or not a string, is not
    assert.equal(differs({ $ref: '#/properties/value/$defs/a' }, { $ref: '#/%24defs/a' }, true), undefined)
    assert.equal(differs({ $ref: '#/properties/value/%' }, { $ref: '#/%' }, true), undefined)
    assert.equal(differs({ $ref: '#/properties/value/%25' }, { $ref: '#/%' }, true), '/$ref')
    assert.equal(differs({ $ref: 1 }, { $ref: '#' }, true), '/$ref')
    assert.equal(differs({ $ref: 'other#' }, { $ref: '#' }, true), '/$ref')
  })

  it('inputSchemaOf: s, or s wrapped; else where it differs', () => {
    const object = { type: 'object', properties: { a: { type: 'string' } } }
    assert.deepEqual(inputSchemaOf(object, object), { wrapped: false })
    assert.deepEqual(inputSchemaOf(wrap(object), object), { wrapped: true })
    assert.deepEqual(inputSchemaOf({ ...object, properties: {} }, object), { wrapped: false, why: 'the inputSchema is not s: it differs at /properties/a' })
    const text = { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'string', maxLength: 3 }
    const { $schema, ...rest } = text
    assert.deepEqual(inputSchemaOf({ $schema, ...wrap(rest) }, text), { wrapped: true })
    assert.deepEqual(inputSchemaOf(wrap(text), text), { wrapped: true })
    const own = { $id: 'https://example.com/s', $defs: { a: { type: 'string' } }, $ref: '#/$defs/a' }
    assert.deepEqual(inputSchemaOf(wrap(own), own), { wrapped: true })
    const wrong = (input: unknown): string | undefined => inputSchemaOf(input, text).why?.replace(/.*at /, '')
    assert.equal(wrong('x'), 'the root')
    assert.equal(wrong({ ...wrap(text), description: 'd' }), '/description')
    assert.equal(wrong({ ...wrap(text), $schema: 'http://json-schema.org/draft-07/schema#' }), '/$schema')
    assert.equal(wrong({ ...wrap(text), type: ['object'] }), '/type')
    assert.equal(wrong({ ...wrap(text), additionalProperties: true }), '/additionalProperties')
    assert.equal(wrong({ ...wrap(text), required: [] }), '/required')
    assert.equal(wrong({ ...wrap(text), properties: { value: text, other: true } }), '/properties')
    assert.equal(wrong(wrap({ ...text, maxLength: 4 })), '/properties/value/maxLength')
    assert.match(inputSchemaOf(wrap({ type: 'integer' }), text).why ?? '', /^the inputSchema is neither s nor s wrapped as the one member value/)
  })
})
