import type { FastifyReply } from 'fastify'
import symbols from 'fastify/lib/symbols.js'

/**
 * The one place that reads Fastify's internals. Until it writes them, Fastify keeps a reply's
 * headers in an object of its own under a private symbol; `reply.getHeaders()` copies it and
 * Node's headers into a new object with two spreads (Node's a dictionary made for the call),
 * which was a measurable share of a small request's CPU when every answer read it
 * (docs/benchmarks.md, "The small-request gap"). Without that symbol (a Fastify that renamed
 * it), every function here falls back to `getHeaders()`.
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
