import type {
  FastifyError,
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  FastifySchemaValidationError,
  preValidationHookHandler
} from 'fastify'
import type { Address } from './address.ts'
import { matches, quiet } from './arrival.ts'
import { GPT_ERR_ACT_FAILED, GPT_ERR_ACT_TIMEOUT, GPT_ERR_FORM_INVALID } from '../errors.ts'
import { openapiRoute } from './openapi.ts'
import type { Settings } from './options.ts'
import { parse, ParseError } from '../parse/parse.ts'
import { headerNames, headersOf, onSendOff, removeHeader, restoreOnSend, withoutOnSend } from './fastify-internals.ts'
import { isThenable, LATE, within } from './settle.ts'

declare module 'fastify' {
  interface FastifyRequest {
    /** The self-asserted GPT-Actor request header: for records only, never for access (draft §6). */
    gptActor: string | undefined
  }
}

const JSON_TYPE = 'application/json; charset=utf-8'

/**
 * A body refused before validation; the handler answers it like any other rejection. `unread`:
 * the rest of the body may still come, so the connection is closed after the answer.
 */
class Rejected {
  constructor (readonly reason: string, readonly unread = false) {}
}

type Reject = (request: FastifyRequest, reply: FastifyReply, reason: string, errors?: unknown) => FastifyReply

/**
 * draft §5.3: every rejection is the same bare 204, whatever its cause, so a client learns nothing
 * about which constraint failed; the reason goes to the log for operators. With `explain` (an
 * answer to Appendix B, "Failure Reporting", for addresses under development) it is a 422
 * problem+json that says why.
 */
function rejecter (explain: boolean): Reject {
  if (!explain) {
    return (request, reply, reason) => {
      request.log.debug({ reason }, 'gpt: act rejected')
      closeIfUnread(request, reply)
      return reply.code(204).send()
    }
  }
  return (request, reply, reason, errors) => {
    request.log.debug({ reason }, 'gpt: act rejected')
    closeIfUnread(request, reply)
    // An array of thousands of wrong items fails thousands of times: the first ones say enough.
    const all = Array.isArray(errors) ? errors : undefined
    const shown = all !== undefined && all.length > EXPLAINED ? { errors: all.slice(0, EXPLAINED), omitted: all.length - EXPLAINED } : { errors }
    const problem = { type: 'about:blank', title: 'The body was rejected', status: 422, detail: reason, ...shown }
    return reply.code(422).header('content-type', 'application/problem+json').send(JSON.stringify(problem))
  }
}

/** How many failed constraints an `explain` answer lists. */
const EXPLAINED = 100

/**
 * Errors about the body itself: Fastify's content-type parsing, and @fastify/compress's decoding
 * of a Content-Encoding it does not support (its preParsing hook). draft §5.3: a body refused for
 * any reason gets the same answer.
 */
const BODY_ERROR = /^(?:FST_ERR_CTP_|FST_CP_ERR_)/

/**
 * The act: a POST route on the address's own (encapsulated) instance, with everything it needs
 * installed there and nowhere else.
 */
export function installAct (instance: FastifyInstance, address: Address, settings: Settings): void {
  if (settings.explain && process.env['NODE_ENV'] === 'production') {
    instance.log.warn({ address: settings.path }, 'gpt: explain is on in production: rejected bodies are told why they failed')
  }
  const reject = rejecter(settings.explain)
  installBodyParser(instance, settings)

  instance.setErrorHandler(function onError (error: FastifyError, request, reply) {
    if (error.statusCode === 429) return reply.code(429).send() // rate limited: outside the protocol
    if (typeof error.code === 'string' && BODY_ERROR.test(error.code)) return reject(request, reply, error.code)
    throw error // not ours (a host hook, a failed act): the host's error handler decides
  })

  // draft §5.2 (3): the body is validated against the same value of s that GET returns: the
  // current edition's validator, compiled from the form its arrival was serialized from.
  const initial = address.current.content.form
  instance.setValidatorCompiler(({ schema }) => {
    if (schema !== initial) throw new GPT_ERR_FORM_INVALID(address.path, 'Fastify offered a schema other than the form')
    const validate = (body: unknown): boolean => {
      if (body instanceof Rejected) return true // refused already: the handler answers it
      const current = address.current.validate
      const valid = current(body)
      validate.errors = current.errors ?? null
      return valid
    }
    validate.errors = null as FastifySchemaValidationError[] | null
    return validate
  })

  const doc = openapiRoute(settings, 'act')
  instance.post('/', {
    schema: { body: initial, ...doc.schema },
    config: doc.config,
    attachValidation: true,
    schemaErrorFormatter: validationFailure,
    bodyLimit: settings.bodyLimit,
    onSend: actSend,
    ...(settings.ifMatch ? { preValidation: ifMatchGuard(address) } : {})
  }, actHandler(settings, reject))
}

/**
 * A body that fails the form is an expected event, not a fault: its error carries no stack trace
 * (capturing one costs more than the validation), only the reason for the log, from the first few
 * errors (each `$ref` passes on at most a few, see src/form/bounded.ts).
 */
function validationFailure (errors: FastifySchemaValidationError[], dataVar: string): Error {
  const limit = Error.stackTraceLimit
  Error.stackTraceLimit = 0
  try {
    const shown = errors.slice(0, REASONS).map((e) => `${dataVar}${e.instancePath} ${e.message ?? ''}`)
    if (errors.length > REASONS) shown.push(`and ${errors.length - REASONS} more`)
    return new Error(shown.join(', '))
  } finally {
    Error.stackTraceLimit = limit
  }
}

/** How many failed constraints the log's reason names. */
const REASONS = 8

/**
 * Opt-in answer to Appendix B, "Form Change": an act that echoes the entity tag of an arrival that
 * is no longer current is refused with 412 and not run. A synchronous hook, so it reads the same
 * edition that validation reads right after it.
 */
function ifMatchGuard (address: Address): preValidationHookHandler {
  return function ifMatch (request, reply, done) {
    const field = request.headers['if-match']
    if (field !== undefined) {
      const { json, html } = address.current.arrival
      if (!matches(field, json.etag, false) && (html === undefined || !matches(field, html.etag, false))) {
        request.log.debug('gpt: act refused, the form changed since its arrival')
        reply.code(412).send()
        return
      }
    }
    done()
  }
}

/**
 * The body, whatever the Content-Type says: the draft's appendix posts with `curl -d@-`
 * (form-urlencoded) and people post text/plain; it is JSON by contract. Read as raw bytes up to the
 * limit and parsed strictly (draft §5.2 (1), (2)). Failures become a `Rejected` body rather than an
 * error, so they take the handler's path to the same answer as a schema failure (Fastify's error
 * path would add `connection: close` to some causes only).
 */
function installBodyParser (instance: FastifyInstance, settings: Settings): void {
  const { bodyLimit, bodyTimeout, maxDepth } = settings
  instance.removeAllContentTypeParsers()
  const deadlines = new Deadlines(bodyTimeout)
  const parser = (request: FastifyRequest, payload: NodeJS.ReadableStream, done: (error: Error | null, body?: unknown) => void): void => {
    readBody(request, payload, bodyLimit, deadlines, (bytes) => {
      if (bytes instanceof Rejected) return done(null, bytes)
      try {
        done(null, parse(bytes, { maxDepth }))
      } catch (error) {
        // Where a duplicate stands takes a second pass: only for `explain` or a debug log.
        const told = settings.explain || (request.log as { isLevelEnabled?: (level: string) => boolean }).isLevelEnabled?.('debug') === true
        done(null, new Rejected(error instanceof ParseError ? (told ? error.describe() : error.message) : 'unparsable'))
      }
    })
  }
  // The same parser under the media types actors send, which Fastify looks up from a cache,
  // and under '*' for every other (the catch-all is matched anew on each request).
  for (const type of ['application/json', 'text/plain', 'application/x-www-form-urlencoded', '*']) {
    instance.addContentTypeParser(type, parser)
  }
}

/**
 * The bodies being read and the time by which each must be in (draft §7.4), under one timer armed
 * for the earliest: a timer set and cleared for every act was a measurable share of a small act's
 * CPU (docs/benchmarks.md, "Where the time goes"). One timeout for all, so the order of arrival
 * is the order of the deadlines: a list linked in that order, which adds at its end and takes out
 * anywhere without hashing. The timer is unref'd: it never keeps a process alive by itself.
 */
class Deadlines {
  #first: Pending | undefined
  #last: Pending | undefined
  #timer: ReturnType<typeof setTimeout> | undefined
  constructor (readonly timeout: number) {}

  /** Calls `expire` once `timeout` ms have passed, unless `remove` of what it returns comes first. */
  add (expire: () => void): Pending {
    const pending: Pending = { deadline: performance.now() + this.timeout, expire, previous: this.#last, next: undefined }
    if (this.#last === undefined) this.#first = pending
    else this.#last.next = pending
    this.#last = pending
    if (this.#timer === undefined) this.#arm(this.timeout)
    return pending
  }

  /** Takes `pending` out, if it is still in. */
  remove (pending: Pending): void {
    const { previous, next } = pending
    if (previous === undefined ? this.#first !== pending : previous.next !== pending) return
    if (previous === undefined) this.#first = next
    else previous.next = next
    if (next === undefined) this.#last = previous
    else next.previous = previous
    pending.previous = pending.next = undefined // holds no other read's closures (and bodies) alive
  }

  #arm (ms: number): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer) // an expired read's answer started another
    this.#timer = setTimeout(this.#sweep, Math.max(1, ms))
    this.#timer.unref()
  }

  readonly #sweep = (): void => {
    this.#timer = undefined
    const now = performance.now()
    for (let pending = this.#first; pending !== undefined; pending = this.#first) {
      if (pending.deadline > now) return this.#arm(pending.deadline - now)
      this.remove(pending)
      pending.expire()
    }
  }
}

/** A body being read, in Deadlines' list. */
interface Pending {
  readonly deadline: number
  readonly expire: () => void
  previous: Pending | undefined
  next: Pending | undefined
}

/**
 * Reads at most `limit` bytes within the deadlines' timeout of starting: a declared Content-Length
 * over the limit is refused before reading (draft §5.2 (1), §7.4). Calls back once, with the bytes
 * or with why they were refused.
 */
function readBody (request: FastifyRequest, payload: NodeJS.ReadableStream, limit: number, deadlines: Deadlines, then: (bytes: Buffer | Rejected) => void): void {
  const declared = Number(request.headers['content-length'])
  if (declared > limit) return then(new Rejected('body over the limit'))
  const chunks: Buffer[] = []
  let length = 0
  // The listeners stay on the stream, which is the request's and goes with it: taking four off
  // cost more than the calls that come after the end (a 'close', say) and find `finished`.
  let finished = false
  const finish = (outcome: Buffer | Rejected): void => {
    if (finished) return
    finished = true
    deadlines.remove(pending)
    then(outcome)
  }
  const onData = (chunk: Buffer): void => {
    if (finished) return // past the limit or the deadline: the rest is let go
    length += chunk.length
    if (length > limit) return finish(new Rejected('body over the limit'))
    chunks.push(chunk)
  }
  const onEnd = (): void => finish(chunks.length === 1 ? chunks[0] as Buffer : Buffer.concat(chunks, length))
  const onGone = (): void => finish(new Rejected('body not received: the client went away'))
  // A host's preParsing hook may hand on a stream of its own (a decoder of Content-Encoding).
  const onError = (): void => finish(new Rejected('body not received: its stream failed (a Content-Encoding that does not decode?)'))
  // The whole body within the timeout, not each piece: a trickle would otherwise hold the connection.
  const expire = (): void => finish(new Rejected(`body not received within bodyTimeout (${deadlines.timeout} ms)`, true))
  const pending = deadlines.add(expire)
  payload.on('data', onData)
  payload.on('end', onEnd)
  payload.on('error', onError)
  payload.on('close', onGone)
  // A stream a host's preParsing hook paused (@fastify/compress's decoder) stays paused when a
  // 'data' listener is added: read it, as Fastify's own parsers do.
  payload.resume()
}

/** POST: the body has been parsed and validated by Fastify against the form; act on it. */
function actHandler (settings: Settings, reject: Reject) {
  const { act, actTimeout, path } = settings
  return function onAct (request: FastifyRequest, reply: FastifyReply): FastifyReply | Promise<FastifyReply> {
    // Where the route has no hook but the act's onSend, it comes off while no failed act is on
    // its way through the error path (see actSend): every other answer is made here.
    if (failing === 0) withoutOnSend(reply)
    const body = request.body
    if (body instanceof Rejected) return reject(request, reply, body.reason)
    const invalid = request.validationError
    if (invalid !== undefined) return reject(request, reply, invalid.message, invalid.validation)
    if (body === undefined) return reject(request, reply, 'empty body')

    const actor = request.headers['gpt-actor']
    request.gptActor = typeof actor === 'string' ? actor : undefined
    request.log.info({ gptActor: request.gptActor }, 'gpt: act')

    const outcome = new Outcome(request, reply, path)
    let result: unknown
    let settled: Promise<unknown> | undefined
    try {
      result = act(body as never, request, reply)
      // Adopted as `await` would: the first answer counts, a throw from `then` is a rejection. A
      // `then` getter or a revoked proxy may throw before that: still the act's failure.
      if (isThenable(result)) settled = Promise.resolve(result)
    } catch (error) {
      return outcome.failed(error, 'it threw') // throws the error Fastify's error path takes
    }
    // A plain result answers at once, with no promise made for it.
    if (settled === undefined) return outcome.respond(result)
    const rejected = (error: unknown): FastifyReply => outcome.failed(error, 'its promise rejected')
    if (actTimeout === undefined) return settled.then(outcome.respond, rejected)
    // The first of the act's answer and the timer decides; whatever comes second is dropped.
    return within(settled, actTimeout).then((value) => value === LATE ? outcome.timedOut(actTimeout) : outcome.respond(value), rejected)
  }
}

/** A failed act's answer: its status and the headers the reply had before the act ran. */
interface Failure {
  readonly status: 500 | 503
  readonly headers: ReturnType<FastifyReply['getHeaders']>
  /** Its answer has passed actSend once (and left `failing`). */
  answered: boolean
}

/** The acts that failed and went to Fastify's error path, until their bare answer is sent. */
const failures = new WeakMap<FastifyRequest, Failure>()

/**
 * The answer to one act. A failure leaves by Fastify's error path, as a named error whose `cause`
 * is what the act threw, so that the host's onError hooks and error handler see it; whatever the
 * error handler answers, `bareFailure` sends the client a bare 500 (or 503) and nothing else.
 */
class Outcome {
  readonly #request: FastifyRequest
  readonly #reply: FastifyReply
  readonly #path: string
  /** The headers before the act ran: a failed act's 500 carries these and nothing it set. */
  readonly #headers: ReturnType<FastifyReply['getHeaders']>

  constructor (request: FastifyRequest, reply: FastifyReply, path: string) {
    this.#request = request
    this.#reply = reply
    this.#path = path
    this.#headers = headersOf(reply)
  }

  readonly respond = (result: unknown): FastifyReply => {
    const reply = this.#reply
    if (reply.sent) return reply // the act answered by itself
    let payload: string | undefined
    try {
      payload = JSON.stringify(result)
    } catch (error) {
      return this.failed(error, 'its result cannot be sent as JSON')
    }
    if (onSendOff(reply)) quiet(reply) // else actSend does (off: only the act itself can have set one)
    return reply.code(200).header('content-type', JSON_TYPE).send(payload ?? 'null')
  }

  /**
   * An act that failed: throws the error for Fastify's error path; an act that answered by itself
   * has no error path left, so its failure is only logged.
   */
  failed (error: unknown, how: string): FastifyReply {
    if (this.#reply.sent) {
      this.#request.log.error({ err: errorOf(error) }, 'gpt: act failed')
      return this.#reply
    }
    this.#failing(500)
    throw new GPT_ERR_ACT_FAILED(this.#path, how, { cause: errorOf(error) })
  }

  /** An act past `actTimeout`: 503 by Fastify's error path; whatever it produces later is dropped. */
  timedOut (actTimeout: number): FastifyReply {
    if (this.#reply.sent) {
      this.#request.log.warn('gpt: act timed out')
      return this.#reply
    }
    this.#failing(503)
    throw new GPT_ERR_ACT_TIMEOUT(this.#path, `${actTimeout} ms`)
  }

  /** Marks the act failed, and puts the act's onSend back on its route for the answer to come. */
  #failing (status: 500 | 503): void {
    failures.set(this.#request, { status, headers: this.#headers, answered: false })
    failing++
    restoreOnSend(this.#reply, actSend)
  }
}

/**
 * What the act threw, as the error handler and loggers may read it: an Error as it is, anything
 * else (a string, a revoked proxy, an object whose getters throw) is left out, since reading it
 * may throw inside the host's error handler.
 */
function errorOf (thrown: unknown): Error | undefined {
  try {
    return thrown instanceof Error && typeof thrown.message === 'string' && typeof thrown.stack === 'string' ? thrown : undefined
  } catch {
    return undefined
  }
}

/**
 * Failed acts between their failure and their answer. While any is, no act's route loses its
 * onSend: the answer a host's error handler makes for it must pass through actSend. (One that
 * never reaches actSend only keeps the hook on, which costs time, not correctness.)
 */
let failing = 0

/**
 * The act's own onSend: after a failed act, whatever the error handler answered, the client gets
 * the bare 500 (or 503) with the headers from before the act; after a body that stopped
 * arriving, whatever answers it (a rejection, a 412, a host's hook) adds `connection: close`, so
 * Node closes the connection once the answer is written instead of waiting for the rest. Where
 * the route has no other hook, it comes off the route (withoutOnSend): the handler's answers do
 * the same themselves, and a failure puts it back.
 */
function actSend (request: FastifyRequest, reply: FastifyReply, payload: unknown, done: (error: null, payload: unknown) => void): void {
  quiet(reply)
  const failure = failures.get(request)
  if (failure !== undefined) {
    if (!failure.answered) failing--
    failure.answered = true
    for (const name of headerNames(reply)) {
      if (!Object.hasOwn(failure.headers, name)) removeHeader(reply, name)
    }
    reply.headers(failure.headers).code(failure.status)
    return done(null, null)
  }
  closeIfUnread(request, reply)
  done(null, payload)
}

/** `connection: close` after a body that stopped arriving (see actSend). */
function closeIfUnread (request: FastifyRequest, reply: FastifyReply): void {
  if (request.body instanceof Rejected && request.body.unread) reply.header('connection', 'close')
}
