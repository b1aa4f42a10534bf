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
  const accept = request.headers.accept
  if (accept === undefined || !accept.toLowerCase().includes(wanted)) return false
  return new Negotiator({ headers: { accept } }).mediaType(offered as string[]) === wanted
}
