// Tasks over job addresses: MCP 2025-11-25's own ("Tasks", experimental), and 2026-07-28's
// `io.modelcontextprotocol/tasks` extension (its specification, "Tasks"). A call's task is its
// job, and the task's id is the job address's path. tasks/get reads the job by its GET,
// tasks/cancel posts {"do":"cancel"} to it, tasks/result (2025-11-25) reads it until it is over,
// tasks/update (the extension) finds it by its GET: each by the job address's own route, through
// the host's router (src/mcp/enter.ts), as resources/read reads a job. Nothing of a task is kept
// here: the job is the task.
import type { FastifyRequest } from 'fastify'
import { isObject, type JsonObject } from '../json/value.ts'
import type { Backgrounded } from '../jobs/index.ts'
import type { Bridge, Entry } from './bridge.ts'
import { actResult, FAILED } from './call.ts'
import { follow, route, urlOf, type Routed } from './enter.ts'
import { completed, TASKS_EXTENSION } from './envelope.ts'
import { errorOf, INVALID_PARAMS, MISSING_CLIENT_CAPABILITY, resultOf, type Id } from './jsonrpc.ts'
import type { Shapes } from './revision.ts'
import { event, type Listened } from './stream.ts'

/** What a task's method comes to: its response's JSON, or a host hook's own answer to the job's route. */
export type TaskResponse = string | { readonly host: Routed }

/** The server's `tasks` capability: task-augmented tools/call, and tasks/cancel; no tasks/list (docs/mcp.md, "Tasks"). */
export const TASKS_CAPABILITY = Object.freeze({ cancel: {}, requests: { tools: { call: {} } } })

/** How long tasks/result waits for a working job before it says to ask again. */
export const RESULT_WAIT = 60_000

const CANCELLED = JSON.stringify({ content: [{ type: 'text', text: 'The act was cancelled.' }], isError: true })

/** A job as read: its arrival's JSON, where its GET answered 200. */
type Read = { readonly job: JsonObject, readonly entry: Entry } | { readonly response: TaskResponse }

/** The job a task id names, read by its GET as `request` would make it. */
async function readJob (bridge: Bridge, request: FastifyRequest, id: Id, taskId: unknown): Promise<Read> {
  const named = typeof taskId === 'string' ? bridge.jobAt(taskId) : undefined
  if (named === undefined) return { response: notFound(id) }
  const routed = await route(bridge.host, request, 'GET', urlOf(taskId as string), {})
  if (routed === undefined) return { response: LATER(id) }
  switch (routed.status) {
    case 200: return { job: JSON.parse(routed.body.toString('utf8')) as JsonObject, entry: named.entry }
    case 404: return { response: notFound(id) }
    case 429:
    case 503: return { response: LATER(id) }
    default: return { response: { host: routed } }
  }
}

const notFound = (id: Id): string => errorOf(id, INVALID_PARAMS, 'Failed to retrieve task: Task not found')
const LATER = (id: Id): string => errorOf(id, -32000, 'The task cannot be read now: ask again later')

/**
 * A job as a Task: its status as it is (the job's four are the task's but input_required), made
 * when the act was posted, updated when it ended (its expiry less `keep`) or, while it works, as
 * of this read; its ttl from creation to expiry (null, unbounded, while it works), its poll
 * interval the address's `poll`; both named as `shapes`' revision names them (the extension's in ms).
 */
export function taskOf (taskId: string, job: JsonObject, entry: Entry, shapes: Shapes, now = Date.now()): JsonObject {
  const background = entry.hosted.background as Backgrounded
  const created = Date.parse(String(job['started']))
  const expires = typeof job['expires'] === 'string' ? Date.parse(job['expires']) : undefined
  const ms = shapes.tasks === 'extension' ? 'Ms' : ''
  return {
    taskId,
    status: job['status'] as string,
    statusMessage: job['p'] as string,
    createdAt: new Date(created).toISOString(),
    lastUpdatedAt: new Date(expires === undefined ? now : expires - background.keep).toISOString(),
    [`ttl${ms}`]: expires === undefined ? null : expires - created,
    [`pollInterval${ms}`]: background.poll
  }
}

/**
 * The extension's DetailedTask: what tasks/get carries is "exactly what the underlying request
 * would have returned" ("Error Handling"): a completed job's result as the call's, and a failed
 * one's as the call answers it, a result with isError, so `completed` (`failed` is for JSON-RPC
 * errors alone, which a job never comes to); either as 2026-07-28 answers the call, with its
 * resultType, which its servers "MUST include" (schema, `Result`). A cancelled job is a cancelled task.
 */
function detailedOf (bridge: Bridge, taskId: string, job: JsonObject, entry: Entry, shapes: Shapes): JsonObject {
  const task = taskOf(taskId, job, entry, shapes)
  const answered = (result: string): JsonObject => JSON.parse(completed(result, bridge.serverInfoMember)) as JsonObject
  if (job['status'] === 'completed') return { ...task, result: answered(actResult(JSON.stringify(job['result']), bridge.tool(entry), shapes)) }
  if (job['status'] === 'failed') return { ...task, status: 'completed', result: answered(FAILED) }
  return task
}

/** A call's CreateTaskResult (the extension's, flat and with resultType "task"; 2025-11-25's as `task`): its job, read at once. */
export async function createdTask (bridge: Bridge, request: FastifyRequest, id: Id, job: string, shapes: Shapes): Promise<TaskResponse> {
  const read = await readJob(bridge, request, id, job)
  if ('response' in read) return read.response
  const task = taskOf(job, read.job, read.entry, shapes)
  // The extension, "Task Creation": the job is readable (its GET answered) before the task is told.
  return resultOf(id, shapes.tasks === 'extension' ? completed(JSON.stringify(task), bridge.serverInfoMember, undefined, 'task') : JSON.stringify({ task }))
}

/** tasks/get: the job, as a Task (the extension's DetailedTask). */
export async function getTask (bridge: Bridge, request: FastifyRequest, id: Id, params: JsonObject, shapes: Shapes): Promise<TaskResponse> {
  const taskId = params['taskId']
  const read = await readJob(bridge, request, id, taskId)
  if ('response' in read) return read.response
  if (shapes.tasks === 'core') return resultOf(id, JSON.stringify(taskOf(taskId as string, read.job, read.entry, shapes)))
  return resultOf(id, completed(JSON.stringify(detailedOf(bridge, taskId as string, read.job, read.entry, shapes)), bridge.serverInfoMember))
}

/**
 * tasks/update (the extension): the job never asks for input, so no key is outstanding and every
 * response is ignored, as "Task Update Requests" says of keys not outstanding; the job is found
 * by its GET all the same (an unknown task is -32602, a host's refusal its own answer).
 */
export async function updateTask (bridge: Bridge, request: FastifyRequest, id: Id, params: JsonObject): Promise<TaskResponse> {
  if (!isObject(params['inputResponses'])) return errorOf(id, INVALID_PARAMS, 'Invalid params: inputResponses must be an object')
  const read = await readJob(bridge, request, id, params['taskId'])
  return 'response' in read ? read.response : resultOf(id, completed('{}', bridge.serverInfoMember))
}

/**
 * The extension's -32021 ("Error Handling"): tasks/get, update and cancel, and task
 * notifications, are for a client that declares the extension on its request.
 */
export const undeclared = (id: Id): string => errorOf(id, MISSING_CLIENT_CAPABILITY, 'Missing required client capability', {
  requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } }
})

/**
 * tasks/cancel: `{"do":"cancel"}` posted to the job address, as any client may post it. Under
 * 2025-11-25 the job is read again: one whose form no longer admits the act is over, and
 * cancelling it is -32602 ("Task Cancellation"). The extension's is an acknowledgment
 * ("cooperative"): a job already over stays as it ended, as `tasks/get` says.
 */
export async function cancelTask (bridge: Bridge, request: FastifyRequest, id: Id, params: JsonObject, shapes: Shapes): Promise<TaskResponse> {
  const taskId = params['taskId']
  if (typeof taskId !== 'string' || bridge.jobAt(taskId) === undefined) return notFound(id)
  const posted = await route(bridge.host, request, 'POST', urlOf(taskId), { 'content-type': 'application/json' }, CANCEL)
  if (posted !== undefined && posted.status !== 200 && posted.status !== 204) return posted.status === 404 ? notFound(id) : { host: posted }
  if (shapes.tasks === 'extension') return posted === undefined ? LATER(id) : resultOf(id, completed('{}', bridge.serverInfoMember))
  const read = await readJob(bridge, request, id, taskId)
  if ('response' in read) return read.response
  if (posted?.status !== 200) return errorOf(id, INVALID_PARAMS, `Cannot cancel task: already in terminal status '${String(read.job['status'])}'`)
  return resultOf(id, JSON.stringify(taskOf(taskId, read.job, read.entry, shapes)))
}

const CANCEL = Buffer.from('{"do":"cancel"}')

/**
 * tasks/result: what the call would have answered had it waited, once the job is over (read again
 * every `poll` ms, up to RESULT_WAIT): its result as the act's, a failed or cancelled job's as an
 * error result; each with the related-task `_meta`.
 */
export async function taskResult (bridge: Bridge, request: FastifyRequest, id: Id, params: JsonObject, shapes: Shapes, wait = RESULT_WAIT): Promise<TaskResponse> {
  const taskId = params['taskId']
  const until = Date.now() + wait
  for (;;) {
    const read = await readJob(bridge, request, id, taskId)
    if ('response' in read) return read.response
    const { job, entry } = read
    const poll = (entry.hosted.background as Backgrounded).poll
    if (job['status'] === 'working') {
      if (Date.now() + poll > until) return errorOf(id, -32000, 'The task is still working: ask for its result again')
      await new Promise((resolve) => setTimeout(resolve, poll))
      continue
    }
    const result = job['status'] === 'completed' ? actResult(JSON.stringify(job['result']), bridge.tool(entry), shapes) : job['status'] === 'failed' ? FAILED : CANCELLED
    return resultOf(id, `${result.slice(0, -1)},"_meta":${JSON.stringify({ 'io.modelcontextprotocol/related-task': { taskId } })}}`)
  }
}

/** Whether a call asks to be a task: `params.task`, an object (TaskMetadata). */
export const asksTask = (params: JsonObject): boolean => isObject(params['task'])

/** The most tasks one subscriptions/listen hears of: the first ones it names that it may read. */
export const MAX_TASK_IDS = 64

/**
 * Of the task ids a subscriptions/listen names, those it will hear of: of the first MAX_TASK_IDS
 * named, each a job this request may read now (its GET answers 200).
 */
export async function heard (bridge: Bridge, request: FastifyRequest, id: Id, taskIds: readonly string[]): Promise<string[]> {
  const reads = await Promise.all([...new Set(taskIds)].slice(0, MAX_TASK_IDS).map(async (taskId) => [taskId, await readJob(bridge, request, id, taskId)] as const))
  return reads.flatMap(([taskId, read]) => 'job' in read ? [taskId] : [])
}

/**
 * The extension's `notifications/tasks` ("Task Status Notifications") on a listening stream: a
 * job's one change of status is its end, so each task is told once, when its job is over (at
 * once if it was), as tasks/get would read it then. The end is waited for on the job's own
 * events route, and the task read by its GET, each as this request would make it: a job whose
 * gate refuses the read, or that is gone, is not told. Nothing is told once the stream closes.
 */
export function tellWhenOver (bridge: Bridge, request: FastifyRequest, id: Id, taskIds: readonly string[], listened: Listened, shapes: Shapes): void {
  for (const taskId of taskIds) {
    tellOnce(bridge, request, id, taskId, listened, shapes).catch((error: unknown) => { request.log.error({ err: error }, 'gpt: a task notification failed') })
  }
}

async function tellOnce (bridge: Bridge, request: FastifyRequest, id: Id, taskId: string, listened: Listened, shapes: Shapes): Promise<void> {
  if (await follow(bridge.host, request, urlOf(`${taskId}/events`), listened.signal) !== 200) return
  const read = await readJob(bridge, request, id, taskId)
  if (!('job' in read) || read.job['status'] === 'working' || listened.signal.aborted) return
  const params = { ...detailedOf(bridge, taskId, read.job, read.entry, shapes), _meta: { 'io.modelcontextprotocol/subscriptionId': id } }
  listened.write(event(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/tasks', params })))
}
