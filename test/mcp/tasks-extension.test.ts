// The 2026-07-28 tasks extension (`io.modelcontextprotocol/tasks`, its specification "Tasks"):
// an act that outlives `background.after` is a job, told as a task to a client that declares the
// extension; tasks/get, update and cancel reach the job by the job address's own routes. Every
// message is judged by the extension's own schemas, those of its official package
// (@modelcontextprotocol/ext-tasks/core/v2).
import assert from 'node:assert/strict'
import { Readable } from 'node:stream'
import { after, before, describe, it } from 'node:test'
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2, type JSONRPCMessage } from '@modelcontextprotocol/client'
import { createTaskSessionFromClient, type JsonRpcResponse, type RawClientDispatch } from '@modelcontextprotocol/ext-tasks/client'
import type { JsonValue } from '@modelcontextprotocol/ext-tasks/core'
import {
  CallToolResultV2Schema, CancelTaskResultV2Schema, CreateTaskResultV2Schema, ErrorV2Schema, GetTaskResultV2Schema, TaskStatusNotificationV2Schema,
  TaskSubscriptionAcknowledgedNotificationsV2Schema, UpdateTaskResultV2Schema, type ErrorV2
} from '@modelcontextprotocol/ext-tasks/core/v2'
import Fastify, { type FastifyRequest } from 'fastify'
import gpt, { type GptOptions } from '../../src/index.ts'
import { FAILED } from '../../src/mcp/call.ts'
import { follow } from '../../src/mcp/enter.ts'
import { MAX_TASK_IDS } from '../../src/mcp/tasks.ts'
import { bridged, eventually, events, raw, rpcText, streamed, type Bridged, type Raw, type Streamed } from './bridge-host.ts'
import { gatedSlow, gatesByName } from '../helpers/jobs.ts'

/** One of the extension's schemas, as its package exports it. */
interface Judge { safeParse: (value: unknown) => { success: boolean, error?: unknown } }

/** Asserts that the extension's `schema` accepts `value` (its issues, if not). */
function judged (schema: Judge, value: unknown): void {
  const { success, error } = schema.safeParse(value)
  assert.ok(success, String(error))
}

const { gateOf } = gatesByName()
const V = '2026-07-28'
const EXTENSION = 'io.modelcontextprotocol/tasks'
const SERVER = { name: 'tasks', version: '1' }

type Json = Record<string, unknown>
const json = (text: string): Json => JSON.parse(text) as Json

let host: Bridged

before(async () => {
  host = await bridged(async (app) => {
    await app.register(gpt, gatedSlow(gateOf, { after: 30, poll: 10 }, { result: { type: 'object' } }))
    await app.register(gpt, {
      prefix: '/steps',
      form: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
      rateLimit: false,
      background: { after: 30 },
      async * act ({ id }: { id: string }) {
        yield 'half way'
        await gateOf(id).promise
        return { id }
      }
    } as unknown as GptOptions)
    await app.register(gpt, { prefix: '/quick', form: { type: 'object' }, rateLimit: false, background: { after: 5000 }, act: () => ({ quick: true }) })
    await app.register(gpt, { prefix: '/plain', form: { type: 'object' }, rateLimit: false, act: () => ({ plain: true }) })
    // A bearer gate on an address and everything under it, its job addresses included.
    await app.register(async (gated) => {
      gated.addHook('onRequest', async (request, reply) => {
        if (request.headers.authorization !== 'Bearer good') await reply.code(401).header('www-authenticate', 'Bearer').send()
      })
      await gated.register(gpt, {
        prefix: '/guarded',
        form: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
        rateLimit: false,
        background: { after: 30 },
        act: async ({ id }: { id: string }) => { await gateOf(id).promise; return { opened: true } }
      } as unknown as GptOptions)
    })
  }, { serverInfo: SERVER })
})
after(async () => { await host.close() })

const declaring = { extensions: { [EXTENSION]: {} } }

/**
 * A 2026-07-28 request as a conforming client sends it, its header fields said; `capabilities`
 * its client's; `params._progress` true: with a progressToken.
 */
function post (method: string, params: Json, capabilities: Json = declaring, headers: Record<string, string | undefined> = {}): Promise<Raw> {
  const { _progress: progress, ...rest } = params
  const meta = { 'io.modelcontextprotocol/protocolVersion': V, 'io.modelcontextprotocol/clientCapabilities': capabilities, ...(progress === true ? { progressToken: 'p' } : {}) }
  const name = params['name'] ?? params['taskId']
  return raw(host.port, {
    body: rpcText(method, { ...rest, _meta: meta }),
    headers: { accept: 'application/json', 'mcp-protocol-version': V, 'mcp-method': method, ...(typeof name === 'string' ? { 'mcp-name': name } : {}), ...headers }
  })
}

const result = async (answer: Promise<Raw>): Promise<Json> => {
  const body = json((await answer).body)
  assert.equal(body['error'], undefined, JSON.stringify(body['error']))
  return body['result'] as Json
}
/** The error of a request's answer, judged a JSON-RPC error as the extension has it. */
const error = async (answer: Promise<Raw>): Promise<Json> => {
  const refused = json((await answer).body)['error'] as Json
  judged(ErrorV2Schema, refused)
  return refused
}

/** A call of /slow by a declaring client, answered by a task; its CreateTaskResult. */
async function started (id: string, fail = false): Promise<Json> {
  const created = await result(post('tools/call', { name: 'slow', arguments: { id, fail } }))
  judged(CreateTaskResultV2Schema, created)
  return created
}

const get = (taskId: unknown, capabilities?: Json): Promise<Json> => result(post('tasks/get', { taskId }, capabilities))
const jobOf = async (taskId: unknown): Promise<Json> => json((await raw(host.port, { method: 'GET', path: String(taskId), headers: { accept: 'application/json' } })).body)
const ACK = { resultType: 'complete', _meta: { 'io.modelcontextprotocol/serverInfo': SERVER } }

describe('the tasks extension (2026-07-28) over job addresses', () => {
  it('"Capability Negotiation": server/discover declares the extension, and no tool declares anything of its own', async () => {
    const discovered = await result(post('server/discover', {}))
    assert.deepEqual((discovered['capabilities'] as Json)['extensions'], { [EXTENSION]: {}, 'io.modelcontextprotocol/ui': {} }, 'beside MCP Apps')
    const tools = (await result(post('tools/list', {})))['tools'] as Json[]
    assert.ok(tools.every((tool) => !('execution' in tool)))
  })

  it('"Task Creation": an act that outlives `after` is a task, its id the job address, readable at once; completed, its result the call\'s', async () => {
    const created = await started('a')
    assert.equal(created['resultType'], 'task')
    assert.match(String(created['taskId']), /^\/slow\/jobs\/[\w-]+$/)
    assert.equal(created['status'], 'working')
    assert.equal(created['ttlMs'], null)
    assert.equal(created['pollIntervalMs'], 10)
    assert.deepEqual(created['_meta'], { 'io.modelcontextprotocol/serverInfo': SERVER })
    // The judge can say no: a task handle that says it is complete is no CreateTaskResult.
    assert.equal(CreateTaskResultV2Schema.safeParse({ ...created, resultType: 'complete' }).success, false)
    const working = await get(created['taskId'])
    judged(GetTaskResultV2Schema, working)
    assert.deepEqual([working['status'], working['createdAt'], working['resultType']], ['working', created['createdAt'], 'complete'])
    assert.equal((await jobOf(created['taskId']))['status'], 'working')
    gateOf('a').open()
    let done = working
    while (done['status'] === 'working') done = await get(created['taskId'])
    judged(GetTaskResultV2Schema, done)
    assert.equal(done['status'], 'completed')
    // The call's own answer under 2026-07-28, its resultType with it, as the extension's client reads it.
    assert.deepEqual(done['result'], { content: [{ type: 'text', text: '{"id":"a"}' }], structuredContent: { id: 'a' }, ...ACK })
    judged(CallToolResultV2Schema, done['result'])
    assert.equal(typeof done['ttlMs'], 'number')
  })

  it('ends a call\'s progress stream with its CreateTaskResult', async () => {
    const answer = await post('tools/call', { name: 'steps', arguments: { id: 's' }, _progress: true }, declaring, { accept: 'application/json, text/event-stream' })
    const said = events(answer.body) as Json[]
    assert.equal(answer.headers['content-type'], 'text/event-stream')
    assert.deepEqual(said[0], { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'p', progress: 1, message: 'half way' } })
    const created = (said[1] as { result: Json }).result
    judged(CreateTaskResultV2Schema, created)
    assert.equal(said.length, 2)
    assert.equal((await jobOf(created['taskId']))['status'], 'working')
    gateOf('s').open()
  })

  it('answers a quick act, a tool without background, and any client not declaring the extension, as the call: never a task', async () => {
    const quick = await result(post('tools/call', { name: 'quick', arguments: {} }))
    assert.deepEqual([quick['resultType'], quick['structuredContent']], ['complete', { quick: true }])
    const plain = await result(post('tools/call', { name: 'plain', arguments: {} }))
    assert.equal(plain['resultType'], 'complete')
    // 2025-11-25's `task` parameter is unknown here ("Backward Compatibility"): no hand-off at once.
    assert.equal((await result(post('tools/call', { name: 'quick', arguments: {}, task: {} })))['resultType'], 'complete')
    const handle = await result(post('tools/call', { name: 'slow', arguments: { id: 'b' } }, {}))
    assert.equal(handle['resultType'], 'complete')
    const href = String((handle['structuredContent'] as Json)['href'])
    assert.match(href, /\/slow\/jobs\/[\w-]+$/)
    gateOf('b').open()
  })

  it('"Error Handling": tasks/get, update and cancel of a client not declaring the extension are -32021 (HTTP 400); tasks/result is gone (-32601)', async () => {
    const created = await started('c')
    for (const method of ['tasks/get', 'tasks/update', 'tasks/cancel']) {
      const answer = await post(method, { taskId: created['taskId'], inputResponses: {} }, {})
      assert.equal(answer.status, 400, 'as 2026-07-28 asks of -32021')
      const refused = json(answer.body)['error']
      judged(ErrorV2Schema, refused)
      assert.deepEqual(refused, { code: -32021, message: 'Missing required client capability', data: { requiredCapabilities: { extensions: { [EXTENSION]: {} } } } }, method)
    }
    const gone = await post('tasks/result', { taskId: created['taskId'] })
    assert.deepEqual([gone.status, (json(gone.body)['error'] as Json)['code']], [404, -32601])
    gateOf('c').open()
  })

  it('"Task Cancellation": tasks/cancel is acknowledged, and the job address reads cancelled; a job over is acknowledged and stays as it ended', async () => {
    const created = await started('d')
    const acknowledged = await result(post('tasks/cancel', { taskId: created['taskId'] }))
    judged(CancelTaskResultV2Schema, acknowledged)
    assert.deepEqual(acknowledged, ACK)
    assert.equal((await jobOf(created['taskId']))['status'], 'cancelled')
    const cancelled = await get(created['taskId'])
    judged(GetTaskResultV2Schema, cancelled)
    assert.equal(cancelled['status'], 'cancelled')
    assert.equal('result' in cancelled, false)
    assert.deepEqual(await result(post('tasks/cancel', { taskId: created['taskId'] })), ACK)
    gateOf('d').open()
  })

  it('reads a job cancelled by its own POST as a cancelled task', async () => {
    const created = await started('e')
    const posted = await raw(host.port, { path: String(created['taskId']), body: '{"do":"cancel"}', headers: { accept: 'application/json' } })
    assert.equal(posted.status, 200)
    assert.equal((await get(created['taskId']))['status'], 'cancelled')
    gateOf('e').open()
  })

  it('reads a failed job as the call would answer it: completed, its result the failed act\'s (failed is for JSON-RPC errors)', async () => {
    const created = await started('f', true)
    gateOf('f').open()
    let done = await get(created['taskId'])
    while (done['status'] === 'working') done = await get(created['taskId'])
    judged(GetTaskResultV2Schema, done)
    assert.equal((await jobOf(created['taskId']))['status'], 'failed')
    assert.deepEqual([done['status'], done['result']], ['completed', { ...JSON.parse(FAILED) as Json, ...ACK }])
  })

  it('"Task Update Requests": tasks/update is acknowledged, every response ignored (no input is asked); inputResponses must be an object', async () => {
    const created = await started('g')
    const acknowledged = await result(post('tasks/update', { taskId: created['taskId'], inputResponses: { name: { action: 'accept', content: {} } } }))
    judged(UpdateTaskResultV2Schema, acknowledged)
    assert.deepEqual(acknowledged, ACK)
    assert.equal((await get(created['taskId']))['status'], 'working')
    assert.equal((await error(post('tasks/update', { taskId: created['taskId'] })))['code'], -32602)
    gateOf('g').open()
  })

  it('answers tasks it does not know with -32602 ("Protocol Errors"), and a forgotten job is one', async () => {
    for (const taskId of ['/slow/jobs/nothere', '/plain', '/quick/jobs/', 7]) {
      for (const method of ['tasks/get', 'tasks/update', 'tasks/cancel']) {
        assert.deepEqual(await error(post(method, { taskId, inputResponses: {} })), { code: -32602, message: 'Failed to retrieve task: Task not found' }, `${method} ${String(taskId)}`)
      }
    }
    const created = await started('h')
    gateOf('h').open()
    while ((await get(created['taskId']))['status'] === 'working');
    await raw(host.port, { path: String(created['taskId']), body: '{"do":"forget"}', headers: { accept: 'application/json' } })
    assert.equal((await error(post('tasks/get', { taskId: created['taskId'] })))['code'], -32602)
  })

  it('"Routing Headers": Mcp-Name says the task id, or the request is -32020', async () => {
    const created = await started('i')
    const answer = await post('tasks/get', { taskId: created['taskId'] }, declaring, { 'mcp-name': '/slow/jobs/other' })
    assert.equal(answer.status, 400)
    assert.equal((json(answer.body)['error'] as Json)['code'], -32020)
    assert.equal((await error(post('tasks/get', { taskId: created['taskId'] }, declaring, { 'mcp-name': undefined })))['code'], -32020)
    gateOf('i').open()
  })

  it('a bearer gate on the address holds for its task: the job\'s routes answer tasks/get, update and cancel as they answer the caller', async () => {
    const bearer = { authorization: 'Bearer good' }
    const created = await result(post('tools/call', { name: 'guarded', arguments: { id: 'g1' } }, declaring, bearer))
    judged(CreateTaskResultV2Schema, created)
    for (const method of ['tasks/get', 'tasks/update', 'tasks/cancel']) {
      for (const authorization of [undefined, 'Bearer bad']) {
        const refused = await post(method, { taskId: created['taskId'], inputResponses: {} }, declaring, { authorization })
        assert.deepEqual([refused.status, refused.headers['www-authenticate']], [401, 'Bearer'], `${method} ${String(authorization)}`)
      }
    }
    assert.equal((await result(post('tasks/get', { taskId: created['taskId'] }, declaring, bearer)))['status'], 'working')
    // Refused, the cancel did nothing: the job still works, and cancelled with the bearer it is.
    assert.deepEqual(await result(post('tasks/cancel', { taskId: created['taskId'] }, declaring, bearer)), ACK)
    assert.equal((await result(post('tasks/get', { taskId: created['taskId'] }, declaring, bearer)))['status'], 'cancelled')
    gateOf('g1').open()
  })
})

/** A subscriptions/listen of a client with `capabilities`, its stream read as it comes. */
function listen (id: unknown, notifications: Json, capabilities: Json = declaring, headers: Record<string, string> = {}): Promise<Streamed> {
  const meta = { 'io.modelcontextprotocol/protocolVersion': V, 'io.modelcontextprotocol/clientCapabilities': capabilities }
  const fields = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': V, 'mcp-method': 'subscriptions/listen', ...headers }
  return streamed(host.port, rpcText('subscriptions/listen', { notifications, _meta: meta }, id), fields)
}

/** The messages a stream has said so far. */
const said = (stream: Streamed): Json[] => events(stream.text()) as Json[]

describe('"Task Status Notifications": notifications/tasks on subscriptions/listen', () => {
  it('acknowledges the tasks it may read, and tells each once its job is over (at once if it was), as tasks/get reads it, tagged with the subscription', async () => {
    const working = await started('n1')
    const over = await started('n2')
    gateOf('n2').open()
    while ((await get(over['taskId']))['status'] === 'working');
    const stream = await listen('sub', { taskIds: [working['taskId'], over['taskId'], '/slow/jobs/nothere', '/plain', working['taskId']] })
    await eventually(() => said(stream).length >= 1, 'acknowledged')
    const acknowledged = said(stream)[0] as { params: { notifications: Json, _meta: Json } }
    assert.deepEqual(acknowledged.params, { _meta: { 'io.modelcontextprotocol/subscriptionId': 'sub' }, notifications: { taskIds: [working['taskId'], over['taskId']] } })
    judged(TaskSubscriptionAcknowledgedNotificationsV2Schema, acknowledged.params.notifications)
    await eventually(() => said(stream).length === 2, 'the job over told')
    const first = said(stream)[1] as { params: Json }
    judged(TaskStatusNotificationV2Schema, first)
    const { _meta: meta, ...task } = first.params
    assert.deepEqual(meta, { 'io.modelcontextprotocol/subscriptionId': 'sub' })
    const { resultType, _meta, ...read } = await get(over['taskId'])
    assert.deepEqual(task, read)
    gateOf('n1').open()
    await eventually(() => said(stream).length === 3, 'the working job told once it is over')
    const second = said(stream)[2] as { params: Json }
    judged(TaskStatusNotificationV2Schema, second)
    assert.deepEqual([second.params['taskId'], second.params['status'], second.params['result']], [working['taskId'], 'completed', { content: [{ type: 'text', text: '{"id":"n1"}' }], structuredContent: { id: 'n1' }, ...ACK }])
    await new Promise((resolve) => setTimeout(resolve, 50))
    assert.equal(said(stream).length, 3, 'each task is told once')
    stream.close()
  })

  it('tells a task cancelled by its job address; a gate on the job holds for the subscription as for tasks/get', async () => {
    const bearer = { authorization: 'Bearer good' }
    const created = await result(post('tools/call', { name: 'guarded', arguments: { id: 'g2' } }, declaring, bearer))
    assert.equal(created['resultType'], 'task')
    const refused = await listen(1, { taskIds: [created['taskId']] })
    const allowed = await listen(2, { taskIds: [created['taskId']] }, declaring, bearer)
    await eventually(() => said(refused).length === 1 && said(allowed).length === 1, 'both acknowledged')
    assert.deepEqual((said(refused)[0] as { params: Json }).params['notifications'], { taskIds: [] })
    assert.deepEqual((said(allowed)[0] as { params: Json }).params['notifications'], { taskIds: [created['taskId']] })
    const posted = await raw(host.port, { path: String(created['taskId']), body: '{"do":"cancel"}', headers: { accept: 'application/json', ...bearer } })
    assert.equal(posted.status, 200)
    await eventually(() => said(allowed).length === 2, 'told')
    assert.deepEqual([(said(allowed)[1] as { params: Json }).params['status'], said(refused).length], ['cancelled', 1])
    refused.close()
    allowed.close()
    gateOf('g2').open()
  })

  it('taskIds of a client not declaring the extension: -32021; not an array of strings: -32602; past MAX_TASK_IDS, not heard', async () => {
    const undeclared = await listen(3, { taskIds: [] }, {})
    await undeclared.ended
    assert.equal(undeclared.response.statusCode, 400)
    assert.equal((JSON.parse(undeclared.text()) as { error: Json }).error['code'], -32021)
    const malformed = await listen(4, { taskIds: [1] })
    await malformed.ended
    assert.equal((JSON.parse(malformed.text()) as { error: Json }).error['code'], -32602)
    const created = await started('n3')
    const many = await listen(5, { taskIds: [...Array.from({ length: MAX_TASK_IDS }, (_, index) => `/slow/jobs/no${index}`), created['taskId']] })
    await eventually(() => said(many).length === 1, 'acknowledged')
    assert.deepEqual((said(many)[0] as { params: Json }).params['notifications'], { taskIds: [] })
    many.close()
    gateOf('n3').open()
  })
})

describe('following a job\'s events to their end', () => {
  it('answers the route\'s status once its stream ends; aborted, it ends the route\'s answer as a client leaving would', async () => {
    const app = Fastify()
    let left = false
    app.get('/endless', (_request, reply) => {
      reply.raw.once('close', () => { left = true })
      return reply.send(Readable.from((async function * () { for (;;) { yield '\n'; await new Promise((resolve) => setTimeout(resolve, 5)) } })()))
    })
    app.get('/over', () => 'over')
    await app.ready()
    const request = { headers: {}, socket: { remoteAddress: '127.0.0.1' } } as unknown as FastifyRequest
    try {
      assert.equal(await follow(app, request, '/over', new AbortController().signal), 200)
      const leaving = new AbortController()
      setTimeout(() => { leaving.abort() }, 30)
      assert.equal(await follow(app, request, '/endless', leaving.signal), undefined)
      await eventually(() => left, 'the route\'s answer closed')
    } finally {
      await app.close()
    }
  })
})

describe('the official SDK 2.x client pinned to 2026-07-28', () => {
  const connect = async (capabilities: Json): Promise<ClientV2> => {
    const client = new ClientV2({ name: 'pinned', version: '2' }, { capabilities, versionNegotiation: { mode: { pin: V } } })
    await client.connect(new TransportV2(new URL(`${host.origin}/mcp`)))
    return client
  }

  it('declaring nothing, is never answered by a task: a long act is the job\'s handle it reads', async () => {
    const client = await connect({})
    try {
      const called = await client.callTool({ name: 'slow', arguments: { id: 'j' } })
      assert.match(String((called.structuredContent as Json)['href']), /\/slow\/jobs\/[\w-]+$/)
    } finally {
      gateOf('j').open()
      await client.close()
    }
  })

  it('declaring the extension, meets the CreateTaskResult it has no decoder for yet (2.4 speaks no tasks under 2026-07-28)', async () => {
    const client = await connect(declaring)
    try {
      await assert.rejects(client.callTool({ name: 'slow', arguments: { id: 'k' } }), /Unsupported result type 'task' for tools\/call/)
    } finally {
      gateOf('k').open()
      await client.close()
    }
  })
})

describe('the extension\'s official client (@modelcontextprotocol/ext-tasks) on the SDK 2.x client pinned to 2026-07-28', () => {
  const info = { name: 'tasks-client', version: '1' }

  /**
   * The request coordinator the package asks of its host under 2026-07-28 (`rawDispatch`, its
   * "Adapters and schemas"), since the SDK's own codec refuses a task: an SDK transport of its own,
   * each request given an id and its answer matched to it.
   */
  async function coordinator (): Promise<{ dispatch: RawClientDispatch, close: () => Promise<void> }> {
    const transport = new TransportV2(new URL(`${host.origin}/mcp`))
    const waiting = new Map<string, (response: JsonRpcResponse) => void>()
    transport.onmessage = (message: JSONRPCMessage) => {
      if (!('id' in message) || 'method' in message) return
      const answer = waiting.get(String(message.id))
      waiting.delete(String(message.id))
      answer?.('error' in message ? { kind: 'error', error: message.error as ErrorV2 } : { kind: 'result', result: message.result as JsonValue })
    }
    await transport.start()
    let sent = 0
    return {
      async dispatch (request, options) {
        const id = `raw-${++sent}`
        const answered = new Promise<JsonRpcResponse>((resolve) => { waiting.set(id, resolve) })
        await transport.send({ ...(request as { method: string }), jsonrpc: '2.0', id }, { ...(options?.context?.headers === undefined ? {} : { headers: options.context.headers }) })
        return answered
      },
      close: () => transport.close()
    }
  }

  /** A session of the package's client over a connected SDK client, and how to end both. */
  async function session (): Promise<{ tasks: ReturnType<typeof createTaskSessionFromClient>, close: () => Promise<void> }> {
    const client = new ClientV2(info, { capabilities: declaring, versionNegotiation: { mode: { pin: V } } })
    await client.connect(new TransportV2(new URL(`${host.origin}/mcp`)))
    const requests = await coordinator()
    const tasks = createTaskSessionFromClient(client, {
      endpointId: host.origin,
      rawDispatch: requests.dispatch,
      v2RequestFraming: { protocolVersion: V, clientInfo: info, clientCapabilities: declaring }
    })
    return { tasks, close: async () => { await tasks.close(); await requests.close(); await client.close() } }
  }

  type Execution = Awaited<ReturnType<ReturnType<typeof createTaskSessionFromClient>['callTool']>>

  /** A call of /slow (its act held at gate `id`) through the package's client, answered by a task of a working job; then `then`. */
  async function calledAsTask (id: string, then: (execution: Execution, taskId: string) => Promise<void>): Promise<void> {
    const { tasks, close } = await session()
    try {
      const execution = await tasks.callTool('slow', { id })
      assert.equal(execution.kind, 'task')
      const taskId = String(execution.handle?.taskId)
      assert.match(taskId, /^\/slow\/jobs\/[\w-]+$/)
      assert.equal((await jobOf(taskId))['status'], 'working')
      await then(execution, taskId)
    } finally {
      gateOf(id).open()
      await close()
    }
  }

  it('"Task Creation": receives a call whose act outlives `after` as a task, polls it by tasks/get to completion, and gets the act\'s result', async () => {
    await calledAsTask('x1', async (execution, taskId) => {
      const seen: string[] = []
      const settling = execution.settle({ onEvent: (event) => { seen.push(event.type) } })
      await eventually(() => seen.length > 0, 'the client observed the task')
      gateOf('x1').open()
      const { outcome, lastTask } = await settling
      assert.equal(outcome.status, 'completed', JSON.stringify(outcome))
      assert.deepEqual(outcome.status === 'completed' ? (outcome.result as Json)['structuredContent'] : undefined, { id: 'x1' })
      assert.deepEqual([lastTask?.taskId, lastTask?.status, lastTask?.suggestedPollIntervalMs], [taskId, 'completed', 10])
    })
  })

  it('"Task Cancellation": a cancel through the client reaches the job address, whose GET reads cancelled', async () => {
    await calledAsTask('x2', async (execution, taskId) => {
      await execution.cancel()
      assert.equal((await jobOf(taskId))['status'], 'cancelled')
      assert.equal((await execution.settle()).outcome.status, 'cancelled')
    })
  })
})
