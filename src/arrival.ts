import type { FastifyReply, FastifyRequest, RouteHandlerMethod } from 'fastify'
import { renderPage } from './html.ts'
import type { Address } from './options.ts'

/** The arrival as it goes on the wire: bytes and headers, built once at registration (draft §7.4). */
interface Representation {
  readonly body: Buffer
  readonly headers: Readonly<Record<string, string>>
}

export interface Arrival {
  readonly json: Representation
  readonly html: Representation | undefined
}

export function buildArrival (address: Address): Arrival {
  const common: Record<string, string> = { vary: 'Accept' }
  if (address.type !== undefined) common['gpt-type'] = address.type // draft §3.2: advisory only

  // draft §3.2: a JSON object with p, m and s; s is the very object the validator was compiled from.
  const json = Buffer.from(JSON.stringify({ p: address.prompt, m: address.messages, s: address.form }))
  return {
    json: { body: json, headers: { ...common, 'content-type': 'application/json; charset=utf-8' } },
    html: address.html === false ? undefined : htmlRepresentation(address, common)
  }
}

function htmlRepresentation (address: Address, common: Record<string, string>): Representation {
  const view = { path: address.path, prompt: address.prompt, messages: address.messages, form: address.form }
  if (typeof address.html === 'function') {
    const page = address.html(view)
    return { body: Buffer.from(String(page)), headers: { ...common, 'content-type': 'text/html; charset=utf-8' } }
  }
  const page = renderPage(view)
  return {
    body: Buffer.from(page.html),
    headers: {
      ...common,
      'content-type': 'text/html; charset=utf-8',
      'content-security-policy': page.csp,
      'x-content-type-options': 'nosniff'
    }
  }
}

// Only an Accept naming text/html can prefer it; every other request takes the fast path.
const MENTIONS_HTML = /text\/html/i
const OFFERED = ['application/json', 'text/html']

/** GET (and so HEAD): the same bytes to every client, whatever it did before (draft §3.1, §3.2). */
export function arrivalHandler (arrival: Arrival): RouteHandlerMethod {
  const { json, html } = arrival
  if (html === undefined) return (_request, reply) => send(reply, json)
  return (request, reply) => {
    const accept = request.headers.accept
    // draft §3.3: no Accept, or one without text/html, gets the JSON; never a 406.
    if (accept === undefined || !MENTIONS_HTML.test(accept) || !prefersHtml(request)) return send(reply, json)
    return send(reply, html)
  }
}

function prefersHtml (request: FastifyRequest): boolean {
  return request.accepts().type(OFFERED) === 'text/html'
}

function send (reply: FastifyReply, representation: Representation): FastifyReply {
  return reply.headers(representation.headers).send(representation.body)
}
