import { createHash } from 'node:crypto'
import type { FastifyReply, FastifyRequest, RouteHandlerMethod } from 'fastify'
import type { Address } from './address.ts'
import { renderPage, type RuntimeVerdict } from './html.ts'
import type { Content, Settings } from './options.ts'

/** One representation of the arrival as it goes on the wire: bytes, entity tag and headers. */
export interface Representation {
  readonly body: Buffer
  readonly etag: string
  readonly headers: Readonly<Record<string, string>>
}

export interface Arrival {
  readonly json: Representation
  readonly html: Representation | undefined
}

/**
 * Built once per edition, at registration or update (draft §7.4: a precomputed representation).
 * `runtimes`: lint's word on the form, when the edition already has it (src/address.ts).
 */
export function buildArrival (content: Content, settings: Settings, runtimes = settings.review?.(content.form) ?? []): Arrival {
  const common: Record<string, string> = { vary: 'Accept' }
  if (settings.type !== undefined) common['gpt-type'] = settings.type // draft §3.2: advisory only

  // draft §3.2: a JSON object with p, m and s; s is the very object the validator was compiled from.
  const json = Buffer.from(JSON.stringify({ p: content.prompt, m: content.messages, s: content.form }))
  return {
    json: representation(json, { ...common, 'content-type': 'application/json; charset=utf-8' }),
    html: settings.html === false ? undefined : htmlRepresentation(content, settings, common, runtimes)
  }
}

function htmlRepresentation (content: Content, settings: Settings, common: Record<string, string>,
  runtimes: readonly RuntimeVerdict[]): Representation {
  const view = { path: settings.path, ...content }
  if (typeof settings.html === 'function') {
    const page = Buffer.from(String(settings.html(view)))
    return representation(page, { ...common, 'content-type': 'text/html; charset=utf-8' })
  }
  const page = renderPage(view, runtimes)
  return representation(Buffer.from(page.html), {
    ...common,
    'content-type': 'text/html; charset=utf-8',
    'content-security-policy': page.csp,
    'x-content-type-options': 'nosniff'
  })
}

/** A strong entity tag: the hash of the bytes (Appendix B, "Form Change"). */
function representation (body: Buffer, headers: Record<string, string>): Representation {
  const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 32)}"`
  return { body, etag, headers: { ...headers, etag } }
}

// Only an Accept naming text/html can prefer it; every other request takes the fast path.
const MENTIONS_HTML = /text\/html/i
const OFFERED = ['application/json', 'text/html']

/** GET (and so HEAD): the same bytes to every client, whatever it did before (draft §3.1, §3.2). */
export function arrivalHandler (address: Address): RouteHandlerMethod {
  return (request, reply) => {
    const { json, html } = address.current.arrival // one read: one edition
    const accept = request.headers.accept
    // draft §3.3: no Accept, or one without text/html, gets the JSON; never a 406.
    if (html === undefined || accept === undefined || !MENTIONS_HTML.test(accept) || !prefersHtml(request)) {
      return send(request, reply, json)
    }
    return send(request, reply, html)
  }
}

function prefersHtml (request: FastifyRequest): boolean {
  return request.accepts().type(OFFERED) === 'text/html'
}

function send (request: FastifyRequest, reply: FastifyReply, representation: Representation): FastifyReply {
  reply.headers(representation.headers)
  const ifNoneMatch = request.headers['if-none-match']
  if (ifNoneMatch !== undefined && matches(ifNoneMatch, representation.etag, true)) return reply.code(304).send()
  return reply.send(representation.body)
}

/**
 * Whether an If-None-Match (weak comparison) or If-Match (strong) field value names `etag`
 * (RFC 9110 §8.8.3.2, §13.1.1, §13.1.2).
 */
export function matches (field: string, etag: string, weak: boolean): boolean {
  if (field.trim() === '*') return true
  for (const tag of field.split(',')) {
    const trimmed = tag.trim()
    if (trimmed === etag || (weak && trimmed === `W/${etag}`)) return true
  }
  return false
}
