import type { FastifyRequest } from 'fastify'
import Negotiator from 'negotiator'

/**
 * Whether the request's Accept prefers `wanted` to every other type `offered` (RFC 9110 §12.5.1:
 * quality values, then the most specific range). Only an Accept that names `wanted` can: every
 * other request, most of them, is answered without parsing the field.
 *
 * A function rather than a request decorator (what @fastify/accepts is): a decorator gives the
 * address's instance Request and Reply classes of its own, and the host's hot paths then see
 * objects of several shapes (docs/benchmarks.md, "The small-request gap").
 */
export function prefers (request: FastifyRequest, offered: readonly string[], wanted: string): boolean {
  let accept = request.headers.accept
  if (accept === undefined) return false
  // draft §7.4: a long field is read up to the last whole range in its first ACCEPT_READ bytes
  if (accept.length > ACCEPT_READ) accept = accept.slice(0, Math.max(0, accept.lastIndexOf(',', ACCEPT_READ)))
  if (!accept.toLowerCase().includes(wanted)) return false
  return new Negotiator({ headers: { accept } }).mediaType(offered as string[]) === wanted
}

/**
 * The most of an Accept field negotiation reads. A browser sends about 150 bytes; Node lets a
 * client send 16 KB of header fields, 1,600 ranges that negotiator parses and sorts in 1 to 3 ms,
 * for a GET that otherwise costs some 30 µs; read up to here, they cost about 50 µs.
 */
export const ACCEPT_READ = 512
