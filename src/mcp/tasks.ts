// Tasks (MCP 2025-11-25, "Tasks", experimental): a task-augmented call of an address with
// `background` is its job, and the task's id is the job address's path. tasks/get reads the job by
// its GET, tasks/cancel posts {"do":"cancel"} to it, tasks/result reads it until it is over: each by
// the job address's own route, through the host's router (src/mcp/enter.ts), as resources/read
// reads a job. Nothing of a task is kept here: the job is the task.
import type { FastifyRequest } from 'fastify'
import { isObject, type JsonObject } from '../json/value.ts'
import type { Backgrounded } from '../jobs/index.ts'
import type { Bridge, Entry } from './bridge.ts'
import { actResult, FAILED } from './call.ts'
import { route, urlOf, type Routed } from './enter.ts'
import { errorOf, INVALID_PARAMS, resultOf, type Id } from './jsonrpc.ts'
import type { Shapes } from './revision.ts'

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
  if (routed === undefined) return { response: errorOf(id, -32000, 'The task cannot be read now: ask again later') }
  switch (routed.status) {
    case 200: return { job: JSON.parse(routed.body.toString('utf8')) as JsonObject, entry: named.entry }
    case 404: return { response: notFound(id) }
    case 429:
    case 503: return { response: errorOf(id, -32000, 'The task cannot be read now: ask again later') }
    default: return { response: { host: routed } }
  }
}

const notFound = (id: Id): string => errorOf(id, INVALID_PARAMS, 'Failed to retrieve task: Task not found')

/**
 * A job as a Task: its status as it is (the job's four are the task's but input_required), made
 * when the act was posted, updated when it ended (its expiry less `keep`) or, while it works, as
 * of this read; its ttl from creation to expiry (null, unbounded, while it works), its
 * pollInterval the address's `poll`.
 */
export function taskOf (taskId: string, job: JsonObject, entry: Entry, now = Date.now()): JsonObject {
  const background = entry.hosted.background as Backgrounded
  const created = Date.parse(String(job['started']))
  const expires = typeof job['expires'] === 'string' ? Date.parse(job['expires']) : undefined
  return {
    taskId,
    status: job['status'] as string,
    statusMessage: job['p'] as string,
    createdAt: new Date(created).toISOString(),
    lastUpdatedAt: new Date(expires === undefined ? now : expires - background.keep).toISOString(),
    ttl: expires === undefined ? null : expires - created,
    pollInterval: background.poll
  }
}

/** A task-augmented call's CreateTaskResult: its job, read at once. */
export async function createdTask (bridge: Bridge, request: FastifyRequest, id: Id, job: string): Promise<TaskResponse> {
  const read = await readJob(bridge, request, id, job)
  return 'response' in read ? read.response : resultOf(id, JSON.stringify({ task: taskOf(job, read.job, read.entry) }))
}

/** tasks/get: the job, as a Task. */
export async function getTask (bridge: Bridge, request: FastifyRequest, id: Id, params: JsonObject): Promise<TaskResponse> {
  const read = await readJob(bridge, request, id, params['taskId'])
  return 'response' in read ? read.response : resultOf(id, JSON.stringify(taskOf(params['taskId'] as string, read.job, read.entry)))
}

/**
 * tasks/cancel: `{"do":"cancel"}` posted to the job address, as any client may post it; a job
 * whose form no longer admits it is over, and cancelling it is -32602 ("Task Cancellation").
 */
export async function cancelTask (bridge: Bridge, request: FastifyRequest, id: Id, params: JsonObject): Promise<TaskResponse> {
  const taskId = params['taskId']
  if (typeof taskId !== 'string' || bridge.jobAt(taskId) === undefined) return notFound(id)
  const posted = await route(bridge.host, request, 'POST', urlOf(taskId), { 'content-type': 'application/json' }, CANCEL)
  if (posted !== undefined && posted.status !== 200 && posted.status !== 204) return posted.status === 404 ? notFound(id) : { host: posted }
  const read = await readJob(bridge, request, id, taskId)
  if ('response' in read) return read.response
  if (posted?.status !== 200) return errorOf(id, INVALID_PARAMS, `Cannot cancel task: already in terminal status '${String(read.job['status'])}'`)
  return resultOf(id, JSON.stringify(taskOf(taskId, read.job, read.entry)))
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
