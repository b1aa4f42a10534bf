import { Readable } from 'node:stream'
import type { FastifyError, FastifyInstance, FastifySchema, FastifyReply, FastifyRequest } from 'fastify'
import { compileForm } from '../form/compile.ts'
import { prefers } from '../address/negotiate.ts'
import type { Settings } from '../address/options.ts'
import { LATE, outsideProtocol, Pipeline, readValue, refusedBody, type ActInput, type Outcome } from '../address/pipeline.ts'
import { addVary, notModified } from '../fields.ts'
import { catalogOn } from '../hosts.ts'
import { CONTROL_FORMS, jobArrival, jobPage } from './arrival.ts'
import { cursorOf, framingFor, type Framing } from './framing.ts'
import type { JobEvent } from './job.ts'
import { jobsPath } from './run.ts'
import type { BackgroundSettings } from './settings.ts'
import { UNAVAILABLE, type JobSource, type JobView } from './source.ts'

/** The largest control act: `{"do":"cancel"}` and room to spare. */
const CONTROL_LIMIT = 1024
const JSON_TYPE = 'application/json; charset=utf-8'
const HTML_TYPE = 'text/html; charset=utf-8'
const LEVELS = ['trace', 'debug', 'info']

type Params = { Params: { id: string }, Querystring: { after?: string } }

/**
 * The job addresses of one address, `<address>/jobs/<id>`, and their progress streams, in an
 * instance of their own: their own body parser, rate limit and log level.
 */
export async function installJobRoutes (instance: FastifyInstance, settings: Settings, background: BackgroundSettings, source: JobSource): Promise<void> {
  // A job's control acts take the act's pipeline, against the job's own forms.
  const pipeline = new Pipeline(`${jobsPath(settings.path)}/:id`, { ifMatch: false })
  const routes = jobRoutes(settings, background, source, pipeline)
  // A job address is a capability: nothing under it logs at info or below (Fastify's request lines
  // hold the URL), its 404s included; the instance's level is every route's and its 404 handler's.
  const logLevel = LEVELS.includes(instance.log.level) ? 'warn' as const : undefined
  await instance.register(async (jobs) => {
    jobs.setErrorHandler(function onJobError (error: FastifyError, request: FastifyRequest, reply: FastifyReply): FastifyReply {
      const outside = outsideProtocol(error)
      if (outside === 'rate limited') return reply.code(429).send()
      // draft §5.3: a control act refused before validation (too large, say) is the bare 204 too.
      if (outside === 'body') {
        pipeline.refuse(refusedBody(error.code), controlInput(request, undefined), undefined)
        return reply.code(204).send()
      }
      // A host's refusal (an auth hook's 401) is the host's to answer; a failure is answered here,
      // since Fastify's own error log would carry the request, and with it the id.
      if (error.statusCode !== undefined && error.statusCode < 500) throw error
      request.log.error({ err: error }, 'gpt: a job route failed')
      return reply.code(500).send()
    })
    // Anything else under the jobs' prefix (a trailing slash, another case, another method) is no
    // job: the bare 404 a forgotten job gets, not the host's, which logs the URL at info.
    jobs.setNotFoundHandler(function noJob (_request, reply) { return reply.code(404).send() })
    jobs.removeAllContentTypeParsers()
    jobs.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: CONTROL_LIMIT }, (_request, body, done) => { done(null, body) })
    const common = {
      // Minted at run time and reached only through a handle: never in a host's OpenAPI document.
      schema: { hide: true } as FastifySchema,
      // Polled, so limited apart from the address's own acts (where the address limits at all).
      config: { rateLimit: { max: background.rateMax, timeWindow: 60_000 } }
    }
    jobs.get<Params>('/:id', common, routes.arrival)
    jobs.post<Params>('/:id', common, routes.control)
    // Every other method at a job address: the bare 204 (draft §5.3); at no job, 404.
    jobs.route<Params>({ method: ['PUT', 'PATCH', 'DELETE', 'OPTIONS'], url: '/:id', ...common, handler: routes.other })
    // A compressor holds what it is given until it has enough to write: a host compressing every
    // type (@fastify/compress's `customTypes`) would hold each event back from the client.
    const streamed = { ...common, compress: false as const }
    jobs.get<Params>('/:id/events', streamed, routes.events)
  }, { prefix: '/jobs', ...(logLevel === undefined ? {} : { logLevel }) })
}

type Handler = (request: FastifyRequest<Params>, reply: FastifyReply) => Promise<FastifyReply>

/** The handlers of one address's job routes. */
function jobRoutes (settings: Settings, background: BackgroundSettings, source: JobSource, pipeline: Pipeline): Record<'arrival' | 'control' | 'other' | 'events', Handler> {
  const base = jobsPath(settings.path)
  // draft §5.2 (3): each control act is validated against the very form the job's arrival shows.
  const validators = {
    working: compileForm(CONTROL_FORMS.working, `${base}/<id>`),
    done: compileForm(CONTROL_FORMS.done, `${base}/<id>`)
  }
  const poll = String(Math.ceil(background.poll / 1000))
  const found = async (request: FastifyRequest<Params>, reply: FastifyReply): Promise<JobView | undefined> => {
    const job = await source.get(request.params.id)
    // Redis away (with `share`): the job may well be there; ask again later.
    if (job === UNAVAILABLE) reply.code(503).header('retry-after', poll).send()
    else if (job === undefined) reply.code(404).send() // unknown, or kept its time and gone
    return job === UNAVAILABLE ? undefined : job
  }

  async function arrival (request: FastifyRequest<Params>, reply: FastifyReply): Promise<FastifyReply> {
    const job = await found(request, reply)
    if (job === undefined) return reply
    const href = `${base}/${job.id}`
    const arrival = jobArrival(job, settings.path, href, background.poll)
    // draft §3.3: a client preferring text/html gets the address's page, which the same `html`
    // option turns off; everything else gets the JSON.
    const page = settings.html !== false && prefersHtml(request)
    const etag = page ? `${arrival.etag.slice(0, -1)}-html"` : arrival.etag
    reply.header('cache-control', 'private, no-cache').header('etag', etag)
    addVary(reply)
    if (!job.done) reply.header('retry-after', poll)
    // RFC 9727 §3: a job's arrival names the host's API catalog, as its address's does.
    const catalog = catalogOn(request.server.server)
    if (catalog !== undefined) reply.header('link', catalog)
    const held = notModified(request.headers['if-none-match'], etag)
    if (held !== undefined) return reply.code(304).header('etag', held).send()
    if (!page) return reply.header('content-type', JSON_TYPE).send(arrival.body)
    // While the act works the page follows its events live (or, with no script, reloads itself
    // every poll); once it is done the page stays.
    const { html, csp } = jobPage(job, arrival, href, background.poll)
    return reply.header('content-type', HTML_TYPE).header('content-security-policy', csp)
      .header('x-content-type-options', 'nosniff').send(html)
  }

  async function control (request: FastifyRequest<Params>, reply: FastifyReply): Promise<FastifyReply> {
    const job = await found(request, reply)
    if (job === undefined) return reply
    // draft §5.2 (3): each control act is judged against the very form the job's arrival shows
    // now; draft §5.3: what it does not admit is the bare 204, whatever it was.
    const form = {
      validate: job.done ? validators.done : validators.working,
      get arrival () { return { json: jobArrival(job, settings.path, `${base}/${job.id}`, background.poll) } }
    }
    const came = await pipeline.enter(controlInput(request, request.body), form, async (value) => {
      if ((value as { do: 'cancel' | 'forget' }).do === 'cancel') return await source.cancel(job.id)
      return await source.forget(job.id) === UNAVAILABLE ? UNAVAILABLE : 'forgotten'
    })
    if (came.kind !== 'settled') return reply.code(204).send()
    const status = settledValue(came)
    if (status === UNAVAILABLE) return reply.code(503).header('retry-after', poll).send()
    if (status === undefined) return reply.code(404).send() // forgotten or expired meanwhile
    return reply.header('cache-control', 'no-store').header('content-type', JSON_TYPE).send(JSON.stringify({ status }))
  }

  async function other (request: FastifyRequest<Params>, reply: FastifyReply): Promise<FastifyReply> {
    if (await found(request, reply) === undefined) return reply
    return reply.code(204).send()
  }

  // Not an address (draft §3.3: an address's GET is its arrival): the job's events, as NDJSON or
  // (to a client asking for text/event-stream) as SSE, from `?after=<seq>` (or Last-Event-ID)
  // on, a heartbeat when quiet, closed once it ends.
  async function events (request: FastifyRequest<Params>, reply: FastifyReply): Promise<FastifyReply> {
    const job = await found(request, reply)
    if (job === undefined) return reply
    const framing = framingFor(request, background.poll)
    const cursor = cursorOf(request.query.after, request.headers['last-event-id'])
    reply.header('cache-control', 'private, no-store')
    addVary(reply)
    // Events are numbered by the job's version: none after the cursor once it is over, nothing can come.
    if (job.done && job.version <= cursor && framing.emptyIs204) return reply.code(204).send()
    reply.header('content-type', framing.type).header('x-accel-buffering', 'no')
    // A client leaving ends its stream only: the job goes on (never cancelled by a disconnect).
    const left = new AbortController()
    reply.raw.once('close', () => { left.abort() })
    // Node sends a stream's head with its first bytes, which may be a heartbeat away: the head
    // goes at once, when Fastify pipes the stream (its header fields are set by then).
    reply.raw.once('pipe', () => { reply.raw.flushHeaders() })
    return reply.send(Readable.from(framed(framing, source.events(job.id, cursor, background.heartbeat, left.signal)), { objectMode: false }))
  }

  return { arrival, control, other, events }
}

/** A job's events in `framing`: its opening, then each event, and its heartbeat for each `null`. */
async function * framed (framing: Framing, events: AsyncIterable<JobEvent | null>): AsyncGenerator<string> {
  if (framing.opening !== '') yield framing.opening
  for await (const event of events) yield event === null ? framing.heartbeat : framing.event(event)
}

/** The control act a body names if the current form admits it, else undefined. */
const OFFERED = ['application/json', 'text/html']
const prefersHtml = (request: FastifyRequest): boolean => prefers(request, OFFERED, 'text/html')

/** A control act as the pipeline takes it, read by the same strict parser as every act (draft §5.2 (2)). */
function controlInput (request: FastifyRequest, body: unknown): ActInput {
  return {
    value: Buffer.isBuffer(body) ? readValue(body, CONTROL_LIMITS, false) : undefined,
    bytes: undefined,
    headers: request.headers,
    client: request.ip,
    actor: request.headers['gpt-actor'],
    via: 'http',
    request
  }
}

/** What a control act came to (a job's new status, or UNAVAILABLE); its failure (Redis refusing a write) thrown, for the error handler. */
function settledValue (came: Outcome & { kind: 'settled' }): unknown {
  const { settled } = came
  if (settled === LATE || !settled.ok) throw settled === LATE ? new Error('late') : settled.error // (no actTimeout is given it)
  return settled.value
}

/** A control act's bounds: the body parser's limit, and the depth of the deepest control form. */
const CONTROL_LIMITS = { bodyLimit: CONTROL_LIMIT, maxDepth: 4 }
