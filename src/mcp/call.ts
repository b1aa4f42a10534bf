// tools/call: an act on an address by its own POST route (src/address/door.ts). The arguments'
// bytes as sent are the POST's body, its If-Match and Idempotency-Key come from the call's
// `_meta`, and everything the host runs for that POST (its hooks, the address's rate limit,
// parser, form, guard and act) runs for the call. The answer the route makes becomes the call's:
// the address's own as a result (every refusal, whatever its cause, the one REFUSAL), a host hook's
// as that hook answered it.
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { OutgoingHttpHeaders } from 'node:http'
import { ENTRY_FIELD } from '../address/door.ts'
import { IDEMPOTENCY_KEY } from '../fields.ts'
import { Refused } from '../address/pipeline.ts'
import { handleBody } from '../jobs/run.ts'
import { route, urlOf, type Routed } from './enter.ts'
import type { Hosted } from './registry.ts'
import type { Shapes } from './revision.ts'
import { spanAt } from './span.ts'
import type { Tool } from './tools.ts'

/** A tool's result as a JSON text: `isError` with a fixed text, or the act's. */
const fixed = (text: string): string => JSON.stringify({ content: [{ type: 'text', text }], isError: true })

/**
 * draft §5.3: the one answer to every refused call, whatever failed (size, parse, depth, form):
 * an actor learns nothing of which constraint it broke. The reason goes to the log.
 */
export const REFUSAL = fixed('Refused: these arguments are not an act this tool accepts. Read its inputSchema and call again.')
/** Appendix B, "Form Change": the call named an edition (its entity tag) that is no longer current. */
export const STALE = fixed('The form changed since it was listed: list the tools again, then call with the current form.')
export const FAILED = fixed('The act failed.')
export const TIMED_OUT = fixed('The act did not finish in time.')

/**
 * What a call comes to: a result (JSON text), an HTTP answer outside the protocol (409, 429,
 * 503, with when to call again), or a host's hook's own answer, sent as it was made.
 */
export type Answer =
  | { readonly result: string }
  | { readonly status: 409 | 429 | 503, readonly retryAfter: number }
  | { readonly host: Routed }

/** One call's facts, besides the request it came in. */
export interface Call {
  readonly hosted: Hosted
  readonly tool: Tool
  /** The whole JSON-RPC request's bytes: accepted by the strict parser, unless `parsed` is false. */
  readonly bytes: Buffer
  /** Its `params.arguments`, as parsed; undefined where the strict parser refused the request. */
  readonly args: unknown
  /** Whether the strict parser accepted the whole request: else it is the body, to be refused as the bridge refused it. */
  readonly parsed: boolean
  /** The entity tag the call names (`_meta["fastify-gpt/if-match"]`), if any. */
  readonly ifMatch: string | undefined
  /** The actor as the call's header or its client's clientInfo say (draft §6: records only). */
  readonly actor: string | undefined
  /** Told each progress value of an act with `background`, before its hand-off. */
  readonly progress: ((value: unknown) => void) | undefined
  /** The origin the job handle's link is written against. */
  readonly origin: string
  /** The call's Idempotency-Key: `_meta["fastify-gpt/idempotency-key"]`, else the request's header field. */
  readonly idempotencyKey: string | string[] | undefined
  /** What the request's revision has: a result holds only its shapes. */
  readonly shapes: Shapes
}

export async function callTool (host: FastifyInstance, call: Call, request: FastifyRequest): Promise<Answer> {
  const reached = await reach(host, call, request, false)
  return 'routed' in reached ? answerOf(reached.routed, call) : reached
}

/**
 * A call whose job is a task: a job's handle is the task, named by its job address. Its POST hands
 * off at once where `async` (2025-11-25's task-augmented call, as `Prefer: respond-async` asks
 * over HTTP), else once the act outlives `after` (the 2026-07-28 extension's). An act refused,
 * or answered before its hand-off, is answered as the call would be.
 */
export async function callAsTask (host: FastifyInstance, call: Call, request: FastifyRequest, async: boolean): Promise<Answer | { readonly job: string }> {
  const reached = await reach(host, call, request, async)
  if (!('routed' in reached)) return reached
  const job = reached.routed.status === 200 ? jobOf(header(reached.routed.headers, 'link'), call.hosted) : undefined
  return job === undefined ? answerOf(reached.routed, call) : { job }
}

/** The POST's answer where the address's door answered it, else what the call comes to without it. */
async function reach (host: FastifyInstance, call: Call, request: FastifyRequest, async: boolean): Promise<{ readonly routed: Routed } | Answer> {
  const { hosted } = call
  const refused = call.parsed ? argumentsRefused(call) : undefined
  const door = hosted.door
  const token = door.open({ via: 'mcp', actor: call.actor, progress: call.progress, refused, async })
  let routed: Routed | undefined
  let answered: boolean
  try {
    // A request the strict parser refused is the body: the address's parser refuses it as the bridge's did.
    const payload = !call.parsed ? call.bytes : refused !== undefined ? undefined : call.args === undefined ? NO_ARGUMENTS : argumentBytes(call)
    routed = await route(host, request, 'POST', urlOf(hosted.settings.path), {
      'content-type': 'application/json',
      [ENTRY_FIELD]: token,
      'if-match': call.ifMatch,
      [IDEMPOTENCY_KEY]: call.idempotencyKey
    }, payload)
  } finally {
    answered = door.close(token)
  }
  if (routed === undefined) return { status: 503, retryAfter: 1 } // the host is closing, or its answer was torn down
  if (!answered) return { host: routed }
  return { routed }
}

/** Why the arguments are not where the tool puts a body, if they are not. */
function argumentsRefused (call: Call): Refused | undefined {
  const { args, tool } = call
  if (tool.wrapped && (args === null || typeof args !== 'object' || Array.isArray(args) || !onlyValue(args))) {
    return new Refused('arguments', 'the arguments of a wrapped form hold its body as their one member "value"')
  }
  // MCP: arguments are an object; none at all (what `callTool({ name })` sends) is the empty one.
  if (!tool.wrapped && args !== undefined && (args === null || typeof args !== 'object' || Array.isArray(args))) {
    return new Refused('arguments', 'the arguments of a tool are an object')
  }
  return undefined
}

/** The body of a call that sent no arguments. */
const NO_ARGUMENTS = Buffer.from('{}')

/** The arguments' bytes as sent (a wrapped form's `value`): the POST's body. */
function argumentBytes (call: Call): Buffer {
  const [start, end] = spanAt(call.bytes, call.tool.wrapped ? ['params', 'arguments', 'value'] : ['params', 'arguments']) ?? [0, 0]
  return call.bytes.subarray(start, end)
}

function onlyValue (args: object): boolean {
  const keys = Object.keys(args)
  return keys.length === 1 && keys[0] === 'value'
}

const header = (headers: OutgoingHttpHeaders, name: string): string | undefined => {
  const value = headers[name]
  return Array.isArray(value) ? value.join(', ') : value === undefined ? undefined : String(value)
}

/**
 * The address's answer to the POST as a call's: its 200 as the act's result (a job's handle as a
 * link to the job), its refusals as results, and what says "later" as an HTTP answer. The
 * statuses are the address's own (docs/mcp.md has the table).
 */
function answerOf (routed: Routed, call: Call): Answer {
  const { status, headers } = routed
  const retryAfter = Number(header(headers, 'retry-after') ?? Number.NaN)
  switch (status) {
    case 200: return { result: resultOf(routed, call) }
    case 204: return { result: REFUSAL }
    case 400: return { result: MALFORMED } // the Idempotency-Key's
    case 412: return { result: STALE }
    // `explain`'s problem, or a key used with other bytes
    case 422: return { result: header(headers, 'content-type')?.startsWith(PROBLEM) === true ? fixed(routed.body.toString('utf8')) : MISMATCHED }
    case 409:
    case 429:
    case 503:
      if (Number.isSafeInteger(retryAfter)) return { status, retryAfter }
      return { result: TIMED_OUT } // actTimeout's bare 503
    default: return { result: FAILED }
  }
}

const PROBLEM = 'application/problem+json'

/**
 * The act's 200 as a tool's result: its JSON as text always, and, from 2025-06-18, as
 * structuredContent when it is an object, or as that object's `value` where the tool's
 * outputSchema wraps a result form whose root is not one; from 2026-07-28, whatever JSON it is.
 */
function resultOf (routed: Routed, call: Call): string {
  const { hosted, origin, shapes, tool } = call
  const job = jobOf(header(routed.headers, 'link'), hosted)
  // A URI, as the resource_link's must be: an address's path may hold a space or a letter past ASCII.
  if (job !== undefined) return jobResult(handleBody(origin + urlOf(job)), shapes)
  return actResult(routed.body.toString('utf8'), tool, shapes)
}

/** An act's result (its JSON text) as a tool's, as resultOf says. */
export function actResult (payload: string, tool: Tool, shapes: Shapes): string {
  const text = `{"content":[{"type":"text","text":${JSON.stringify(payload)}}]`
  const structured = !shapes.structured
    ? undefined
    : shapes.structuredAny ? payload : tool.output === 'wrapped' ? `{"value":${payload}}` : payload.charCodeAt(0) === 0x7b ? payload : undefined
  return structured !== undefined && isJson(payload) ? `${text},"structuredContent":${structured}}` : `${text}}`
}

/** The job a handle's `Link: <href>; rel="monitor"` names, where it is one of this address's. */
function jobOf (link: string | undefined, hosted: Hosted): string | undefined {
  const base = hosted.background?.base
  if (base === undefined || link === undefined) return undefined
  const match = /^<([^>]*)>; rel="monitor"$/.exec(link)
  const href = match?.[1]
  return href !== undefined && href.startsWith(`${base}/`) ? href : undefined
}

/** Whether a 200's text is JSON (a host's onSend may have made it something else). */
function isJson (text: string): boolean {
  try {
    JSON.parse(text)
    return true
  } catch {
    return false
  }
}

/** A job's handle: its JSON as text; from 2025-06-18, a resource_link to the job address before it, and the JSON structured. */
function jobResult (handle: ReturnType<typeof handleBody>, shapes: Shapes): string {
  const json = JSON.stringify(handle)
  if (!shapes.structured) return `{"content":[{"type":"text","text":${JSON.stringify(json)}}]}`
  const link = { type: 'resource_link', uri: handle.href, name: 'job', mimeType: 'application/json', description: handle.p }
  return `{"content":[${JSON.stringify(link)},{"type":"text","text":${JSON.stringify(json)}}],"structuredContent":${json}}`
}

/** The key was used with other arguments: draft-ietf-httpapi-idempotency-key-header's 422, as a result. */
export const MISMATCHED = fixed('This idempotency key was used with other arguments: call with a new key.')
/** The key is not one (empty, over 255 characters, or characters a String does not hold): its 400. */
export const MALFORMED = fixed('The idempotency key is malformed: send a string of 1 to 255 visible ASCII characters.')
