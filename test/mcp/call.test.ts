// tools/call: an act through the same pipeline as POST. The act sees exactly the arguments' bytes
// as parsed; every refusal, whatever its cause, is one result byte for byte (draft §5.3) and the
// act never runs; explain names why; a stale entity tag, a failure and a timeout each their own.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { FastifyInstance } from 'fastify'
import gpt, { type GptAddress, type GptOptions } from '../../src/index.ts'
import { REFUSAL } from '../../src/mcp/index.ts'
import { FAILED, STALE, TIMED_OUT } from '../../src/mcp/call.ts'
import { bridged, callText, noteForm, raw, resultText, rpcText, type Bridged } from './bridge-host.ts'

interface Seen {
  readonly bodies: Map<string, unknown[]>
  readonly actors: Array<string | undefined>
}

/** The addresses of this file: each records what its act was given. */
async function addresses (app: FastifyInstance, seen: Seen, onGuarded: (address: GptAddress) => void): Promise<void> {
  const recording = (name: string, result: (body: unknown) => unknown = () => ({ ok: true })) => (body: unknown, request: { gptActor?: string | undefined }) => {
    const list = seen.bodies.get(name) ?? []
    list.push(body)
    seen.bodies.set(name, list)
    seen.actors.push(request.gptActor)
    return result(body)
  }
  const add = (prefix: string, options: Record<string, unknown>): unknown => app.register(gpt, { prefix, rateLimit: false, act: recording(prefix), ...options } as unknown as GptOptions)
  await add('/note', { form: noteForm, bodyLimit: 200 })
  await add('/open', { form: { type: 'object' }, bodyLimit: 200, maxDepth: 3, act: recording('/open', (body) => ({ got: body })) })
  await add('/word', { form: { type: 'string', maxLength: 10 }, act: recording('/word', (body) => body) })
  await add('/explained', { form: noteForm, explain: true })
  await add('/guarded', { form: noteForm, ifMatch: true, onAddress: onGuarded })
  await add('/unguarded', { form: noteForm })
  await add('/list', { form: { type: 'object' }, act: () => [1, 'two'] })
  await add('/nothing', { form: { type: 'object' }, act: () => undefined })
  await add('/later', { form: { type: 'object' }, act: async () => { await new Promise((resolve) => setTimeout(resolve, 5)); return { later: true } } })
  await add('/throws', { form: { type: 'object' }, act: () => { throw new Error('boom') } })
  await add('/throwsText', { form: { type: 'object' }, act: () => { throw 'not an Error' } }) // eslint-disable-line no-throw-literal
  await add('/rejects', { form: { type: 'object' }, act: () => Promise.reject(new Error('no')) })
  await add('/bigint', { form: { type: 'object' }, act: () => ({ n: 1n }) })
  await add('/self', { form: { type: 'object' }, act: (_body: unknown, _request: unknown, reply: { code: (n: number) => { send: (v: unknown) => unknown } }) => reply.code(201).send({ mine: true }) })
  await add('/statuses', { form: { type: 'object' }, act: (_body: unknown, _request: unknown, reply: { code: (n: number) => { header: (name: string, value: string) => unknown } }) => { reply.code(202).header('content-type', 'text/plain'); return { set: true } } })
  await add('/slowpoke', { form: { type: 'object' }, actTimeout: 50, act: () => new Promise(() => {}) })
}

let host: Bridged
let guarded: GptAddress
const seen: Seen = { bodies: new Map(), actors: [] }

before(async () => {
  host = await bridged((app) => addresses(app, seen, (address) => { guarded = address }))
})
after(async () => { await host.close() })

/** The raw answer to a tools/call of `name` with these arguments' bytes. */
const call = (name: string, args: string | undefined, meta?: Record<string, unknown>): ReturnType<typeof raw> => raw(host.port, { body: callText(name, args, meta) })

const textOf = (body: string): string => (JSON.parse(body) as { result: { content: Array<{ text: string }> } }).result.content[0]!.text

describe('tools/call, accepted', () => {
  it('gives the act exactly the value of the arguments\' bytes, and answers with its result as text and as structuredContent', async () => {
    const client = await host.connect()
    const result = await client.callTool({ name: 'note', arguments: { note: 'hello', stars: 5 } })
    assert.deepEqual(result, { content: [{ type: 'text', text: '{"ok":true}' }], structuredContent: { ok: true } })
    const before = seen.bodies.get('/open')?.length ?? 0
    // escapes, whitespace, a key order of the client's own: the act sees what they say
    const response = await call('open', ' { "b" : "\\u00e9\\ud83d\\ude00\\n" ,"a":[ 1 , 2.5e0, {"\\u0063":null} ] } ')
    assert.equal(response.status, 200)
    assert.equal(response.headers['content-type'], 'application/json; charset=utf-8')
    const expected = { b: 'é😀\n', a: [1, 2.5, { c: null }] }
    assert.deepEqual(seen.bodies.get('/open')!.slice(before), [expected])
    assert.deepEqual(Object.keys(seen.bodies.get('/open')!.at(-1) as object), ['b', 'a'])
    assert.equal(response.body, resultText(`{"content":[{"type":"text","text":${JSON.stringify(JSON.stringify({ got: expected }))}}],"structuredContent":${JSON.stringify({ got: expected })}}`))
  })

  it('takes no arguments (what callTool({ name }) sends) as {}, which a form may admit', async () => {
    const before = seen.bodies.get('/open')?.length ?? 0
    const client = await host.connect()
    assert.deepEqual(await client.callTool({ name: 'open' }), { content: [{ type: 'text', text: '{"got":{}}' }], structuredContent: { got: {} } })
    assert.deepEqual(seen.bodies.get('/open')!.slice(before), [{}])
    assert.equal((await call('word', undefined)).body, resultText(REFUSAL), 'a wrapped form has no body without "value"')
  })

  it('answers a result that is not an object with text alone', async () => {
    for (const [name, text] of [['list', '[1,"two"]'], ['nothing', 'null'], ['word', '"hi"']] as const) {
      const response = await call(name, name === 'word' ? '{"value":"hi"}' : '{}')
      assert.equal(response.body, resultText(`{"content":[{"type":"text","text":${JSON.stringify(text)}}]}`), name)
    }
    const client = await host.connect()
    assert.deepEqual(await client.callTool({ name: 'later', arguments: {} }), { content: [{ type: 'text', text: '{"later":true}' }], structuredContent: { later: true } }, 'an async act, awaited')
  })

  it('takes a wrapped form\'s body from "value", and gives the act that value alone', async () => {
    const before = seen.bodies.get('/word')?.length ?? 0
    const response = await call('word', '{ "value" : "a\\"b" }')
    assert.equal(textOf(response.body), '"a\\"b"')
    assert.deepEqual(seen.bodies.get('/word')!.slice(before), ['a"b'])
  })

  it('reads the arguments where they stand, whatever the envelope holds around them', async () => {
    const before = seen.bodies.get('/open')?.length ?? 0
    // members named like it before and after, in strings and in _meta
    const text = '{"jsonrpc":"2.0","id":"x","method":"tools/call","params":{"_meta":{"arguments":{"a":1},"x":"\\"arguments\\":{"},"name":"open","arguments":{"real":true},"argumentz":{"b":2}}}'
    const response = await raw(host.port, { body: text })
    assert.equal(JSON.parse(response.body).id, 'x')
    assert.deepEqual(seen.bodies.get('/open')!.slice(before), [{ real: true }])
  })
})

describe('tools/call, refused: one result for every cause, and the act never runs', () => {
  const pad = 'x'.repeat(300)
  const deep = (n: number): string => '{"a":'.repeat(n - 1) + '{}' + '}'.repeat(n - 1)
  // Each refused call beside one like it that is accepted, so the refusal is for that cause alone.
  const cases: Array<{ readonly what: string, readonly tool: string, readonly refused: string | undefined, readonly accepted: string, readonly envelope?: (args: string) => string }> = [
    { what: 'arguments over the body limit', tool: 'open', refused: `{"pad":"${pad}"}`, accepted: `{"pad":"${pad.slice(0, 150)}"}` },
    { what: 'a member twice inside the arguments', tool: 'note', refused: '{"note":"a","note":"a"}', accepted: '{"note":"a"}' },
    { what: 'a member twice, once escaped', tool: 'note', refused: '{"note":"a","\\u006eote":"a"}', accepted: '{"\\u006eote":"a"}' },
    { what: 'a member twice in the envelope', tool: 'note', refused: '{"note":"a"}', accepted: '{"note":"a"}', envelope: (args) => `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"note","name":"note","arguments":${args}}}` },
    { what: 'the id twice in the envelope', tool: 'note', refused: '{"note":"a"}', accepted: '{"note":"a"}', envelope: (args) => `{"jsonrpc":"2.0","id":1,"id":1,"method":"tools/call","params":{"name":"note","arguments":${args}}}` },
    { what: 'a lone surrogate in the arguments', tool: 'note', refused: '{"note":"\\ud800"}', accepted: '{"note":"\\ud83d\\ude00"}' },
    { what: 'a lone surrogate in the envelope', tool: 'note', refused: '{"note":"a"}', accepted: '{"note":"a"}', envelope: (args) => `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"note","arguments":${args},"_meta":{"x":"\\udc00"}}}` },
    { what: 'an integer past 2^53', tool: 'open', refused: '{"n":9007199254740993}', accepted: '{"n":9007199254740991}' },
    { what: 'depth over maxDepth', tool: 'open', refused: deep(4), accepted: deep(3) },
    { what: 'depth past what the bridge parses', tool: 'open', refused: deep(100), accepted: deep(3) },
    { what: 'a form failure', tool: 'note', refused: '{"note":""}', accepted: '{"note":"a"}' },
    { what: 'a member the form does not have', tool: 'note', refused: '{"note":"a","x":1}', accepted: '{"note":"a"}' },
    { what: 'no arguments, where {} fails the form', tool: 'note', refused: undefined, accepted: '{"note":"a"}' },
    { what: 'arguments that are not an object', tool: 'note', refused: '[{"note":"a"}]', accepted: '{"note":"a"}' },
    { what: 'null arguments', tool: 'note', refused: 'null', accepted: '{"note":"a"}' },
    { what: 'a wrapped form\'s arguments with another member', tool: 'word', refused: '{"value":"hi","extra":1}', accepted: '{"value":"hi"}' },
    { what: 'a wrapped form\'s arguments without value', tool: 'word', refused: '{}', accepted: '{"value":"hi"}' },
    { what: 'a wrapped form\'s body alone, not in value', tool: 'word', refused: '"hi"', accepted: '{"value":"hi"}' },
    { what: 'a wrapped form\'s arguments as an array', tool: 'word', refused: '["hi"]', accepted: '{"value":"hi"}' },
    { what: 'a wrapped form\'s value failing the form', tool: 'word', refused: '{"value":"much too long"}', accepted: '{"value":"hi"}' }
  ]

  for (const { what, tool, refused, accepted, envelope } of cases) {
    it(what, async () => {
      const path = `/${tool}`
      const count = (): number => seen.bodies.get(path)?.length ?? 0
      const start = count()
      const bad = await raw(host.port, { body: envelope?.(refused!) ?? callText(tool, refused) })
      assert.equal(bad.status, 200)
      assert.equal(bad.headers['content-type'], 'application/json; charset=utf-8')
      assert.equal(bad.body, resultText(REFUSAL))
      assert.equal(count(), start, 'the act did not run')
      const good = await raw(host.port, { body: callText(tool, accepted) })
      assert.notEqual(good.body, resultText(REFUSAL), 'the call beside it is accepted')
      assert.equal(count(), start + 1)
    })
  }

  it('logs why at debug, for the host', async () => {
    const start = host.logs.length
    await call('note', '{"note":"a","note":"b"}')
    const line = host.logs.slice(start).find((entry) => entry['msg'] === 'gpt: act rejected')
    assert.match(String(line?.['reason']), /member "note" in the object at \/params\/arguments/, 'told: a second pass says where, in the call as sent')
  })

  it('is the same where the log says less (not debug): the reason is the parser\'s message alone', async () => {
    const quiet = await bridged(async (app) => {
      await app.register(gpt, { prefix: '/note', form: noteForm, rateLimit: false, act: () => null })
    }, {}, {}, 'info')
    try {
      for (const body of [callText('note', '{"note":"a","note":"a"}'), '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"note","name":"note","arguments":{}}}']) {
        assert.equal((await raw(quiet.port, { body })).body, resultText(REFUSAL))
      }
      assert.ok(quiet.logs.length > 0 && quiet.logs.every((line) => (line['level'] as number) >= 30), 'nothing at debug')
    } finally {
      await quiet.close()
    }
  })

  it('is REFUSAL itself: an error result naming the inputSchema, nothing of the cause', () => {
    assert.deepEqual(JSON.parse(REFUSAL), { content: [{ type: 'text', text: 'Refused: these arguments are not an act this tool accepts. Read its inputSchema and call again.' }], isError: true })
  })
})

describe('tools/call with explain', () => {
  it('says why, as POST\'s 422 does, for each cause', async () => {
    const problems = new Map<string | undefined, RegExp>([
      ['{"note":""}', /body\/note must NOT have fewer than 1 characters/],
      ['{"note":"a","note":"b"}', /duplicate member "note" in the object at \/params\/arguments/],
      [undefined, /must have required property 'note'/], // no arguments are {}
      ['[1]', /the arguments of a tool are an object/]
    ])
    for (const [args, detail] of problems) {
      const response = await call('explained', args)
      const result = JSON.parse(response.body).result
      assert.equal(result.isError, true)
      const problem = JSON.parse(result.content[0].text)
      assert.equal(problem.status, 422)
      assert.equal(problem.title, 'The body was rejected')
      assert.match(problem.detail, detail)
    }
    const failed = JSON.parse(textOf((await call('explained', '{"note":"","x":1}')).body))
    assert.ok(Array.isArray(failed.errors) && failed.errors.length >= 2, 'every failed constraint')
    const envelope = await raw(host.port, { body: '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"explained","name":"explained","arguments":{}}}' })
    assert.match(JSON.parse(textOf(envelope.body)).detail, /member "name" in the object at \/params/, 'a duplicate in the envelope, where it stands')
  })

  it('lists at most 100 failed constraints, and how many more', async () => {
    const wide = await bridged(async (app) => {
      const properties = Object.fromEntries(Array.from({ length: 150 }, (_, i) => [`p${i}`, { type: 'integer' }]))
      await app.register(gpt, { prefix: '/wide', form: { type: 'object', properties }, explain: true, rateLimit: false, act: () => null })
    })
    try {
      const args = JSON.stringify(Object.fromEntries(Array.from({ length: 150 }, (_, i) => [`p${i}`, 'x'])))
      const problem = JSON.parse(textOf((await raw(wide.port, { body: callText('wide', args) })).body))
      assert.equal(problem.errors.length, 100)
      assert.equal(problem.omitted, 50)
    } finally {
      await wide.close()
    }
  })
})

describe('tools/call naming the edition it read (_meta["fastify-gpt/if-match"])', () => {
  it('with ifMatch: acts on the current edition, refuses a stale one, and takes a call that names none', async () => {
    const client = await host.connect()
    const etagOf = async (): Promise<string> => ((await client.listTools()).tools.find((tool) => tool.name === 'guarded')!._meta as Record<string, string>)['fastify-gpt/etag']!
    const first = await etagOf()
    assert.equal(first, (await fetch(`${host.origin}/guarded`)).headers.get('etag'))
    const named = (etag: string): ReturnType<typeof call> => call('guarded', '{"note":"a"}', { 'fastify-gpt/if-match': etag })
    assert.equal(textOf((await named(first)).body), '{"ok":true}')
    guarded.update({ prompt: 'Changed.' })
    const second = await etagOf()
    assert.notEqual(second, first)
    const start = seen.bodies.get('/guarded')!.length
    const stale = await named(first)
    assert.equal(stale.body, resultText(STALE))
    assert.equal(seen.bodies.get('/guarded')!.length, start, 'not run')
    assert.equal((await named('*')).body, resultText('{"content":[{"type":"text","text":"{\\"ok\\":true}"}],"structuredContent":{"ok":true}}'), '* matches any')
    assert.equal(textOf((await named(second)).body), '{"ok":true}')
    assert.equal(textOf((await call('guarded', '{"note":"a"}')).body), '{"ok":true}', 'no tag: no check, as POST without If-Match')
    assert.equal((await named(first + ', ' + second)).body, resultText('{"content":[{"type":"text","text":"{\\"ok\\":true}"}],"structuredContent":{"ok":true}}'), 'a list naming the current one')
    assert.equal((await call('guarded', '{"note":""}', { 'fastify-gpt/if-match': first })).body, resultText(STALE), 'stale first, as POST\'s 412 before validation')
    assert.equal((await call('unguarded', '{"note":"a"}', { 'fastify-gpt/if-match': '"nothing-like-it"' })).body, resultText('{"content":[{"type":"text","text":"{\\"ok\\":true}"}],"structuredContent":{"ok":true}}'), 'without ifMatch the tag is not looked at')
  })
})

describe('tools/call, the act failing', () => {
  it('answers "The act failed." as an error result and logs what it threw, however it failed, as its POST logs it', async () => {
    for (const [tool, how] of [['throws', 'it threw'], ['throwsText', 'it threw'], ['rejects', 'its promise rejected'], ['bigint', 'its result cannot be sent as JSON']] as const) {
      const start = host.logs.length
      const response = await call(tool, '{}')
      assert.equal(response.body, resultText(FAILED), tool)
      const lines = host.logs.slice(start).filter((entry) => entry['level'] === 50)
      assert.equal(lines.length, 1, `one error line: ${tool}`)
      const err = lines[0]?.['err'] as { code?: string, message?: string } | undefined
      assert.equal(err?.code, 'GPT_ERR_ACT_FAILED')
      const cause = tool === 'throwsText' ? '' : `: ${{ throws: 'boom', rejects: 'no', bigint: 'Do not know how to serialize a BigInt' }[tool]}`
      assert.equal(err?.message, `fastify-gpt address /${tool}: the act failed: ${how}${cause}`, 'with what it threw, where that is an Error')
      assert.equal((lines[0]?.['req'] as { url?: string } | undefined)?.url, `/${tool}`, 'logged by the POST the call entered by')
    }
    assert.deepEqual(JSON.parse(FAILED), { content: [{ type: 'text', text: 'The act failed.' }], isError: true })
  })

  it('an act that answered its POST by itself with anything but a 200: the call is told it failed, and nothing is answered twice', async () => {
    const start = host.logs.length
    const response = await call('self', '{}')
    assert.equal(response.status, 200)
    assert.equal(response.body, resultText(FAILED))
    assert.deepEqual(host.logs.slice(start).filter((entry) => (entry['level'] as number) >= 40).map((entry) => entry['msg']), [], 'no answer sent twice')
    const post = await raw(host.port, { path: '/self', body: '{}' })
    assert.deepEqual([post.status, JSON.parse(post.body)], [201, { mine: true }], 'its POST gets the act\'s own answer')
  })

  it('an act that set a status or a Content-Type on its reply, as a POST act may: the JSON-RPC answer is 200 JSON all the same', async () => {
    const response = await call('statuses', '{}')
    assert.equal(response.status, 200)
    assert.equal(response.headers['content-type'], 'application/json; charset=utf-8')
    assert.equal(textOf(response.body), '{"set":true}')
    const post = await raw(host.port, { path: '/statuses', body: '{}' })
    assert.deepEqual([post.status, post.headers['content-type']], [200, 'application/json; charset=utf-8'], 'as POST answers it')
    const client = await host.connect()
    assert.deepEqual(await client.callTool({ name: 'statuses', arguments: {} }, undefined, { timeout: 2000 }), { content: [{ type: 'text', text: '{"set":true}' }], structuredContent: { set: true } }, 'a 202 would leave the SDK client waiting')
  })

  it('past actTimeout: a timed-out result, logged as its POST is', async () => {
    const start = host.logs.length
    const begun = Date.now()
    const response = await call('slowpoke', '{}')
    assert.ok(Date.now() - begun >= 45)
    assert.equal(response.body, resultText(TIMED_OUT))
    assert.equal(JSON.parse(TIMED_OUT).content[0].text, 'The act did not finish in time.')
    const codes = host.logs.slice(start).map((entry) => (entry['err'] as { code?: string } | undefined)?.code)
    assert.equal(codes.includes('GPT_ERR_ACT_TIMEOUT'), true, 'logged as its POST logs it')
  })
})

describe('the actor (draft §6: records only)', () => {
  it('is the client\'s name/version from initialize, carried in the Mcp-Session-Id, or the GPT-Actor header when sent', async () => {
    const start = seen.actors.length
    const named = await host.connect({ name: 'claude-desktop', version: '0.9.1' })
    await named.callTool({ name: 'note', arguments: { note: 'a' } })
    const header = await host.connect({ name: 'ignored', version: '1' }, { 'gpt-actor': 'my-agent/2' })
    await header.callTool({ name: 'note', arguments: { note: 'a' } })
    assert.deepEqual(seen.actors.slice(start), ['claude-desktop/0.9.1', 'my-agent/2'])
    const logged = host.logs.filter((entry) => entry['msg'] === 'gpt: act').map((entry) => entry['gptActor'])
    assert.deepEqual(logged.slice(-2), ['claude-desktop/0.9.1', 'my-agent/2'], 'and logged with the act')
  })

  it('reads the session of any instance (no state kept): only what initialize wrote, else none', async () => {
    const session = async (clientInfo: unknown): Promise<string> => {
      const response = await raw(host.port, { body: rpcText('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo }) })
      const id = response.headers['mcp-session-id']
      assert.equal(typeof id, 'string')
      assert.match(id as string, /^[0-9a-f-]{36}\.[A-Za-z0-9_-]*$/, 'visible ASCII, as MCP asks')
      return id as string
    }
    const actorWith = async (headers: Record<string, string>): Promise<string | undefined> => {
      const start = seen.actors.length
      await raw(host.port, { body: callText('note', '{"note":"a"}'), headers })
      assert.equal(seen.actors.length, start + 1)
      return seen.actors.at(-1)
    }
    assert.equal(await actorWith({ 'mcp-session-id': await session({ name: 'bot', version: '' }) }), 'bot', 'no version: the name')
    assert.equal(await actorWith({ 'mcp-session-id': await session({ name: '', version: '1' }) }), undefined, 'no name: none')
    assert.equal(await actorWith({ 'mcp-session-id': await session(undefined) }), undefined, 'no clientInfo')
    assert.equal(await actorWith({ 'mcp-session-id': await session({ name: 7, version: 1 }) }), undefined, 'not strings')
    assert.equal(await actorWith({ 'mcp-session-id': await session({ name: 'n'.repeat(100), version: 'v'.repeat(100) }) }), `${'n'.repeat(64)}/${'v'.repeat(64)}`, 'each cut to 64')
    assert.equal(await actorWith({ 'mcp-session-id': await session({ name: 'é😀', version: '1' }) }), 'é😀/1')
    assert.equal(await actorWith({ 'mcp-session-id': await session({ name: '日'.repeat(64), version: '本'.repeat(64) }) }), `${'日'.repeat(64)}/${'本'.repeat(64)}`, 'names past ASCII, as long as they are kept')
    assert.equal(await actorWith({ 'mcp-session-id': await session({ name: '\u0001'.repeat(100), version: '\u001f'.repeat(100) }) }), `${'\u0001'.repeat(64)}/${'\u001f'.repeat(64)}`, 'the longest a kept name can be written (6 bytes a unit)')
    assert.equal(await actorWith({}), undefined, 'no session')
    for (const forged of ['garbage', 'x.', 'x.!!!', `x.${Buffer.from('{"a":1}').toString('base64url')}`, `x.${Buffer.from('["a"]').toString('base64url')}`, `x.${'A'.repeat(2000)}`]) {
      assert.equal(await actorWith({ 'mcp-session-id': forged }), undefined, forged.slice(0, 20))
    }
    assert.equal(await actorWith({ 'mcp-session-id': `x.${Buffer.from('["forged","9"]').toString('base64url')}` }), 'forged/9', 'a client says what it likes: records only')
  })
})
