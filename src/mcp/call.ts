// tools/call: an act on an address through the same pipeline as its POST (src/address/pipeline.ts):
// the arguments' bytes as sent, within the body limit, parsed strictly, checked against the
// edition the tool was listed from where the call names it, validated against that edition's
// form, then acted on, with actTimeout. Every refusal, whatever its cause, is one result.
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { Edition } from '../address/address.ts'
import { invoke, judge, LATE, publishRefusal, readValue, Refused, refusedBy, stale, told, type Settled, type Source } from '../address/pipeline.ts'
import { handleBody, type Ran } from '../jobs/run.ts'
import { UNKEPT, wasUnrun, type Answer as Kept, type Passage } from '../address/guard.ts'
import type { Hosted } from './registry.ts'
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

/** What a call comes to: a result (JSON text), or an HTTP answer outside the protocol (429, 503). */
export type Answer =
  | { readonly result: string }
  | { readonly status: 409 | 429 | 503, readonly retryAfter: number }

/** One call's facts, besides the request it came in. */
export interface Call {
  readonly hosted: Hosted
  readonly tool: Tool
  readonly edition: Edition
  /** The whole JSON-RPC request, already accepted by the strict parser. */
  readonly bytes: Buffer
  /** Its `params.arguments`, as parsed. */
  readonly args: unknown
  /** The depth the strict parser allowed the whole request: the arguments' is at most 2 less (3, a wrapped form's `value`). */
  readonly depth: number
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
}

export async function callTool (call: Call, request: FastifyRequest, reply: FastifyReply): Promise<Answer> {
  const { hosted, edition } = call
  const { settings } = hosted
  const source = (): Source => ({ address: settings.path, etag: edition.arrival.json.etag, actor: call.actor, via: 'mcp', request })
  // Calls and posts are counted together, per client, by the address's own limit.
  if (hosted.count !== undefined) {
    const wait = await hosted.count(request)
    if (wait !== undefined) {
      publishRefusal(new Refused('rate-limit', 'rate limited'), source)
      return { status: 429, retryAfter: wait }
    }
  }

  const value = bodyOf(call, settings, told(settings, request))
  if (settings.ifMatch && stale(edition, call.ifMatch)) {
    request.log.debug('gpt: act refused, the form changed since its arrival')
    publishRefusal(new Refused('if-match', 'the form changed since its arrival'), source)
    return { result: STALE }
  }
  const refused = judge(edition, value)
  if (refused !== undefined) return { result: refusal(refused, settings.explain, request, source) }

  const run = async (): Promise<Answer> => {
    request.gptActor = call.actor
    request.log.info({ gptActor: call.actor }, 'gpt: act')
    const background = hosted.background
    const act = background === undefined
      ? () => settings.act(value as never, request, reply)
      : () => background.start(value as never, request, reply, { wait: background.after, progress: call.progress })
    const settled = await invoke(act, settings.actTimeout, source)
    return answer(settled, background === undefined ? undefined : call.origin, request, reply)
  }
  const { guard } = settings
  if (guard === undefined || call.idempotencyKey === undefined) return run()
  const passage = await guard.pass({ [KEY_FIELD]: call.idempotencyKey }, argumentBytes(call), 'mcp')
  refusedBy(passage, request, source)
  return guarded(passage, run, request)
}

/** The arguments' bytes as sent (a wrapped form's `value`): read again past the bounds, and an Idempotency-Key's fingerprint. */
function argumentBytes (call: Call): Buffer {
  const [start, end] = spanAt(call.bytes, call.tool.wrapped ? ['params', 'arguments', 'value'] : ['params', 'arguments']) ?? [0, 0]
  return call.bytes.subarray(start, end)
}

/**
 * The call's body: its arguments (or their `value`, for a wrapped form), read as POST reads its
 * body. The strict parser has read the whole request, so every rule of §5.2 (2) held for the
 * arguments too; what is left is the address's own bounds. Where the whole request is within its
 * `bodyLimit` and the depth allowed it leaves the arguments within its `maxDepth`, they hold, and
 * the value parsed is the body; else the arguments' bytes as sent are found and read again.
 */
function bodyOf (call: Call, limits: Hosted['settings'], explained: boolean): unknown {
  const { args, tool } = call
  if (tool.wrapped && (args === null || typeof args !== 'object' || Array.isArray(args) || !onlyValue(args))) {
    return new Refused('arguments', 'the arguments of a wrapped form hold its body as their one member "value"')
  }
  if (args === undefined) return new Refused('arguments', 'the call has no arguments')
  if (call.bytes.length <= limits.bodyLimit && call.depth - (tool.wrapped ? 3 : 2) <= limits.maxDepth) {
    return tool.wrapped ? (args as { value: unknown }).value : args
  }
  // They were parsed from these bytes, so they are there; were they not, nothing would be read
  // (an empty body, refused).
  return readValue(argumentBytes(call), limits, explained)
}

function onlyValue (args: object): boolean {
  const keys = Object.keys(args)
  return keys.length === 1 && keys[0] === 'value'
}

/** How many failed constraints an `explain` answer lists, as POST's 422 does. */
const EXPLAINED = 100

/** The result refusing a call: the one REFUSAL, or with `explain` what POST's 422 says. */
export function refusal (refused: Refused, explain: boolean, request: FastifyRequest, source: () => Source): string {
  request.log.debug({ reason: refused.reason }, 'gpt: act rejected')
  publishRefusal(refused, source)
  if (!explain) return REFUSAL
  const all = Array.isArray(refused.errors) ? refused.errors : undefined
  const shown = all !== undefined && all.length > EXPLAINED ? { errors: all.slice(0, EXPLAINED), omitted: all.length - EXPLAINED } : { errors: refused.errors }
  const problem = { type: 'about:blank', title: 'The body was rejected', status: 422, detail: refused.reason, ...shown }
  return fixed(JSON.stringify(problem))
}

/** The act's result as a tool's: its JSON as text always, and as structuredContent when it is an object. */
function answer (settled: Settled, origin: string | undefined, request: FastifyRequest, reply: FastifyReply): Answer {
  if (settled === LATE) {
    request.log.warn('gpt: act timed out')
    return { result: TIMED_OUT }
  }
  if (!settled.ok) return failed(settled.error, settled.how, request)
  let value = settled.value
  if (origin !== undefined) { // with background: how the act ran (src/jobs/run.ts)
    const ran = value as Ran
    if (ran.kind === 'busy' || ran.kind === 'lost') {
      if (ran.kind === 'busy') request.log.warn('gpt: act refused, maxJobs reached')
      return { status: 503, retryAfter: ran.retryAfter }
    }
    // A URI, as the resource_link's must be: an address's path may hold a space or a letter past ASCII.
    if (ran.kind === 'job') return { result: jobResult(handleBody(origin + encodeURI(ran.href))) }
    value = ran.value
  }
  if (reply.sent) return failed(new Error('the act answered the HTTP request by itself'), 'it answered by itself', request)
  let payload: string | undefined
  try {
    payload = JSON.stringify(value)
  } catch (error) {
    return failed(error, 'its result cannot be sent as JSON', request)
  }
  payload ??= 'null'
  const text = `{"content":[{"type":"text","text":${JSON.stringify(payload)}}]`
  return { result: payload.charCodeAt(0) === 0x7b ? `${text},"structuredContent":${payload}}` : `${text}}` }
}

/** A job's handle: a resource_link to the job address, and the handle's JSON as text and structured. */
function jobResult (handle: ReturnType<typeof handleBody>): string {
  const json = JSON.stringify(handle)
  const link = { type: 'resource_link', uri: handle.href, name: 'job', mimeType: 'application/json', description: handle.p }
  return `{"content":[${JSON.stringify(link)},{"type":"text","text":${JSON.stringify(json)}}],"structuredContent":${json}}`
}

function failed (error: unknown, how: string, request: FastifyRequest): Answer {
  request.log.error({ err: error instanceof Error ? error : undefined, how }, 'gpt: act failed')
  return { result: FAILED }
}

// tools/call under an Idempotency-Key (docs/idempotency.md): the address's guard, its POST's,
// keeps a call's result under its key apart from POST's answers and answers a retry with the same
// result text; its other answers become a call's.

/** The request header field a call's key may come in, when its `_meta` names none. */
export const KEY_FIELD = 'idempotency-key'

/** The key was used with other arguments: draft-ietf-httpapi-idempotency-key-header's 422, as a result. */
export const MISMATCHED = fixed('This idempotency key was used with other arguments: call with a new key.')
/** The key is not one (empty, over 255 characters, or characters a String does not hold): its 400. */
export const MALFORMED = fixed('The idempotency key is malformed: send a string of 1 to 255 visible ASCII characters.')

/** Runs the call as the guard says, and tells it the result. */
export async function guarded (passage: Passage, run: () => Promise<Answer>, request: FastifyRequest): Promise<Answer> {
  if (passage === undefined) return run()
  if ('answer' in passage) return fromKept(passage.answer)
  const answered = await run()
  if ('result' in answered) passage.ticket.done({ status: 200, headers: {}, body: answered.result })
  else if (wasUnrun(request)) passage.ticket.free() // maxJobs: it never ran
  else passage.ticket.done(UNKEPT)
  return answered
}

/** A guard's answer as a call's: a kept result, a refusal as a result, or an HTTP answer outside the protocol. */
function fromKept (kept: Kept): Answer {
  const retryAfter = Number(kept.headers['retry-after'] ?? 1)
  switch (kept.status) {
    case 200: return { result: kept.body }
    case 400: return { result: MALFORMED }
    case 409: return { status: 409, retryAfter }
    case 422: return { result: MISMATCHED }
    case 503: return { status: 503, retryAfter }
    default: return { result: FAILED } // the act ran and its result is not kept (its process was lost)
  }
}
