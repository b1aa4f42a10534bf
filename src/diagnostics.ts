// What operators may see of acts and refusals (Appendix B, "Failure Reporting"), never the actor:
// diagnostics_channel messages, published only while someone subscribes, so that an address
// nobody watches pays one property read per act. Their shapes are a stable API
// (docs/observability.md); fastify-gpt/otel (src/otel/) is one subscriber. A leaf: the runtime,
// jobs and the MCP bridge publish through it, and it imports nothing of theirs.
import { channel, tracingChannel } from 'node:diagnostics_channel'

/** Where an act or refusal came in: a POST to the address, or a `tools/call` of the MCP bridge. */
export type Via = 'http' | 'mcp'

/**
 * The stage that refused a body, a closed set: `size` (over bodyLimit), `timeout` (bodyTimeout),
 * `incomplete` (the client went away mid-body), `encoding` (a Content-Encoding that did not
 * decode), `parse` (not one strict JSON text, or empty), `depth` (over maxDepth), `schema` (the
 * form), `if-match` (an edition no longer current), `rate-limit` (the address's limit),
 * `arguments` (an MCP call whose arguments are not where the tool's shape puts a body), and
 * `idempotency` (its Idempotency-Key malformed, used with other bytes, still running, or not held).
 */
export type Stage =
  | 'size' | 'timeout' | 'incomplete' | 'encoding' | 'parse' | 'depth' | 'schema'
  | 'if-match' | 'rate-limit' | 'arguments' | 'idempotency'

/** How an act ended, as its request saw it: its result sent, its failure (or actTimeout), a job handle, or refused for `maxJobs`. */
export type Outcome = 'acted' | 'failed' | 'job' | 'busy'

/** The longest `actor` a message carries: GPT-Actor is the client's to write (draft §6). */
export const ACTOR_LENGTH = 64

/** One refused body: `fastify-gpt.refusal`. */
export interface RefusalMessage {
  /** The address's path; for a job's control act, the job route's (`/orders/jobs/:id`). */
  readonly address: string
  /** The entity tag of the edition current when the body was refused (of the job, for a control act; undefined before the job was read). */
  readonly etag: string | undefined
  readonly stage: Stage
  /** For `schema`: the failed keyword of the first error (`type`, `required`, `pattern`...). */
  readonly keyword: string | undefined
  /** For `schema`: where that keyword stands in the form, as a URI fragment (`#/properties/n/type`). */
  readonly schemaPath: string | undefined
  /** For `schema`: where in the body it failed, a JSON Pointer (`/n`). */
  readonly instancePath: string | undefined
  /** GPT-Actor as sent (or an MCP client's name), at most ACTOR_LENGTH characters. */
  readonly actor: string | undefined
  readonly via: Via
  /** The HTTP request it came in (a Fastify request), for correlation: never sent anywhere by fastify-gpt. */
  readonly request: object
}

/**
 * One act: the context of `tracing:fastify-gpt.act:*`. `start` before the act runs, `end` when
 * its synchronous part returns, `asyncStart` and `asyncEnd` when a promise it returned settles,
 * `error` when it failed; `outcome` is set before `end` (a plain result) or `asyncStart`.
 */
export interface ActTrace {
  readonly address: string
  readonly etag: string | undefined
  readonly actor: string | undefined
  readonly via: Via
  readonly request: object
  outcome?: Outcome
  /** What the act threw or rejected with, or the timeout's error. */
  error?: unknown
}

/** One edition event: `fastify-gpt.edition`. */
export interface EditionMessage {
  readonly address: string
  /** `built`: now served; `stored`: written to the shared store; `refused`: an update or a stored edition not taken. */
  readonly event: 'built' | 'stored' | 'refused'
  /** The stored version (0: never stored). */
  readonly version: number
  /** The edition's entity tag, for `built`. */
  readonly etag: string | undefined
  /** For `refused`: the named error's code and message. */
  readonly code: string | undefined
  readonly reason: string | undefined
}

/** What a channel's subscriber is handed: the message and the channel's name. */
export type Listener = (message: unknown, name: string | symbol) => void

/**
 * A channel as fastify-gpt uses it, typed by its message. Node's own `Channel` and
 * `TracingChannel` are never named in our types: @types/node 26 swapped their type parameters, so
 * any instance of them in a .d.ts breaks a host's strict build under one range or the other.
 */
export interface Published<Message> {
  readonly hasSubscribers: boolean
  publish (message: Message): void
  subscribe (listener: Listener): void
  unsubscribe (listener: Listener): void
}

/** One of the act's channels: its `start` also runs the act with the channel's bound stores. */
export interface ActChannel extends Published<ActTrace> {
  runStores<Result> (context: ActTrace, run: () => Result): Result
}

/** `tracing:fastify-gpt.act:*`, the five channels of Node's TracingChannel. */
export interface ActChannels {
  readonly hasSubscribers: boolean
  readonly start: ActChannel
  readonly end: ActChannel
  readonly asyncStart: ActChannel
  readonly asyncEnd: ActChannel
  readonly error: ActChannel
}

export const refusals: Published<RefusalMessage> = channel('fastify-gpt.refusal')
export const editions: Published<EditionMessage> = channel('fastify-gpt.edition')
export const acts: ActChannels = tracingChannel('fastify-gpt.act')

/** GPT-Actor as a message carries it: a string, cut to ACTOR_LENGTH. */
export function actorOf (value: unknown): string | undefined {
  return typeof value === 'string' ? value.slice(0, ACTOR_LENGTH) : undefined
}

/** The request's outcome where the act's value does not say it (a job handle, a 503 for maxJobs), noted by jobs/. */
const noted = new WeakMap<object, Outcome>()

/** Notes `request`'s outcome, while anyone traces acts. */
export function noteOutcome (request: object, outcome: Outcome): void {
  if (acts.hasSubscribers) noted.set(request, outcome)
}

/** The outcome noted for `request`, else `fallback`. */
export function outcomeOf (request: object, fallback: Outcome): Outcome {
  return noted.get(request) ?? fallback
}

/** Tells subscribers of `fastify-gpt.edition` of one event; `error` (for `refused`) a named error. */
export function publishEdition (address: string, event: EditionMessage['event'], version: number, etag?: string, error?: unknown): void {
  if (!editions.hasSubscribers) return
  const { code, message } = (error ?? {}) as { code?: unknown, message?: unknown }
  editions.publish({
    address,
    event,
    version,
    etag,
    code: typeof code === 'string' ? code : undefined,
    reason: error === undefined ? undefined : String(message ?? error)
  } satisfies EditionMessage)
}
