// Addresses with background through the bridge: progress as notifications/progress on the call's
// own stream while the act runs in its request; an act that outlives `after` becomes a job, and the
// call's answer is a resource_link to the job address; a quick act answers as any act does.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { CallToolResultSchema, type Progress } from '@modelcontextprotocol/sdk/types.js'
import gpt, { type GptOptions } from '../../src/index.ts'
import { FAILED } from '../../src/mcp/call.ts'
import { bridged, callText, events, eventually, raw, resultText, type Bridged } from './bridge-host.ts'
import { gatesByName } from '../helpers/jobs.ts'

const form = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    steps: { type: 'integer', minimum: 0, maximum: 5 },
    say: {},
    fail: { type: 'boolean' },
    status: { type: 'integer' }
  },
  required: ['id'],
  additionalProperties: false
} as const

interface Body { id: string, steps?: number, say?: unknown, fail?: boolean, status?: number }

/** A gate per call id: the act waits on it after its steps, unless the id starts with "quick". */
const { gateOf, all: gates } = gatesByName()

let host: Bridged

before(async () => {
  host = await bridged(async (app) => {
    await app.register(gpt, {
      prefix: '/slow',
      form,
      rateLimit: false,
      background: { after: 150 },
      async * act ({ id, steps = 0, say, fail, status }: Body, _request: unknown, reply: { code: (n: number) => unknown }) {
        if (status !== undefined) reply.code(status)
        for (let step = 1; step <= steps; step++) yield say ?? { step, message: `step ${step}` }
        if (fail === true) throw new Error('it broke')
        if (!id.startsWith('quick')) await gateOf(id).promise
        return { id, steps }
      }
    } as unknown as GptOptions)
    await app.register(gpt, {
      prefix: '/one',
      form: { type: 'object' },
      rateLimit: false,
      background: { after: 1, maxJobs: 1 },
      act: async () => { await gateOf('one').promise; return 'one' }
    })
    await app.register(gpt, { prefix: '/plain', form: { type: 'object' }, rateLimit: false, background: {}, act: () => ({ plain: true }) })
  })
})
after(async () => {
  for (const g of gates.values()) g.open()
  await host.close()
})

interface Content { type: string, uri?: string, text?: string, name?: string, mimeType?: string, description?: string }

describe('background: an act that outlives `after`', () => {
  it('reports its progress to the SDK client\'s onprogress, then answers with a resource_link to its job address, whose GET works', async () => {
    const client = await host.connect()
    const progress: Progress[] = []
    const result = await client.callTool({ name: 'slow', arguments: { id: 'a', steps: 3 } }, CallToolResultSchema, { onprogress: (p) => { progress.push(p) } })
    assert.deepEqual(progress, [1, 2, 3].map((step) => ({ progress: step, message: JSON.stringify({ step, message: `step ${step}` }) })))
    const content = result.content as Content[]
    assert.equal(content[0]!.type, 'resource_link')
    const href = content[0]!.uri!
    assert.match(href, new RegExp(`^${host.origin}/slow/jobs/[^/]+$`))
    assert.equal(content[0]!.mimeType, 'application/json')
    assert.equal(content[0]!.name, 'job')
    const handle = result.structuredContent as Record<string, unknown>
    assert.deepEqual(handle, { href, p: content[0]!.description, rel: 'monitor', status: 'working', events: `${href}/events` })
    assert.deepEqual(JSON.parse(content[1]!.text!), handle, 'the handle as text too')
    assert.equal(result.isError, undefined)

    const working = await fetch(href)
    assert.equal(working.status, 200)
    const arrival = await working.json() as { status: string, m: Array<{ content: string }> }
    assert.equal(arrival.status, 'working')
    assert.deepEqual(arrival.m.map((message) => message.content), ['step 1', 'step 2', 'step 3'], 'the progress before the hand-off is the job\'s')
    gateOf('a').open()
    await eventually(async () => (await (await fetch(href)).json() as { status: string }).status === 'completed', 'the job completes')
    const done = await (await fetch(href)).json() as { result: unknown }
    assert.deepEqual(done.result, { id: 'a', steps: 3 })
  })

  it('without a progress token: a JSON answer, the resource_link in it', async () => {
    const response = await raw(host.port, { body: callText('slow', '{"id":"b"}') })
    assert.equal(response.headers['content-type'], 'application/json; charset=utf-8')
    const result = JSON.parse(response.body).result as { content: Content[] }
    assert.equal(result.content[0]!.type, 'resource_link')
    gateOf('b').open()
  })

  it('progress on the call\'s own SSE stream, its last event the answer; no stream without an Accept for it, or with a token that is no id', async () => {
    const streamed = await raw(host.port, { body: callText('slow', '{"id":"quick-1","steps":2,"say":"half"}', { progressToken: 'tok' }) })
    assert.equal(streamed.headers['content-type'], 'text/event-stream')
    assert.equal(streamed.headers['cache-control'], 'no-store')
    assert.deepEqual(events(streamed.body), [
      { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'tok', progress: 1, message: 'half' } },
      { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'tok', progress: 2, message: 'half' } },
      JSON.parse(resultText('{"content":[{"type":"text","text":"{\\"id\\":\\"quick-1\\",\\"steps\\":2}"}],"structuredContent":{"id":"quick-1","steps":2}}'))
    ])
    for (const [headers, meta] of [[{ accept: 'application/json' }, { progressToken: 'tok' }], [{}, { progressToken: 1.5 }], [{}, { progressToken: { a: 1 } }]] as const) {
      const plain = await raw(host.port, { body: callText('slow', '{"id":"quick-2","steps":2}', meta), headers })
      assert.equal(plain.headers['content-type'], 'application/json; charset=utf-8', JSON.stringify([headers, meta]))
      assert.equal(plain.body, resultText('{"content":[{"type":"text","text":"{\\"id\\":\\"quick-2\\",\\"steps\\":2}"}],"structuredContent":{"id":"quick-2","steps":2}}'))
    }
    const any = await raw(host.port, { body: callText('slow', '{"id":"quick-3","steps":1}', { progressToken: 9 }), headers: { accept: '*/*' } })
    assert.equal(any.headers['content-type'], 'text/event-stream', '*/* takes a stream')
  })

  it('streams with 200 whatever status the act set on its reply before its first value', async () => {
    const streamed = await raw(host.port, { body: callText('slow', '{"id":"quick-8","steps":1,"status":500}', { progressToken: 1 }) })
    assert.equal(streamed.status, 200)
    assert.equal(events(streamed.body).length, 2)
  })

  it('cuts a progress message to 4096 characters, and sends a value that is no string as JSON', async () => {
    const long = await raw(host.port, { body: callText('slow', JSON.stringify({ id: 'quick-4', steps: 1, say: 'x'.repeat(5000) }), { progressToken: 1 }) })
    const [first] = events(long.body) as Array<{ params: { message: string } }>
    assert.equal(first!.params.message, 'x'.repeat(4096))
    const values = await raw(host.port, { body: callText('slow', JSON.stringify({ id: 'quick-5', steps: 1, say: [1, null] }), { progressToken: 1 }) })
    assert.equal((events(values.body)[0] as { params: { message: string } }).params.message, '[1,null]')
  })

  it('an act that fails after reporting progress: "The act failed." as the stream\'s last event', async () => {
    const failed = await raw(host.port, { body: callText('slow', '{"id":"quick-6","steps":1,"fail":true}', { progressToken: 1 }) })
    const all = events(failed.body)
    assert.equal(all.length, 2)
    assert.deepEqual(all[1], JSON.parse(resultText(FAILED)))
  })
})

describe('background: a quick act', () => {
  it('answers plainly, as without background, whether it awaits or not', async () => {
    const client = await host.connect()
    const progress: Progress[] = []
    const quick = await client.callTool({ name: 'slow', arguments: { id: 'quick-7' } }, CallToolResultSchema, { onprogress: (p) => { progress.push(p) } })
    assert.deepEqual(quick, { content: [{ type: 'text', text: '{"id":"quick-7","steps":0}' }], structuredContent: { id: 'quick-7', steps: 0 } })
    assert.deepEqual(progress, [])
    assert.deepEqual(await client.callTool({ name: 'plain', arguments: {} }), { content: [{ type: 'text', text: '{"plain":true}' }], structuredContent: { plain: true } })
  })
})

describe('background: maxJobs reached', () => {
  it('answers 503 with Retry-After and a JSON-RPC error, and runs nothing', async () => {
    const start = host.logs.length
    const first = await raw(host.port, { body: callText('one', '{}') })
    assert.equal(JSON.parse(first.body).result.content[0].type, 'resource_link')
    const second = await raw(host.port, { body: callText('one', '{}', undefined, 'two') })
    assert.equal(second.status, 503)
    assert.match(String(second.headers['retry-after']), /^\d+$/)
    assert.deepEqual(JSON.parse(second.body), { jsonrpc: '2.0', id: 'two', error: { code: -32000, message: 'Busy: call again later' } })
    assert.ok(host.logs.slice(start).some((entry) => entry['msg'] === 'gpt: act refused, maxJobs reached'))
    gateOf('one').open()
  })
})
