// The act pipeline (draft §5.2): the bytes of an act within the limit, parsed strictly, checked
// against the edition the actor read, validated against that edition's form, let through by a
// guard, then acted on. One entry, `Pipeline.enter`, holds that order and says how the act came
// out; its doors only turn the outcome into their answer: the address's POST (src/address/act.ts),
// which every other way in (the MCP bridge's tools/call) enters by (src/address/door.ts), and a
// job address's control acts (src/jobs/routes.ts).
import type { ErrorObject, ValidateFunction } from 'ajv/dist/2020.js'
import { actorOf, acts, outcomeOf, refusals, type ActTrace, type Stage, type Via } from '../diagnostics.ts'
import { GPT_ERR_ACT_TIMEOUT } from '../errors.ts'
import { matches } from '../fields.ts'
import { holdTicket, type Given, type Guard, type Passage, type Ticket } from './guard.ts'
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
 * arrival that is no longer `form`'s.
 */
function stale (form: Judged, field: string | undefined): boolean {
  if (field === undefined) return false
  const { json, html } = form.arrival
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

/** How an act ended: its result, what it threw (and how), or LATE past actTimeout. */
export type Settled =
  | { readonly ok: true, readonly value: unknown }
  | { readonly ok: false, readonly error: unknown, readonly how: string }
  | typeof LATE

/** What an act is judged against, read once per act: a form's validator, and the arrival it was published in. */
export interface Judged {
  readonly validate: ValidateFunction
  readonly arrival: { readonly json: { readonly etag: string }, readonly html?: { readonly etag: string } | undefined }
}

/** One act as a door brings it in. */
export interface ActInput {
  /** The body parsed strictly, or its refusal while it was read; undefined where there was none. */
  readonly value: unknown
  /** The body's bytes, where a guard reads them (Guard.wants). */
  readonly bytes: Buffer | undefined
  /** The request's header fields: If-Match, and a guard's key. */
  readonly headers: Readonly<Record<string, unknown>>
  /** Who asks (`request.ip`), for what one client may hold. */
  readonly client: string
  /** GPT-Actor, or an MCP client's name (draft §6: records only). */
  readonly actor: unknown
  readonly via: Via
  /** The request, for its log and for operators (src/diagnostics.ts). */
  readonly request: { readonly log: { debug: (detail: object, message: string) => void } }
}

/**
 * How an act came out: refused at a stage (and so never run), answered by a guard in its stead
 * (a kept answer, a key in use), or run, and how it settled (its ticket told of the answer).
 */
export type Outcome =
  | { readonly kind: 'refused', readonly refused: Refused }
  | { readonly kind: 'given', readonly given: Given }
  | { readonly kind: 'settled', readonly settled: Settled, readonly ticket: Ticket | undefined }

/** The act of one address (or a job's control acts): the stages in their order, for every door. */
export class Pipeline {
  readonly #address: string
  readonly #guard: Guard | undefined
  readonly #actTimeout: number | undefined
  readonly #ifMatch: boolean

  constructor (address: string, options: { readonly guard?: Guard | undefined, readonly actTimeout?: number | undefined, readonly ifMatch: boolean }) {
    this.#address = address
    this.#guard = options.guard
    this.#actTimeout = options.actTimeout
    this.#ifMatch = options.ifMatch
  }

  /**
   * One act against `form` (one edition: stale check and validation read the same): refused
   * where its body or If-Match or the form refuses it, unless its key and bytes were accepted
   * once (the guard's kept answer, whatever the form has become); else let through by the guard
   * and run by `act`, which is handed the value and the guard's ticket.
   */
  enter (input: ActInput, form: Judged, act: (body: unknown, ticket: Ticket | undefined) => unknown): Outcome | Promise<Outcome> {
    const refused = this.#judge(input, form)
    const guard = this.#guard
    if (refused === undefined) {
      if (guard === undefined) return this.#run(input, form, act, undefined)
      const passage = guard.pass(input.headers, input.bytes, input.via, input.client)
      return passage instanceof Promise ? passage.then((given) => this.#pass(input, form, act, given)) : this.#pass(input, form, act, passage)
    }
    // Only a form's (or If-Match's) refusal can meet bytes an act already ran with.
    if (guard === undefined || (refused.stage !== 'schema' && refused.stage !== 'if-match') || !guard.wants(input.headers)) {
      return this.refuse(refused, input, form)
    }
    const kept = guard.kept(input.headers, input.bytes, input.via)
    const answer = (found: Given | undefined): Outcome => found === undefined ? this.refuse(refused, input, form) : this.#given(found, input, form)
    return kept instanceof Promise ? kept.then(answer) : answer(kept)
  }

  /** An act refused at `refused.stage`, told to the log and to operators (never to the actor, draft §5.3). */
  refuse (refused: Refused, input: ActInput, form: Judged | undefined): Outcome & { readonly kind: 'refused' } {
    input.request.log.debug({ reason: refused.reason }, refused.stage === 'if-match' ? 'gpt: act refused, the form changed since its arrival' : 'gpt: act rejected')
    publishRefusal(refused, () => this.#source(input, form))
    return { kind: 'refused', refused }
  }

  /** draft §5.2 (2), Appendix B "Form Change", §5.2 (3): the body as read, its If-Match, its form. */
  #judge (input: ActInput, form: Judged): Refused | undefined {
    const { value } = input
    if (value instanceof Refused) return value
    // No body and no Content-Type: no parser ran; an empty body, not a form's refusal.
    if (value === undefined) return new Refused('parse', 'empty body')
    if (this.#ifMatch && stale(form, input.headers['if-match'] as string | undefined)) return new Refused('if-match', 'the form changed since its arrival')
    const validate = form.validate
    if (validate(value)) return undefined
    const errors = validate.errors ?? []
    return new Refused('schema', reasonOf(errors), false, errors)
  }

  #pass (input: ActInput, form: Judged, act: (body: unknown, ticket: Ticket | undefined) => unknown, passage: Passage): Outcome | Promise<Outcome> {
    if (passage === undefined) return this.#run(input, form, act, undefined)
    if ('ticket' in passage) return this.#run(input, form, act, passage.ticket)
    return this.#given(passage, input, form)
  }

  /** A guard's answer in the act's stead; one that refuses it is told as a refusal. */
  #given (given: Given, input: ActInput, form: Judged): Outcome {
    if (given.refused !== undefined) {
      input.request.log.debug({ reason: given.refused }, 'gpt: act refused')
      publishRefusal(new Refused('idempotency', given.refused), () => this.#source(input, form))
    }
    return { kind: 'given', given }
  }

  #run (input: ActInput, form: Judged, act: (body: unknown, ticket: Ticket | undefined) => unknown, ticket: Ticket | undefined): Outcome | Promise<Outcome> {
    if (ticket !== undefined) holdTicket(input.request, ticket)
    const settled = invoke(() => act(input.value, ticket), this.#actTimeout, () => this.#source(input, form))
    return settled instanceof Promise ? settled.then((done) => ({ kind: 'settled', settled: done, ticket })) : { kind: 'settled', settled, ticket }
  }

  #source (input: ActInput, form: Judged | undefined): Source {
    return { address: this.#address, etag: form?.arrival.json.etag, actor: input.actor, via: input.via, request: input.request }
  }
}

/**
 * Runs the act once. A plain result settles at once, with no promise made for it; a thenable is
 * adopted as `await` would (the first answer counts, a throw from `then` is a rejection; a `then`
 * getter or a revoked proxy may throw before that: still the act's failure), and raced against
 * `actTimeout`, whatever comes second dropped.
 */
function invoke (act: () => unknown, actTimeout: number | undefined, source: () => Source): Settled | Promise<Settled> {
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
