import type {
  FastifyError,
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  FastifySchemaValidationError,
  preValidationHookHandler
} from 'fastify'
import type { Address } from './address.ts'
import { matches } from './arrival.ts'
import { GPT_ERR_FORM_INVALID } from './errors.ts'
import type { Settings } from './options.ts'
import { parse, ParseError } from './parse.ts'

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
      return reply.code(204).send()
    }
  }
  return (request, reply, reason, errors) => {
    request.log.debug({ reason }, 'gpt: act rejected')
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
 * The act: a POST route on the address's own (encapsulated) instance, with everything it needs
 * installed there and nowhere else.
 */
export function installAct (instance: FastifyInstance, address: Address, settings: Settings): void {
  const reject = rejecter(settings.explain)
  installBodyParser(instance, settings)

  instance.setErrorHandler(function onError (error: FastifyError, request, reply) {
    if (error.statusCode === 429) return reply.code(429).send() // rate limited: outside the protocol
    if (typeof error.code === 'string' && error.code.startsWith('FST_ERR_CTP_')) return reject(request, reply, error.code)
    throw error // not ours (a host hook, say): the host's error handler decides
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

  instance.post('/', {
    schema: { body: initial },
    attachValidation: true,
    schemaErrorFormatter: validationFailure,
    bodyLimit: settings.bodyLimit,
    onSend: closeUnread,
    ...(settings.ifMatch ? { preValidation: ifMatchGuard(address) } : {})
  }, actHandler(settings, reject))
}

/**
 * A body that fails the form is an expected event, not a fault: its error carries no stack trace
 * (capturing one costs more than the validation), only the reason for the log, from the first few
 * errors (each `$ref` passes on at most a few, see src/bounded.ts).
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
  const parser = (request: FastifyRequest, payload: NodeJS.ReadableStream, done: (error: Error | null, body?: unknown) => void): void => {
    readBody(request, payload, bodyLimit, bodyTimeout, (bytes) => {
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
 * Reads at most `limit` bytes within `timeout` ms of starting: a declared Content-Length over the
 * limit is refused before reading (draft §5.2 (1), §7.4). Calls back once, with the bytes or with
 * why they were refused.
 */
function readBody (request: FastifyRequest, payload: NodeJS.ReadableStream, limit: number, timeout: number, then: (bytes: Buffer | Rejected) => void): void {
  const declared = Number(request.headers['content-length'])
  if (declared > limit) return then(new Rejected('body over the limit'))
  const chunks: Buffer[] = []
  let length = 0
  const finish = (outcome: Buffer | Rejected): void => {
    clearTimeout(timer)
    payload.removeListener('data', onData)
    payload.removeListener('end', onEnd)
    payload.removeListener('error', onGone)
    payload.removeListener('close', onGone)
    then(outcome)
  }
  const onData = (chunk: Buffer): void => {
    length += chunk.length
    if (length > limit) return finish(new Rejected('body over the limit'))
    chunks.push(chunk)
  }
  const onEnd = (): void => finish(chunks.length === 1 ? chunks[0] as Buffer : Buffer.concat(chunks, length))
  const onGone = (): void => finish(new Rejected('body not received: the client went away'))
  // The whole body within `timeout`, not each piece: a trickle would otherwise hold the connection.
  const timer = setTimeout(() => finish(new Rejected(`body not received within bodyTimeout (${timeout} ms)`, true)), timeout)
  payload.on('data', onData)
  payload.on('end', onEnd)
  payload.on('error', onGone)
  payload.on('close', onGone)
}

/**
 * After a body that stopped arriving, whatever answers it (a rejection, a 412, a host's hook):
 * `connection: close`, so Node closes the connection once the answer is written instead of
 * waiting for the rest of the body.
 */
function closeUnread (request: FastifyRequest, reply: FastifyReply, payload: unknown, done: (error: null, payload: unknown) => void): void {
  if (request.body instanceof Rejected && request.body.unread) reply.header('connection', 'close')
  done(null, payload)
}

/** POST: the body has been parsed and validated by Fastify against the form; act on it. */
function actHandler (settings: Settings, reject: Reject) {
  const { act, actTimeout } = settings
  return function onAct (request: FastifyRequest, reply: FastifyReply): FastifyReply | Promise<FastifyReply> {
    const body = request.body
    if (body instanceof Rejected) return reject(request, reply, body.reason)
    const invalid = request.validationError
    if (invalid !== undefined) return reject(request, reply, invalid.message, invalid.validation)
    if (body === undefined) return reject(request, reply, 'empty body')

    const actor = request.headers['gpt-actor']
    request.gptActor = typeof actor === 'string' ? actor : undefined
    request.log.info({ gptActor: request.gptActor }, 'gpt: act')

    const outcome = new Outcome(request, reply)
    let result: unknown
    let then: unknown
    try {
      result = act(body as never, request, reply)
      then = thenOf(result) // a getter or a revoked proxy may throw here: still the act's failure
    } catch (error) {
      return outcome.failed(error)
    }
    if (typeof then !== 'function') return outcome.respond(result)
    // Adopted as `await` would: the first answer counts, a throw from `then` is a rejection.
    const settled = new Promise((resolve, reject) => { (then as Then).call(result, resolve, reject) })
    if (actTimeout === undefined) return settled.then(outcome.respond, outcome.failed)
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(outcome.timedOut()), actTimeout)
      settled.then(
        (value) => { clearTimeout(timer); resolve(outcome.respond(value)) },
        (error: unknown) => { clearTimeout(timer); resolve(outcome.failed(error)) }
      )
    })
  }
}

type Then = (this: unknown, onFulfilled: (value: unknown) => void, onRejected: (reason: unknown) => void) => unknown

/** What `await` would read as the `then` of a value. */
function thenOf (value: unknown): unknown {
  if (value === null || (typeof value !== 'object' && typeof value !== 'function')) return undefined
  return (value as { then?: unknown }).then
}

/**
 * The answer to one act. None of its methods throws, whatever the act returned or threw, so every
 * failure of the act ends here and none reaches an error handler that might echo it.
 */
class Outcome {
  readonly #request: FastifyRequest
  readonly #reply: FastifyReply
  /** The headers before the act ran: a failed act's 500 carries these and nothing it set. */
  readonly #headers: ReturnType<FastifyReply['getHeaders']>

  constructor (request: FastifyRequest, reply: FastifyReply) {
    this.#request = request
    this.#reply = reply
    this.#headers = reply.getHeaders()
  }

  readonly respond = (result: unknown): FastifyReply => {
    const reply = this.#reply
    if (reply.sent) return reply // the act answered by itself, or ran out of time
    let payload: string | undefined
    try {
      payload = JSON.stringify(result)
    } catch (error) {
      return this.failed(error)
    }
    return reply.code(200).header('content-type', JSON_TYPE).send(payload ?? 'null')
  }

  /** An act that throws: logged for operators, a bare 500 for the client, the host keeps serving. */
  readonly failed = (error: unknown): FastifyReply => {
    const reply = this.#reply
    try {
      this.#request.log.error({ err: error }, 'gpt: act failed')
    } catch {
      this.#request.log.error('gpt: act failed') // with a value the logger cannot read
    }
    if (reply.sent) return reply
    for (const name of Object.keys(reply.getHeaders())) {
      if (!Object.hasOwn(this.#headers, name)) reply.removeHeader(name)
    }
    return reply.headers(this.#headers).code(500).send()
  }

  /** An act past `actTimeout`: 503 now; whatever it produces later is dropped. */
  timedOut (): FastifyReply {
    this.#request.log.warn('gpt: act timed out')
    if (this.#reply.sent) return this.#reply
    return this.#reply.code(503).send()
  }
}
