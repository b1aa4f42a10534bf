import type { FastifyReply } from 'fastify'
import symbols from 'fastify/lib/symbols.js'

// The one place that reads Fastify's internals (docs/architecture.md): a reply's headers. Without a symbol (a Fastify that renamed it), each function falls back to
// the public API or leaves the route as it is.

/**
 * Until it writes them, Fastify keeps a reply's headers in an object of its own;
 * `reply.getHeaders()` copies it and Node's headers into a new object with two spreads (Node's a
 * dictionary made for the call), a measurable share of a small request's CPU when every answer
 * read it (docs/benchmarks.md, "The small-request gap").
 */
const STORE = symbols['kReplyHeaders']

type Headers = ReturnType<FastifyReply['getHeaders']>

/** Fastify's header object of `reply`, if it can be read. */
function storeOf (reply: FastifyReply, store = STORE): Headers | undefined {
  const held = store === undefined ? undefined : (reply as unknown as Record<symbol, unknown>)[store]
  return held !== null && typeof held === 'object' ? held as Headers : undefined
}

/** The names of the headers `reply` carries so far (what `Object.keys(reply.getHeaders())` gives). */
export function headerNames (reply: FastifyReply, store = STORE): string[] {
  const held = storeOf(reply, store)
  if (held === undefined) return Object.keys(reply.getHeaders())
  const raw = reply.raw.getHeaderNames() // set on Node's response directly: rare
  return raw.length === 0 ? Object.keys(held) : [...new Set([...raw, ...Object.keys(held)])]
}

/** A copy of the headers `reply` carries so far (what `reply.getHeaders()` gives). */
export function headersOf (reply: FastifyReply, store = STORE): Headers {
  const held = storeOf(reply, store)
  return held === undefined || reply.raw.getHeaderNames().length > 0 ? reply.getHeaders() : { ...held }
}

/**
 * Takes a header off `reply`, and off Node's response too: early Fastify 5 releases (5.0.0 among
 * them) remove it only from Fastify's own headers, leaving one set on the response directly.
 */
export function removeHeader (reply: FastifyReply, name: string): void {
  reply.removeHeader(name)
  if (!reply.raw.headersSent) reply.raw.removeHeader(name)
}
