import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { Address } from './address.ts'
import { quiet } from './arrival.ts'
import { GPT_ERR_ACT_FAILED, GPT_ERR_ACT_TIMEOUT, GPT_ERR_FORM_INVALID, GPT_ERR_RESULT_INVALID } from '../errors.ts'
import { openapiRoute } from './openapi.ts'
import type { Settings } from './options.ts'
import { LATE, outsideProtocol, Pipeline, readValue, Refused, refusedBody, told, type ActInput, type Outcome as Came, type Settled } from './pipeline.ts'
import { Deadlines, readBody } from './read.ts'
import { headerNames, headersOf, removeHeader } from './fastify-internals.ts'
import { UNKEPT, wasUnrun, type Answer, type Guard, type Ticket } from './guard.ts'
import type { Door, Entry } from './door.ts'
import type { ResultForm } from './result.ts'
import { isHandOff } from './settle.ts'

declare module 'fastify' {
  interface FastifyRequest {
    /** The self-asserted GPT-Actor request header: for records only, never for access (draft §6). */
    gptActor: string | undefined
  }
}

const JSON_TYPE = 'application/json; charset=utf-8'

/**
 * draft §5.3: every rejection is the same bare 204, whatever its cause, so a client learns nothing
 * about which constraint failed (the pipeline told the log and operators why). With `explain` (an
 * answer to Appendix B, "Failure Reporting", for addresses under development) it is a 422
 * problem+json that says why. A stale If-Match is 412 (Appendix B, "Form Change"), a rate limit's
 * refusal 429 (outside the protocol).
 */
function refusal (explain: boolean) {
  return function refuse (request: FastifyRequest, reply: FastifyReply, refused: Refused): FastifyReply {
    closeIfUnread(request, reply)
    if (refused.stage === 'if-match') return reply.code(412).send()
    if (refused.stage === 'rate-limit') return reply.code(429).send()
    if (!explain) return reply.code(204).send()
    const { reason, errors } = refused
    // An array of thousands of wrong items fails thousands of times: the first ones say enough.
    const all = Array.isArray(errors) ? errors : undefined
    const shown = all !== undefined && all.length > EXPLAINED ? { errors: all.slice(0, EXPLAINED), omitted: all.length - EXPLAINED } : { errors }
    const problem = { type: 'about:blank', title: 'The body was rejected', status: 422, detail: reason, ...shown }
    return reply.code(422).header('content-type', 'application/problem+json').send(JSON.stringify(problem))
  }
}

/** How many failed constraints an `explain` answer lists. */
const EXPLAINED = 100

/** A POST as the pipeline takes it; by the door, the way in's facts. */
function inputOf (request: FastifyRequest, entry: Entry | undefined): ActInput {
  return {
    value: entry?.refused ?? request.body,
    bytes: bodies.get(request),
    headers: request.headers,
    client: request.ip,
    actor: entry === undefined ? request.headers['gpt-actor'] : entry.actor,
    via: entry?.via ?? 'http',
    request
  }
}

/**
 * The act: a POST route on the address's own (encapsulated) instance, with everything it needs
 * installed there and nowhere else.
 */
/** The act as the core calls it: the option's act as src/jobs/ wraps it (its context, its iterable drained, `background`). */
export type CoreAct = (body: never, request: FastifyRequest, reply: FastifyReply) => unknown

/** What the entry hands the act beside its settings: the act to call, its door, and the guard between judging and running it (src/address/guard.ts). */
export interface ActParts {
  readonly act: CoreAct
  readonly door: Door
  readonly guard: Guard | undefined
}

export function installAct (instance: FastifyInstance, address: Address, settings: Settings, parts: ActParts): void {
  const { door, guard } = parts
  if (settings.explain && process.env['NODE_ENV'] === 'production') {
    instance.log.warn({ address: settings.path }, 'gpt: explain is on in production: rejected bodies are told why they failed')
  }
  const refuse = refusal(settings.explain)
  const pipeline = new Pipeline(settings.path, { ...settings, guard })
  installBodyParser(instance, settings, guard)

  instance.setErrorHandler(function onError (error: FastifyError, request, reply) {
    const outside = outsideProtocol(error)
    // outside the protocol; GET is limited too, but only a POST is an act
    if (outside === 'rate limited' && request.method !== 'POST') return reply.code(429).send()
    if (outside === undefined) throw error // not ours (a host hook, a failed act): the host's error handler decides
    const refused = outside === 'body' ? refusedBody(error.code) : new Refused('rate-limit', 'rate limited')
    const came = pipeline.refuse(refused, inputOf(request, door.answers(request)), address.current)
    return refuse(request, reply, came.refused)
  })

  // draft §5.2 (3): the body is judged against the same value of s that GET returns, in the
  // pipeline (the current edition's validator, compiled from the form its arrival was serialized
  // from); the route's schema only publishes it (OpenAPI), so Fastify's validator passes all.
  const initial = address.current.content.form
  instance.setValidatorCompiler(({ schema }) => {
    if (schema !== initial) throw new GPT_ERR_FORM_INVALID(address.path, 'Fastify offered a schema other than the form')
    return passAll
  })

  const doc = openapiRoute(settings, 'act')
  instance.post('/', {
    schema: { body: initial, ...doc.schema },
    config: doc.config,
    bodyLimit: settings.bodyLimit,
    onSend: actSend
  }, actHandler(settings, address, pipeline, parts, refuse))
}

const passAll = (): boolean => true

/**
 * The body, whatever the Content-Type says: the draft's appendix posts with `curl -d@-`
 * (form-urlencoded) and people post text/plain; it is JSON by contract. Read as raw bytes up to the
 * limit and parsed strictly (draft §5.2 (1), (2)), so that a host's preValidation and preHandler
 * hooks see the value. Failures become a `Refused` body rather than an error, so they take the
 * handler's path to the same answer as a form's refusal (Fastify's error path would add
 * `connection: close` to some causes only).
 */
function installBodyParser (instance: FastifyInstance, settings: Settings, guard: Guard | undefined): void {
  const { bodyLimit, bodyTimeout } = settings
  instance.removeAllContentTypeParsers()
  const deadlines = new Deadlines(bodyTimeout)
  const parser = (request: FastifyRequest, payload: NodeJS.ReadableStream, done: (error: Error | null, body?: unknown) => void): void => {
    readBody(request, payload, bodyLimit, deadlines, (bytes) => {
      if (bytes instanceof Refused) return done(null, bytes)
      if (guard?.wants(request.headers) === true) bodies.set(request, bytes)
      done(null, readValue(bytes, settings, told(settings, request)))
    })
  }
  // The same parser under the media types actors send, which Fastify looks up from a cache,
  // and under '*' for every other (the catch-all is matched anew on each request).
  for (const type of ['application/json', 'text/plain', 'application/x-www-form-urlencoded', '*']) {
    instance.addContentTypeParser(type, parser)
  }
}

/** The bytes of bodies a guard will read (Guard.wants), from the parser to the handler. */
const bodies = new WeakMap<FastifyRequest, Buffer>()

type Answered = FastifyReply | Promise<FastifyReply>

/** POST: the pipeline takes the parsed body (or its refusal); its outcome becomes the answer. */
function actHandler (settings: Settings, address: Address, pipeline: Pipeline, { act, door }: ActParts, refuse: Refuse) {
  return function onAct (request: FastifyRequest, reply: FastifyReply): Answered {
    const input = inputOf(request, door.answers(request))
    // The headers before the act ran: a failed act's 500 carries these and nothing it set.
    let before = NO_HEADERS
    const came = pipeline.enter(input, address.current, (body) => {
      before = headersOf(reply)
      request.gptActor = typeof input.actor === 'string' ? input.actor : undefined
      request.log.info({ gptActor: request.gptActor }, 'gpt: act')
      return act(body as never, request, reply)
    })
    const answer = (outcome: Came): FastifyReply => {
      if (outcome.kind === 'refused') return refuse(request, reply, outcome.refused)
      if (outcome.kind === 'given') return sendAnswer(reply, outcome.given.answer)
      return new Answering(request, reply, settings, outcome.ticket, before).answer(outcome.settled)
    }
    return came instanceof Promise ? came.then(answer) : answer(came)
  }
}

type Refuse = ReturnType<typeof refusal>
type Headers = ReturnType<FastifyReply['getHeaders']>
const NO_HEADERS = Object.freeze({}) as Headers

/** An answer a guard gives in the act's stead (src/address/guard.ts): sent as it is. */
function sendAnswer (reply: FastifyReply, answer: Answer): FastifyReply {
  reply.code(answer.status).headers(answer.headers)
  return answer.body === '' ? reply.send() : reply.send(answer.body)
}

/** A failed act's answer, and one past actTimeout, as a guard keeps them: bare. */
const FAILED: Answer = UNKEPT
const TIMED_OUT: Answer = Object.freeze({ status: 503, headers: Object.freeze({}), body: '' })

/** A failed act's answer: its status and the headers the reply had before the act ran. */
interface Failure {
  readonly status: 500 | 503
  readonly headers: ReturnType<FastifyReply['getHeaders']>
}

/** The acts that failed and went to Fastify's error path, until their bare answer is sent. */
const failures = new WeakMap<FastifyRequest, Failure>()

/**
 * The answer to one act. A failure leaves by Fastify's error path, as a named error whose `cause`
 * is what the act threw, so that the host's onError hooks and error handler see it; whatever the
 * error handler answers, `bareFailure` sends the client a bare 500 (or 503) and nothing else.
 */
class Answering {
  readonly #request: FastifyRequest
  readonly #reply: FastifyReply
  readonly #path: string
  /** The headers before the act ran: a failed act's 500 carries these and nothing it set. */
  readonly #headers: ReturnType<FastifyReply['getHeaders']>

  readonly #actTimeout: number | undefined
  readonly #result: ResultForm | undefined
  /** A guard's, told the answer once it is made. */
  readonly #ticket: Ticket | undefined

  constructor (request: FastifyRequest, reply: FastifyReply, settings: Pick<Settings, 'path' | 'actTimeout' | 'result'>, ticket: Ticket | undefined, headers: ReturnType<FastifyReply['getHeaders']>) {
    const { path, actTimeout, result } = settings
    this.#actTimeout = actTimeout
    this.#result = result
    this.#ticket = ticket
    this.#request = request
    this.#reply = reply
    this.#path = path
    this.#headers = headers
  }

  /** The answer to how the act settled: its result, or its failure by Fastify's error path. */
  readonly answer = (settled: Settled): FastifyReply => {
    if (settled === LATE) return this.timedOut(this.#actTimeout ?? 0)
    return settled.ok ? this.respond(settled.value) : this.failed(settled.error, settled.how)
  }

  respond (result: unknown): FastifyReply {
    const reply = this.#reply
    if (reply.sent) return this.#byItself() // the act answered by itself
    let json: string | { readonly refused: string }
    try {
      // Fails closed: a result the result form does not admit is never sent (a job's handle is no result).
      json = this.#result === undefined || isHandOff(result) ? JSON.stringify(result) ?? 'null' : this.#result.judge(result)
    } catch (error) {
      return this.failed(error, 'its result cannot be sent as JSON')
    }
    if (typeof json !== 'string') return this.#fail(500, new GPT_ERR_RESULT_INVALID(this.#path, json.refused))
    reply.code(200).header('content-type', JSON_TYPE)
    this.#ticket?.done({ status: 200, headers: this.#set(), body: json })
    return reply.send(json)
  }

  /** The header fields the act and its answer set: those the reply did not have before it ran. */
  #set (): Record<string, string | string[]> {
    const set: Record<string, string | string[]> = {}
    for (const [name, value] of Object.entries(headersOf(this.#reply))) {
      if (value !== undefined && value !== this.#headers[name]) set[name] = typeof value === 'number' ? String(value) : value
    }
    return set
  }

  /** An answer the address did not make: a guard keeps none (the act ran), or frees the key where it never ran. */
  #byItself (): FastifyReply {
    if (this.#ticket !== undefined) {
      if (wasUnrun(this.#request)) this.#ticket.free()
      else this.#ticket.done(UNKEPT)
    }
    return this.#reply
  }

  /**
   * An act that failed: throws the error for Fastify's error path; an act that answered by itself
   * has no error path left, so its failure is only logged.
   */
  failed (error: unknown, how: string): FastifyReply {
    if (this.#reply.sent) {
      this.#request.log.error({ err: errorOf(error) }, 'gpt: act failed')
      return this.#byItself()
    }
    return this.#fail(500, new GPT_ERR_ACT_FAILED(this.#path, how, { cause: errorOf(error) }))
  }

  /** An act past `actTimeout`: 503 by Fastify's error path; whatever it produces later is dropped. */
  timedOut (actTimeout: number): FastifyReply {
    if (this.#reply.sent) {
      this.#request.log.warn('gpt: act timed out')
      return this.#byItself()
    }
    return this.#fail(503, new GPT_ERR_ACT_TIMEOUT(this.#path, `${actTimeout} ms`))
  }

  /** Marks the act failed, its answer, whatever the error handler makes, actSend's; throws `error` for Fastify's error path. */
  #fail (status: 500 | 503, error: Error): never {
    this.#ticket?.done(status === 500 ? FAILED : TIMED_OUT)
    failures.set(this.#request, { status, headers: this.#headers })
    throw error
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
 * The act's own onSend: after a failed act, whatever the error handler answered, the client gets
 * the bare 500 (or 503) with the headers from before the act; after a body that stopped
 * arriving, whatever answers it (a rejection, a 412, a host's hook) adds `connection: close`, so
 * Node closes the connection once the answer is written instead of waiting for the rest.
 */
function actSend (request: FastifyRequest, reply: FastifyReply, payload: unknown, done: (error: null, payload: unknown) => void): void {
  quiet(reply)
  const failure = failures.get(request)
  if (failure !== undefined) {
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
  if (request.body instanceof Refused && request.body.unread) reply.header('connection', 'close')
}
