// One rung of `npm run bench:ladder` in its own process: bare Fastify serving the note board and
// the to-do list (benchmarks/peer-forms.ts), with what fastify-gpt installs added a piece at a
// time, up to fastify-gpt itself. Every rung keeps a tick object alive (src/address/tick.ts), so
// the process-wide cost of docs/benchmarks.md is out of every figure. Each rung has what the one
// before it has, and one thing more:
//   bare-kept   the routes on the root instance: GET /note sends the arrival's bytes, POST /note
//               and /todo have `schema: { body: form }` (Fastify's JSON parser, Ajv)
//   fp-child    the routes of each form inside a plugin wrapped in fastify-plugin (not encapsulated)
//   child       inside an encapsulated plugin per form, at its prefix, as an address is
//   decorate    + decorateRequest('gptActor', undefined) in each
//   accepts     + @fastify/accepts registered in each (what `html` on registered before negotiation became a plain function)
//   on-route    + an onRoute hook that gives GET and HEAD routes an onSend (fastify-gpt's codedTag)
//   on-send     + the act's route onSend (rate-limit headers off, a failure looked up, an unread body)
//   parser      + the catch-all body reader under 4 media types, V8's JSON.parse
//   strict      + the strict parser (fastify-gpt's parse()) instead of JSON.parse
//   errors      + the address's error handler
//   validator   + its validator compiler (Rejected passes, the current edition's validator),
//               attachValidation and a stackless schemaErrorFormatter
//   handlers    + fastify-gpt's GET handler (headers, Vary, If-None-Match) and an act handler that
//               answers as fastify-gpt's does (headers kept, JSON.stringify, reply.header + send)
//   gpt-plain   fastify-gpt itself (dist/): `rateLimit: false, lint: false, html: false`
//   gpt         fastify-gpt as `bench:peers` runs it: `rateLimit: false, lint: false` (html on)
// Arguments: --rung NAME. Reports { port, pid } once listening; answers `close` over IPC.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest, FastifySchemaValidationError } from 'fastify'
import { parseArgs } from 'node:util'
import { serve } from './processes.ts'
import { BODY_LIMIT, intro, noteArrival, noteForm, notePrompt, noteReceipt, todoForm, todoPrompt, todoReceipt } from './peer-forms.ts'

const RUNGS = ['bare-kept', 'fp-child', 'child', 'decorate', 'accepts', 'on-route', 'on-send', 'parser', 'strict',
  'errors', 'validator', 'handlers', 'gpt-plain', 'gpt'] as const
type Rung = typeof RUNGS[number]
// Variants of the `parser` rung, to tell its parts apart: Fastify reading the body (parseAs
// 'buffer'), and the reader without its 'close' listener; and `child` with the routes' full paths
// instead of a prefix.
const VARIANTS = ['parser-buffer', 'parser-noclose', 'parser-nomap', 'parser-min', 'child-noprefix'] as const
type Variant = typeof VARIANTS[number]

type Note = { note: string, author?: string | undefined }
type Todo = { title: string, items: unknown[] }
type Done = (error: Error | null, body?: unknown) => void

const has = (rung: Rung | Variant, step: Rung): boolean => RUNGS.indexOf(rung.startsWith('parser-') ? 'parser' : rung === 'child-noprefix' ? 'child' : rung as Rung) >= RUNGS.indexOf(step)

class Rejected {
  constructor (readonly reason: string, readonly unread = false) {}
}

async function ladder (rung: Rung | Variant): Promise<FastifyInstance> {
  const { default: Fastify } = await import('fastify')
  const { default: fp } = await import('fastify-plugin')
  const { codedTag, quiet, arrivalHandler } = await import('../dist/address/arrival.js')
  const { parse } = await import('../dist/parse/parse.js')
  const { default: accepts } = await import('@fastify/accepts')
  const etag = '"0123456789abcdef0123456789abcdef"'
  const serving = { current: { arrival: { json: { body: noteArrival, etag, headers: { 'content-type': 'application/json; charset=utf-8', etag } }, html: undefined } } }
  const app = Fastify({ logger: false })

  /** One form's routes on `instance`, with the rung's pieces. */
  const routes = async (instance: FastifyInstance, form: object, receipt: (body: never) => unknown, withGet: boolean, prefix: string, url = '/'): Promise<void> => {
    const path = prefix === '' ? '/' : prefix
    if (has(rung, 'decorate')) instance.decorateRequest('gptActor', undefined)
    if (has(rung, 'accepts') && !instance.hasRequestDecorator('accepts')) await instance.register(accepts)
    if (has(rung, 'on-route')) {
      instance.addHook('onRoute', (route) => {
        if (route.method === 'GET' || route.method === 'HEAD') route.onSend = [...[route.onSend ?? []].flat().filter((hook) => hook !== codedTag), codedTag]
      })
    }
    if (has(rung, 'parser')) {
      instance.removeAllContentTypeParsers()
      const strict = has(rung, 'strict')
      const parser = (request: FastifyRequest, payload: NodeJS.ReadableStream, done: Done): void => {
        const read = rung === 'parser-min' ? readMinimal : readBody
        read(request, payload, BODY_LIMIT, rung !== 'parser-noclose', (bytes) => {
          if (bytes instanceof Rejected) return done(null, bytes)
          try {
            done(null, strict ? parse(bytes, { maxDepth: 64 }) : JSON.parse(bytes.toString('utf8')))
          } catch {
            done(null, new Rejected('unparsable'))
          }
        })
      }
      const fromBuffer = (_request: FastifyRequest, bytes: Buffer, done: Done): void => {
        try {
          done(null, JSON.parse(bytes.toString('utf8')))
        } catch {
          done(null, new Rejected('unparsable'))
        }
      }
      for (const type of ['application/json', 'text/plain', 'application/x-www-form-urlencoded', '*']) {
        if (rung === 'parser-buffer') instance.addContentTypeParser(type, { parseAs: 'buffer' }, fromBuffer)
        else instance.addContentTypeParser(type, parser)
      }
    }
    if (has(rung, 'errors')) {
      instance.setErrorHandler(function onError (error: FastifyError, _request, reply) {
        if (error.statusCode === 429) return reply.code(429).send()
        if (typeof error.code === 'string' && /^(?:FST_ERR_CTP_|FST_CP_ERR_)/.test(error.code)) return reply.code(204).send()
        throw error
      })
    }
    if (has(rung, 'validator')) {
      const { Ajv2020 } = await import('ajv/dist/2020.js')
      const compiled = new Ajv2020({ strict: false }).compile(form)
      const current = { validate: compiled }
      instance.setValidatorCompiler(() => {
        const validate = (body: unknown): boolean => {
          if (body instanceof Rejected) return true
          const valid = current.validate(body)
          validate.errors = (current.validate.errors ?? null) as FastifySchemaValidationError[] | null
          return valid
        }
        validate.errors = null as FastifySchemaValidationError[] | null
        return validate
      })
    }
    const handlers = has(rung, 'handlers')
    if (withGet) {
      instance.get(url, handlers
        ? arrivalHandler(serving)
        : (_request, reply) => reply.header('content-type', 'application/json; charset=utf-8').send(noteArrival))
    }
    const onSend = has(rung, 'on-send') ? { onSend: actSend } : {}
    const validation = has(rung, 'validator') ? { attachValidation: true, schemaErrorFormatter: stackless } : {}
    instance.post(url, { schema: { body: form }, bodyLimit: BODY_LIMIT, ...onSend, ...validation }, handlers
      ? actHandler(receipt, path)
      : (request) => receipt(request.body as never))
    function actSend (request: FastifyRequest, reply: FastifyReply, payload: unknown, done: (error: null, payload: unknown) => void): void {
      quiet(reply)
      const failure = failures.get(request)
      if (failure !== undefined) reply.code(500)
      if (request.body instanceof Rejected && request.body.unread) reply.header('connection', 'close')
      done(null, payload)
    }
  }

  if (rung === 'gpt' || rung === 'gpt-plain') {
    const plugin = (await import('fastify-gpt')).default
    const common = { rateLimit: false, lint: false, bodyLimit: BODY_LIMIT, ...(rung === 'gpt-plain' ? { html: false } : {}) } as const
    app.register(plugin, { ...common, prefix: '/note', prompt: notePrompt, messages: intro, form: noteForm, act: (body: Note) => noteReceipt(body) } as never)
    app.register(plugin, { ...common, prefix: '/todo', prompt: todoPrompt, form: todoForm, act: (body: Todo) => todoReceipt(body) } as never)
  } else if (rung === 'bare-kept') {
    app.get('/note', (_request, reply) => reply.header('content-type', 'application/json; charset=utf-8').send(noteArrival))
    app.post('/note', { schema: { body: noteForm }, bodyLimit: BODY_LIMIT }, (request) => noteReceipt(request.body as Note))
    app.post('/todo', { schema: { body: todoForm }, bodyLimit: BODY_LIMIT }, (request) => todoReceipt(request.body as Todo))
  } else {
    const address = (form: object, receipt: (body: never) => unknown, withGet: boolean) => {
      const inner = async (instance: FastifyInstance, options: { prefix?: string }): Promise<void> => {
        // fastify-plugin's instance has no prefix of its own: the routes say it
        const prefix = rung === 'fp-child' ? (options.prefix ?? '') : instance.prefix
        if (rung === 'fp-child') {
          if (withGet) instance.get(prefix, (_request, reply) => reply.header('content-type', 'application/json; charset=utf-8').send(noteArrival))
          instance.post(prefix, { schema: { body: form }, bodyLimit: BODY_LIMIT }, (request) => receipt(request.body as never))
          return
        }
        await routes(instance, form, receipt, withGet, prefix)
      }
      return rung === 'fp-child' ? fp(inner) : inner
    }
    if (rung === 'child-noprefix') {
      app.register(async (instance) => { await routes(instance, noteForm, noteReceipt as (body: never) => unknown, true, '/note', '/note') })
      app.register(async (instance) => { await routes(instance, todoForm, todoReceipt as (body: never) => unknown, false, '/todo', '/todo') })
    } else {
      app.register(address(noteForm, noteReceipt as (body: never) => unknown, true), { prefix: '/note' })
      app.register(address(todoForm, todoReceipt as (body: never) => unknown, false), { prefix: '/todo' })
    }
  }
  await app.listen({ host: '127.0.0.1', port: 0 })
  return app
}

// The act's handler as fastify-gpt's answers a synchronous act.
const failures = new WeakMap<FastifyRequest, unknown>()
function actHandler (receipt: (body: never) => unknown, path: string) {
  return function onAct (request: FastifyRequest, reply: FastifyReply): FastifyReply {
    const body = request.body
    if (body instanceof Rejected) return reply.code(204).send()
    if (request.validationError !== undefined) return reply.code(204).send()
    if (body === undefined) return reply.code(204).send()
    const actor = request.headers['gpt-actor']
    ;(request as unknown as { gptActor: unknown }).gptActor = typeof actor === 'string' ? actor : undefined
    request.log.info({ gptActor: actor }, 'gpt: act')
    const headers = reply.getHeaders()
    let result: unknown
    try {
      result = receipt(body as never)
    } catch (error) {
      failures.set(request, headers)
      throw new Error(`${path}: ${String(error)}`)
    }
    return reply.code(200).header('content-type', 'application/json; charset=utf-8').send(JSON.stringify(result) ?? 'null')
  }
}

function stackless (errors: { instancePath: string, message?: string }[], dataVar: string): Error {
  const limit = Error.stackTraceLimit
  Error.stackTraceLimit = 0
  try {
    return new Error(errors.slice(0, 8).map((e) => `${dataVar}${e.instancePath} ${e.message ?? ''}`).join(', '))
  } finally {
    Error.stackTraceLimit = limit
  }
}

/** fastify-gpt's body reader as the ladder first measured it (its deadlines then a Map entry per act; the timer shared), with switches for its variants. */
function readBody (request: FastifyRequest, payload: NodeJS.ReadableStream, limit: number, close: boolean, then: (bytes: Buffer | Rejected) => void): void {
  const declared = Number(request.headers['content-length'])
  if (declared > limit) return then(new Rejected('body over the limit'))
  const chunks: Buffer[] = []
  let length = 0
  const finish = (outcome: Buffer | Rejected): void => {
    pending.delete(finish)
    payload.removeListener('data', onData)
    payload.removeListener('end', onEnd)
    payload.removeListener('error', onError)
    if (close) payload.removeListener('close', onGone)
    then(outcome)
  }
  const onData = (chunk: Buffer): void => {
    length += chunk.length
    if (length > limit) return finish(new Rejected('body over the limit'))
    chunks.push(chunk)
  }
  const onEnd = (): void => finish(chunks.length === 1 ? chunks[0] as Buffer : Buffer.concat(chunks, length))
  const onGone = (): void => finish(new Rejected('gone'))
  const onError = (): void => finish(new Rejected('failed'))
  if (rung !== 'parser-nomap') pending.set(finish, performance.now() + 10_000)
  payload.on('data', onData)
  payload.on('end', onEnd)
  payload.on('error', onError)
  if (close) payload.on('close', onGone)
  payload.resume()
}
const pending = new Map<unknown, number>()

/** Fastify's own reader (rawBody, parseAs 'buffer'), as a parser of the stream. */
function readMinimal (request: FastifyRequest, payload: NodeJS.ReadableStream, limit: number, _close: boolean, then: (bytes: Buffer | Rejected) => void): void {
  const declared = Number(request.headers['content-length'])
  if (declared > limit) return then(new Rejected('body over the limit'))
  const chunks: Buffer[] = []
  let length = 0
  payload.on('data', onData)
  payload.on('end', onEnd)
  payload.on('error', onEnd)
  payload.resume()
  function onData (chunk: Buffer): void {
    length += chunk.length
    if (length > limit) {
      payload.removeListener('data', onData)
      payload.removeListener('end', onEnd)
      payload.removeListener('error', onEnd)
      then(new Rejected('body over the limit'))
      return
    }
    chunks.push(chunk)
  }
  function onEnd (error?: Error): void {
    payload.removeListener('data', onData)
    payload.removeListener('end', onEnd)
    payload.removeListener('error', onEnd)
    then(error === undefined ? Buffer.concat(chunks, length) : new Rejected('failed'))
  }
}

const { values } = parseArgs({ options: { rung: { type: 'string', default: 'bare-kept' } } })
const rung = values.rung as Rung | Variant
if (!RUNGS.includes(rung as Rung) && !VARIANTS.includes(rung as Variant)) throw new Error(`--rung must be one of ${RUNGS.join(', ')}, not ${String(values.rung)}`)
// Before anything allocates, as fastify-gpt does when it loads (and harmless twice: gpt's own is a no-op then).
;(await import('../dist/address/tick.js')).keepTickObject()
const app = await ladder(rung)
serve(async (message) => {
  if (message.type !== 'close') throw new Error(`unknown request ${String(message.type)}`)
  await app.close()
  process.exit(0)
})
process.send?.({ port: (app.server.address() as { port: number }).port, pid: process.pid, rung })
