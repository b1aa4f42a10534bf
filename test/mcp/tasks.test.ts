// Tasks (MCP 2025-11-25): a task-augmented call of an address with background is its job. The task
// is read by the job address's GET, cancelled by its POST, and waited for until the job is over;
// the job address and the task are one job, whichever way it is read or cancelled.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js'
import gpt from '../../src/index.ts'
import { FAILED } from '../../src/mcp/call.ts'
import { bridged, raw, rpcText, type Bridged } from './bridge-host.ts'
import { gatedSlow, gatesByName } from '../helpers/jobs.ts'

const { gateOf } = gatesByName()

let host: Bridged

before(async () => {
  host = await bridged(async (app) => {
    // A host's hook that refuses a look at a job to a caller it does not know.
    app.addHook('onRequest', async (request, reply) => {
      if (request.headers['x-deny'] === '1' && request.url.includes('/jobs/')) await reply.code(403).send('no')
    })
    await app.register(gpt, gatedSlow(gateOf, { after: 5000, poll: 10 }))
    await app.register(gpt, { prefix: '/plain', form: { type: 'object' }, rateLimit: false, act: () => ({ plain: true }) })
    await app.register(gpt, { prefix: '/limited', form: { type: 'object' }, background: { after: 5000, rateMax: 1 }, act: async () => { await gateOf('limited').promise; return {} } })
    // Polled every two minutes: longer than tasks/result waits.
    await app.register(gpt, { prefix: '/sleepy', form: { type: 'object' }, rateLimit: false, background: { after: 5000, poll: 120_000 }, act: async () => { await gateOf('sleepy').promise; return {} } })
  })
})
after(async () => { await host.close() })

interface Rpc { result?: Record<string, unknown>, error?: { code: number, message: string } }

async function rpc (method: string, params: unknown, headers: Record<string, string | undefined> = {}): Promise<Rpc> {
  const answer = await raw(host.port, { body: rpcText(method, params), headers: { accept: 'application/json', ...headers } })
  return JSON.parse(answer.body) as Rpc
}

/** A task-augmented call of /slow; its task as CreateTaskResult holds it. */
async function started (id: string, fail = false): Promise<Record<string, unknown>> {
  const created = await rpc('tools/call', { name: 'slow', arguments: { id, fail }, task: { ttl: 1000 } })
  return created.result?.['task'] as Record<string, unknown>
}

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/

describe('tasks over job addresses (2025-11-25)', () => {
  it('declares task support for a tool with background, and the capability, under 2025-11-25 only', async () => {
    const tools = (await rpc('tools/list', {})).result?.['tools'] as Array<Record<string, unknown>>
    assert.deepEqual(tools.map((tool) => [tool['name'], tool['execution']]), [['slow', { taskSupport: 'optional' }], ['plain', undefined], ['limited', { taskSupport: 'optional' }], ['sleepy', { taskSupport: 'optional' }]])
    const older = (await rpc('tools/list', {}, { 'mcp-protocol-version': '2025-06-18' })).result?.['tools'] as Array<Record<string, unknown>>
    assert.ok(older.every((tool) => !('execution' in tool)))
    const init = async (protocolVersion: string): Promise<unknown> =>
      ((await rpc('initialize', { protocolVersion, capabilities: {}, clientInfo: { name: 'c', version: '1' } }, { 'mcp-protocol-version': undefined })).result?.['capabilities'] as Record<string, unknown>)['tasks']
    assert.deepEqual(await init('2025-11-25'), { cancel: {}, requests: { tools: { call: {} } } })
    assert.equal(await init('2025-06-18'), undefined)
    assert.equal((await rpc('tasks/get', { taskId: 'x' }, { 'mcp-protocol-version': '2025-06-18' })).error?.code, -32601)
    // tasks/update is the 2026-07-28 extension's alone.
    assert.equal((await rpc('tasks/update', { taskId: 'x', inputResponses: {} })).error?.code, -32601)
  })

  it('answers a task-augmented call with its job, read by tasks/get, and the result the call would have had', async () => {
    const task = await started('a')
    assert.match(String(task['taskId']), /^\/slow\/jobs\/[\w-]+$/)
    assert.equal(task['status'], 'working')
    assert.match(String(task['createdAt']), ISO)
    assert.equal(task['ttl'], null)
    assert.equal(task['pollInterval'], 10)
    const job = await raw(host.port, { method: 'GET', path: String(task['taskId']), headers: { accept: 'application/json' } })
    assert.equal((JSON.parse(job.body) as { status: string }).status, 'working')
    const waiting = rpc('tasks/result', { taskId: task['taskId'] })
    setTimeout(() => { gateOf('a').open() }, 30) // after tasks/result has found it working

    const result = (await waiting).result
    assert.deepEqual(result, {
      content: [{ type: 'text', text: '{"id":"a"}' }],
      structuredContent: { id: 'a' },
      _meta: { 'io.modelcontextprotocol/related-task': { taskId: task['taskId'] } }
    })
    const done = (await rpc('tasks/get', { taskId: task['taskId'] })).result as Record<string, unknown>
    assert.equal(done['status'], 'completed')
    assert.equal(done['createdAt'], task['createdAt'])
    assert.equal(typeof done['ttl'], 'number')
    assert.match(String(done['lastUpdatedAt']), ISO)
  })

  it('cancels the job over MCP, and its job address reads it cancelled; a second cancel is -32602', async () => {
    const task = await started('b')
    const cancelled = (await rpc('tasks/cancel', { taskId: task['taskId'] })).result as Record<string, unknown>
    assert.equal(cancelled['status'], 'cancelled')
    const job = await raw(host.port, { method: 'GET', path: String(task['taskId']), headers: { accept: 'application/json' } })
    assert.equal((JSON.parse(job.body) as { status: string }).status, 'cancelled')
    const again = await rpc('tasks/cancel', { taskId: task['taskId'] })
    assert.deepEqual(again.error, { code: -32602, message: "Cannot cancel task: already in terminal status 'cancelled'" })
    gateOf('b').open()
  })

  it('reads a job cancelled by its POST as a cancelled task, whose result is an error result', async () => {
    const task = await started('c')
    const posted = await raw(host.port, { path: String(task['taskId']), body: '{"do":"cancel"}', headers: { accept: 'application/json' } })
    assert.equal(posted.status, 200)
    assert.equal((await rpc('tasks/get', { taskId: task['taskId'] })).result?.['status'], 'cancelled')
    const result = (await rpc('tasks/result', { taskId: task['taskId'] })).result
    assert.equal(result?.['isError'], true)
    gateOf('c').open()
  })

  it('reads a failed job as a failed task, whose result is the failed call\'s', async () => {
    const task = await started('d', true)
    gateOf('d').open()
    const result = (await rpc('tasks/result', { taskId: task['taskId'] })).result
    assert.deepEqual(result, { ...JSON.parse(FAILED) as object, _meta: { 'io.modelcontextprotocol/related-task': { taskId: task['taskId'] } } })
    assert.equal((await rpc('tasks/get', { taskId: task['taskId'] })).result?.['status'], 'failed')
  })

  it('refuses a task-augmented call of a tool without task support, and tasks it does not know', async () => {
    assert.equal((await rpc('tools/call', { name: 'plain', arguments: {}, task: {} })).error?.code, -32601)
    // Refused arguments are answered as the call would be: no job, no task.
    const refused = (await rpc('tools/call', { name: 'slow', arguments: { nope: 1 }, task: {} })).result
    assert.equal(refused?.['isError'], true)
    for (const taskId of ['/slow/jobs/nothere', '/plain', 7]) {
      for (const method of ['tasks/get', 'tasks/result', 'tasks/cancel']) {
        assert.equal((await rpc(method, { taskId })).error?.code, -32602, `${method} ${String(taskId)}`)
      }
    }
    // A job forgotten is a task no longer found.
    const task = await started('e')
    gateOf('e').open()
    await rpc('tasks/result', { taskId: task['taskId'] })
    await raw(host.port, { path: String(task['taskId']), body: '{"do":"forget"}', headers: { accept: 'application/json' } })
    assert.equal((await rpc('tasks/cancel', { taskId: task['taskId'] })).error?.code, -32602)
  })

  it('answers a host hook\'s refusal of the job\'s route as the hook made it', async () => {
    const task = await started('f')
    for (const method of ['tasks/get', 'tasks/cancel']) {
      const answer = await raw(host.port, { body: rpcText(method, { taskId: task['taskId'] }), headers: { accept: 'application/json', 'x-deny': '1' } })
      assert.equal(answer.status, 403, method)
    }
    gateOf('f').open()
  })

  it('says to ask again when the job would outlive the wait', async () => {
    const created = await rpc('tools/call', { name: 'sleepy', arguments: {}, task: {} })
    const taskId = (created.result?.['task'] as Record<string, unknown>)['taskId']
    assert.deepEqual((await rpc('tasks/result', { taskId })).error, { code: -32000, message: 'The task is still working: ask for its result again' })
    gateOf('sleepy').open()
  })

  it('says to ask again when the job\'s route is rate limited', async () => {
    const created = await rpc('tools/call', { name: 'limited', arguments: {}, task: {} })
    const taskId = (created.result?.['task'] as Record<string, unknown>)['taskId']
    assert.deepEqual((await rpc('tasks/get', { taskId })).error, { code: -32000, message: 'The task cannot be read now: ask again later' })
    gateOf('limited').open()
  })

  it('is a task the official SDK client calls, polls and reads', async () => {
    const client = await host.connect()
    const messages: string[] = []
    const stream = client.experimental.tasks.callToolStream({ name: 'slow', arguments: { id: 'h' } }, CallToolResultSchema, { task: { ttl: 1000 } })
    for await (const message of stream) {
      messages.push(message.type)
      if (message.type === 'taskCreated') gateOf('h').open()
      if (message.type === 'result') assert.deepEqual(message.result.structuredContent, { id: 'h' })
    }
    assert.equal(messages[0], 'taskCreated')
    assert.equal(messages.at(-1), 'result')
  })
})
