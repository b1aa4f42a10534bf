import type {
  FastifyError,
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  RouteHandlerMethod
} from 'fastify'
import type { Address } from './options.ts'
import { parse, ParseError } from './parse.ts'

declare module 'fastify' {
  interface FastifyRequest {
    /** The self-asserted GPT-Actor request header: for records only, never for access (draft §6). */
    gptActor: string | undefined
  }
}

const JSON_TYPE = 'application/json; charset=utf-8'

/**
 * draft §5.3: every rejection is the same bare 204, whatever its cause, so a client learns nothing
 * about which constraint failed. The reason goes to the log for operators.
 */
function reject (request: FastifyRequest, reply: FastifyReply, reason: string): FastifyReply {
  request.log.debug({ reason }, 'gpt: act rejected')
  return reply.code(204).send()
}

/** A body refused before validation; the handler answers it with the bare 204. */
class Rejected {
  constructor (readonly reason: string) {}
}

/**
 * Installs the act's body pipeline on the address's own (encapsulated) instance: any media type,
 * read as raw bytes up to the limit, parsed strictly (draft §5.2 (1), (2)). Failures become a
 * `Rejected` body rather than an error, so that they take the handler's path to the same 204 as a
 * schema failure (Fastify's error path would add `connection: close` to some causes only).
 */
export function installBodyPipeline (instance: FastifyInstance, address: Address): void {
  const { bodyLimit, maxDepth } = address
  instance.removeAllContentTypeParsers()
  // The draft's appendix posts with `curl -d@-` (form-urlencoded) and people post text/plain:
  // the body is JSON by contract, whatever the Content-Type says.
  instance.addContentTypeParser('*', (request, payload, done) => {
    readBody(request, payload, bodyLimit, (bytes) => {
      if (typeof bytes === 'string') return done(null, new Rejected(bytes))
      try {
        done(null, parse(bytes, { maxDepth }))
      } catch (error) {
        done(null, new Rejected(error instanceof ParseError ? error.message : 'unparsable'))
      }
    })
  })
  instance.setErrorHandler(function onError (error: FastifyError, request, reply) {
    if (error.statusCode === 429) return reply.code(429).send() // rate limited: outside the protocol
    if (typeof error.code === 'string' && error.code.startsWith('FST_ERR_CTP_')) return reject(request, reply, error.code)
    throw error // not ours (a host hook, say): the host's error handler decides
  })
}

/**
 * Reads at most `limit` bytes: a declared Content-Length over it is refused before reading
 * (draft §5.2 (1), §7.4). Calls back with the bytes, or with the reason they were refused.
 */
function readBody (request: FastifyRequest, payload: NodeJS.ReadableStream, limit: number, then: (bytes: Buffer | string) => void): void {
  const declared = Number(request.headers['content-length'])
  if (declared > limit) return then('body over the limit')
  const chunks: Buffer[] = []
  let length = 0
  const finish = (outcome: Buffer | string): void => {
    payload.removeListener('data', onData)
    payload.removeListener('end', onEnd)
    payload.removeListener('error', onError)
    then(outcome)
  }
  const onData = (chunk: Buffer): void => {
    length += chunk.length
    if (length > limit) return finish('body over the limit')
    chunks.push(chunk)
  }
  const onEnd = (): void => finish(chunks.length === 1 ? chunks[0] as Buffer : Buffer.concat(chunks, length))
  const onError = (): void => finish('body not received')
  payload.on('data', onData)
  payload.on('end', onEnd)
  payload.on('error', onError)
}

/** POST: the body has been parsed and validated by Fastify against the form; act on it. */
export function actHandler (address: Address): RouteHandlerMethod {
  const act = address.act
  return function onAct (request, reply) {
    if (request.body instanceof Rejected) return reject(request, reply, request.body.reason)
    if (request.validationError !== undefined) return reject(request, reply, request.validationError.message)
    if (request.body === undefined) return reject(request, reply, 'empty body')

    const actor = request.headers['gpt-actor']
    request.gptActor = typeof actor === 'string' ? actor : undefined
    request.log.info({ gptActor: request.gptActor }, 'gpt: act')

    let result: unknown
    try {
      result = act(request.body as never, request, reply)
    } catch (error) {
      return failed(request, reply, error)
    }
    if (isThenable(result)) {
      return result.then((value) => respond(request, reply, value), (error: unknown) => failed(request, reply, error))
    }
    return respond(request, reply, result)
  }
}

function respond (request: FastifyRequest, reply: FastifyReply, result: unknown): FastifyReply {
  if (reply.sent) return reply // the act answered by itself
  let payload: string | undefined
  try {
    payload = JSON.stringify(result)
  } catch (error) {
    return failed(request, reply, error)
  }
  return reply.code(200).header('content-type', JSON_TYPE).send(payload ?? 'null')
}

/** An act that throws: logged for operators, a bare 500 for the client, the host keeps serving. */
function failed (request: FastifyRequest, reply: FastifyReply, error: unknown): FastifyReply {
  request.log.error({ err: error }, 'gpt: act failed')
  if (reply.sent) return reply
  return reply.code(500).send()
}

const isThenable = (value: unknown): value is PromiseLike<unknown> =>
  value !== null && typeof value === 'object' && typeof (value as PromiseLike<unknown>).then === 'function'
