// The act pipeline (draft §5.2): the bytes of an act within the limit, parsed strictly, checked
// against the edition the actor read, validated against that edition's form, then acted on. POST
// runs these stages through Fastify's body parser, validator compiler and handler
// (src/address/act.ts); every other way in (the MCP bridge's tools/call) enters by that same POST
// route (src/address/door.ts), so there is one path, in one order.
import type { ErrorObject } from 'ajv/dist/2020.js'
import { actorOf, acts, outcomeOf, refusals, type ActTrace, type Stage, type Via } from '../diagnostics.ts'
import { GPT_ERR_ACT_TIMEOUT } from '../errors.ts'
import { matches } from '../fields.ts'
import type { Edition } from './address.ts'
import type { Passage } from './guard.ts'
import { parse, ParseError } from '../parse/parse.ts'
import { isThenable, LATE, within } from './settle.ts'

/**
 * An act refused before it ran: at which stage, and why (for operators and `explain`; draft §5.3:
 * never for the actor). `unread`: the rest of the body may still come, so its connection is closed
 * after the answer. `errors`: the form's failed constraints, where validation refused it.
 */
export class Refused {
  constructor (readonly stage: Stage, readonly reason: string, readonly unread = false, readonly errors?: unknown) {}
}

/**
 * Errors about the body itself: Fastify's content-type parsing, and @fastify/compress's decoding
 * of a Content-Encoding it does not support (its preParsing hook). draft §5.3: a body refused for
 * any reason gets the same answer.
 */
const BODY_ERROR = /^(?:FST_ERR_CTP_|FST_CP_ERR_)/

/**
 * What an error on Fastify's path says outside the act: a rate limit's 429 (an answer outside the
 * protocol), a body refused by Fastify or a host's hook before the pipeline read it, or neither.
 */
export function outsideProtocol (error: { readonly statusCode?: number | undefined, readonly code?: unknown }): 'rate limited' | 'body' | undefined {
  if (error.statusCode === 429) return 'rate limited'
  return typeof error.code === 'string' && BODY_ERROR.test(error.code) ? 'body' : undefined
}

/** The refusal of a body Fastify or a host's hook refused before the pipeline read it (outsideProtocol's `body`). */
export function refusedBody (code: string): Refused {
  if (code.startsWith('FST_CP_ERR_')) return new Refused('encoding', code)
  return new Refused(code === 'FST_ERR_CTP_BODY_TOO_LARGE' || code === 'FST_ERR_CTP_INVALID_CONTENT_LENGTH' ? 'size' : 'parse', code)
}

/** What the parse stage needs of an address's settings. */
export interface ParseLimits {
  readonly bodyLimit: number
  readonly maxDepth: number
}

/**
 * draft §5.2 (1), (2): the bytes within the body limit, parsed strictly. `told`: the reason
 * names where a duplicate stands, which takes a second pass (for `explain` or a debug log).
 */
export function readValue (bytes: Buffer, limits: ParseLimits, told: boolean): unknown {
  if (bytes.length > limits.bodyLimit) return new Refused('size', 'body over the limit')
  try {
    return parse(bytes, { maxDepth: limits.maxDepth })
  } catch (error) {
    if (!(error instanceof ParseError)) return new Refused('parse', 'unparsable')
    return new Refused(error.reason === 'depth' ? 'depth' : 'parse', told ? error.describe() : error.message)
  }
}

/** Whether a refusal's reason says where a duplicate stands: a second pass, for `explain` or a debug log. */
export function told (settings: { readonly explain: boolean }, request: { readonly log: object }): boolean {
  return settings.explain || (request.log as { isLevelEnabled?: (level: string) => boolean }).isLevelEnabled?.('debug') === true
}

/**
 * Appendix B, "Form Change": whether an act naming the entity tag `field` (an If-Match) read an
 * arrival that is no longer `edition`'s.
 */
export function stale (edition: Edition, field: string | undefined): boolean {
  if (field === undefined) return false
  const { json, html } = edition.arrival
  return !matches(field, json.etag, false) && (html === undefined || !matches(field, html.etag, false))
}

/** How many failed constraints the log's reason names. */
const REASONS = 8

/** The log's reason for failed constraints: the first few (each `$ref` passes on a few, src/form/bounded.ts). */
export function reasonOf (errors: readonly Pick<ErrorObject, 'instancePath' | 'message'>[], dataVar = 'body'): string {
  const shown = errors.slice(0, REASONS).map((e) => `${dataVar}${e.instancePath} ${e.message ?? ''}`)
  if (errors.length > REASONS) shown.push(`and ${errors.length - REASONS} more`)
  return shown.join(', ')
}

/** Who a refusal or an act is told of as (src/diagnostics.ts): the address, and where and from whom it came. */
export interface Source {
  readonly address: string
  /** The entity tag of the edition (or job) the body was judged against; undefined where none was read yet. */
  readonly etag: string | undefined
  /** GPT-Actor, or an MCP client's name (draft §6: records only). */
  readonly actor: unknown
  readonly via: Via
  readonly request: object
}

/**
 * Tells subscribers of `fastify-gpt.refusal` that `refused` was refused, with the first failed
 * keyword where the form refused it. Nothing is built while nobody subscribes.
 */
export function publishRefusal (refused: Refused, source: () => Source): void {
  if (!refusals.hasSubscribers) return
  const { address, etag, actor, via, request } = source()
  const first = refused.stage === 'schema' && Array.isArray(refused.errors) ? refused.errors[0] as Partial<ErrorObject> | undefined : undefined
  refusals.publish({
    address,
    etag,
    stage: refused.stage,
    keyword: first?.keyword,
    schemaPath: first?.schemaPath,
    instancePath: first?.instancePath,
    actor: actorOf(actor),
    via,
    request
  })
}

/** A guard's answer in an act's stead that refuses it (src/address/guard.ts): to the log and to operators, by POST and tools/call alike. */
export function refusedBy (passage: Passage, request: { readonly log: { debug: (detail: object, message: string) => void } }, source: () => Source): void {
  if (passage === undefined || !('answer' in passage) || passage.refused === undefined) return
  request.log.debug({ reason: passage.refused }, 'gpt: act refused')
  publishRefusal(new Refused('idempotency', passage.refused), source)
}

/** How an act ended: its result, what it threw (and how), or LATE past actTimeout. */
export type Settled =
  | { readonly ok: true, readonly value: unknown }
  | { readonly ok: false, readonly error: unknown, readonly how: string }
  | typeof LATE

/**
 * Runs the act once. A plain result settles at once, with no promise made for it; a thenable is
 * adopted as `await` would (the first answer counts, a throw from `then` is a rejection; a `then`
 * getter or a revoked proxy may throw before that: still the act's failure), and raced against
 * `actTimeout`, whatever comes second dropped.
 */
export function invoke (act: () => unknown, actTimeout: number | undefined, source: () => Source): Settled | Promise<Settled> {
  if (!acts.hasSubscribers) return run(act, actTimeout)
  const { address, etag, actor, via, request } = source()
  return traced({ address, etag, actor: actorOf(actor), via, request }, () => run(act, actTimeout), actTimeout)
}

function run (act: () => unknown, actTimeout: number | undefined): Settled | Promise<Settled> {
  let settled: Promise<unknown>
  try {
    const result = act()
    if (!isThenable(result)) return { ok: true, value: result }
    settled = Promise.resolve(result)
  } catch (error) {
    return { ok: false, error, how: 'it threw' }
  }
  const rejected = (error: unknown): Settled => ({ ok: false, error, how: 'its promise rejected' })
  if (actTimeout === undefined) return settled.then((value) => ({ ok: true, value }), rejected)
  return within(settled, actTimeout).then((value) => value === LATE ? LATE : { ok: true, value }, rejected)
}

/**
 * The act inside `tracing:fastify-gpt.act:*`, as TracingChannel's traceSync and tracePromise
 * publish: start (with the channel's bound stores), then end; a promise's settling then asyncStart
 * and asyncEnd; error before those where it failed. `run` never throws: invoke catches.
 */
function traced (context: ActTrace, run: () => Settled | Promise<Settled>, actTimeout: number | undefined): Settled | Promise<Settled> {
  return acts.start.runStores(context, () => {
    const settled = run()
    if (settled instanceof Promise) {
      acts.end.publish(context)
      return settled.then((value) => {
        if (ended(context, value, actTimeout)) acts.error.publish(context)
        acts.asyncStart.publish(context)
        acts.asyncEnd.publish(context)
        return value
      })
    }
    if (ended(context, settled, actTimeout)) acts.error.publish(context)
    acts.end.publish(context)
    return settled
  })
}

/** Sets the context's outcome (and error) from how the act settled: whether it failed. */
function ended (context: ActTrace, settled: Settled, actTimeout: number | undefined): boolean {
  if (settled !== LATE && settled.ok) {
    context.outcome = outcomeOf(context.request, 'acted')
    return context.outcome === 'failed'
  }
  context.outcome = 'failed'
  context.error = settled === LATE ? new GPT_ERR_ACT_TIMEOUT(context.address, `${actTimeout ?? 0} ms`) : settled.error
  return true
}

export { LATE }
