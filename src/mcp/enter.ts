// The bridge reaches an address only by the address's own routes (src/address/door.ts): a call is
// `POST <address>` and a look at a tool or resource is `GET <address>` (or its job's), dispatched
// through the host's router with the headers of the MCP request that asked, so that every hook a
// host put on those routes judges the caller as it would judge that POST or GET.
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http'
import { ENTRY_FIELD } from '../address/door.ts'
import { IDEMPOTENCY_KEY } from '../fields.ts'

/** An answer of a route, as the bridge reads it. */
export interface Routed {
  readonly status: number
  readonly headers: OutgoingHttpHeaders
  readonly body: Buffer
}

/**
 * The MCP request's fields a hook may judge by (Authorization, Cookie, Host, X-Forwarded-*, ...),
 * without those that describe its own message (its length, type, encoding), ask for another
 * representation (Accept, conditional and range fields), name another act (Idempotency-Key,
 * If-Match: a call's come from its `_meta`) or would pass for the door's token.
 */
const NOT_FORWARDED = new Set([
  'content-length', 'content-type', 'content-encoding', 'transfer-encoding', 'connection', 'keep-alive',
  'upgrade', 'expect', 'te', 'trailer', 'accept', 'accept-encoding', 'if-match', 'if-none-match',
  'if-modified-since', 'if-unmodified-since', 'if-range', 'range', IDEMPOTENCY_KEY, 'prefer', ENTRY_FIELD
])

function forwarded (request: FastifyRequest, extra: Readonly<Record<string, string | string[] | undefined>>): Record<string, string | string[]> {
  const headers: Record<string, string | string[]> = {}
  const given: IncomingHttpHeaders = request.headers
  for (const name in given) {
    const value = given[name]
    if (value !== undefined && !NOT_FORWARDED.has(name)) headers[name] = value
  }
  for (const name in extra) {
    const value = extra[name]
    if (value !== undefined) headers[name] = value
  }
  return headers
}

/**
 * The route's answer; undefined when the host is closing and takes no request. The options are
 * ours, so they are not checked again per request (`validate: false`), and the callback form
 * makes no promise chain of its own.
 */
export function route (host: FastifyInstance, request: FastifyRequest, method: 'GET' | 'POST', url: string, extra: Readonly<Record<string, string | string[] | undefined>>, payload?: Buffer): Promise<Routed | undefined> {
  return new Promise((resolve) => {
    const options = {
      method,
      url,
      headers: forwarded(request, { accept: 'application/json', ...extra }),
      ...(payload === undefined ? {} : { payload }),
      remoteAddress: request.socket.remoteAddress ?? '127.0.0.1',
      validate: false
    }
    host.inject(options, (error, response) => {
      resolve(error === null && response !== undefined ? { status: response.statusCode, headers: response.headers, body: response.rawPayload } : undefined)
    })
  })
}

/** A URL's path for an address's path (a space or a letter past ASCII percent-encoded). */
export const urlOf = (path: string): string => encodeURI(path)
