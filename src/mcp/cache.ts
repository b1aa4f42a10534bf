// How long a list or a read stays fresh, and for whom (2026-07-28, "Caching"). Each is made of GETs
// of addresses, as the request would make them (src/mcp/rpc.ts), and is as fresh as they are: an
// answer that says so itself (its Cache-Control: max-age, no-cache, no-store) is taken at its word;
// an arrival that does not (the default) is given RFC 9111 §4.2.2's heuristic, a tenth of the time
// since its entity tag last changed on this instance, at most MAX_TTL. A change is told at once
// besides, on every subscriptions/listen stream.
import type { FastifyRequest } from 'fastify'
import type { OutgoingHttpHeaders } from 'node:http'
import { cacheDirectives } from '../fields.ts'

/** The longest a heuristic keeps anything fresh: 5 minutes, the specification's own example for a list. */
export const MAX_TTL = 300_000

/** How long one answer stays fresh, in milliseconds, and whether it is the caller's alone. */
export interface Fresh {
  readonly ttlMs: number
  readonly private: boolean
}

/** The freshness of one GET's answer, whose edition has been served since `since` (ms since the epoch). */
export function freshness (headers: OutgoingHttpHeaders, since: number, now: number): Fresh {
  const field = headers['cache-control']
  const said = cacheDirectives(field === undefined ? undefined : String(field))
  const ttlMs = said.maxAge !== undefined ? said.maxAge * 1000 : Math.min(MAX_TTL, Math.floor(Math.max(0, now - since) / 10))
  return { ttlMs, private: said.private }
}

/**
 * A list's or a read's hints, from the answers it was made of: fresh as long as the least fresh,
 * and private where a gate may apply, that is where any is private, where one address was hidden
 * from this caller (a GET refused), or where the request carries credentials a hook may read
 * (Authorization, Cookie: RFC 9111 §3.5's reasoning). Never fresher than MAX_TTL, whatever an
 * answer says; made of no answer (an empty list), MAX_TTL.
 */
export function hints (request: FastifyRequest, answers: readonly Fresh[], hidden: boolean): string {
  let ttlMs = MAX_TTL
  let secret = hidden || request.headers.authorization !== undefined || request.headers.cookie !== undefined
  for (const fresh of answers) {
    ttlMs = Math.min(ttlMs, fresh.ttlMs)
    secret ||= fresh.private
  }
  return `"ttlMs":${ttlMs},"cacheScope":"${secret ? 'private' : 'public'}"`
}

/** What a result says that nothing a caller sends changes (server/discover): public, for MAX_TTL. */
export const STEADY = `"ttlMs":${MAX_TTL},"cacheScope":"public"`
