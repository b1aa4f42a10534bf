// No session is kept: the Mcp-Session-Id that `initialize` gives carries what a later request
// needs of it, the client's name and version (what GPT-Actor records, draft §6) and the revision
// negotiated, so any instance reads them from any later request.
import { randomUUID } from 'node:crypto'
import type { FastifyRequest } from 'fastify'
import type { JsonObject } from '../json/value.ts'
import { PROTOCOL_VERSIONS, shapesOf, type Shapes } from './revision.ts'

/** Longest name or version of a client kept for its GPT-Actor. */
const INFO = 64
/**
 * Longest info a session id can carry: the client's name and version as JSON, each of their
 * UTF-16 units 6 bytes at most (a control character or a lone surrogate is written `\u0001`), and
 * the revision (10 characters), in base64url: a tighter bound would lose the actor of a client
 * whose name is not ASCII.
 */
const SESSION_INFO = Math.ceil((2 * INFO * 6 + 20) * 4 / 3)

/** A client's name or version as kept for its GPT-Actor. */
const part = (value: unknown): string => typeof value === 'string' ? value.slice(0, INFO) : ''

/** A new session id: a random id, a dot, and the client's name, version and the revision as base64url JSON. */
export function newSession (client: JsonObject | undefined, revision: string): string {
  const info = JSON.stringify([part(client?.['name']), part(client?.['version']), revision])
  return `${randomUUID()}.${Buffer.from(info).toString('base64url')}`
}

/** What the request's session id carries; an id of ours from before the revision was kept has none. */
function sessionOf (request: FastifyRequest): readonly unknown[] | undefined {
  const session = request.headers['mcp-session-id']
  if (typeof session !== 'string') return undefined
  const info = session.slice(session.indexOf('.') + 1)
  if (info === '' || info.length > SESSION_INFO) return undefined
  try {
    const parts: unknown = JSON.parse(Buffer.from(info, 'base64url').toString('utf8'))
    return Array.isArray(parts) ? parts : undefined
  } catch {
    return undefined
  }
}

/**
 * The actor a request names: its GPT-Actor header, else its client as `name/version`: the one its
 * `_meta` names (2026-07-28: `client`, null for none), else, without `client`, its session's.
 */
export function actorOf (request: FastifyRequest, client?: JsonObject | null): string | undefined {
  const header = request.headers['gpt-actor']
  if (typeof header === 'string') return header
  const [name, version] = client === undefined ? sessionOf(request) ?? [] : [part(client?.['name']), part(client?.['version'])]
  if (typeof name !== 'string' || typeof version !== 'string' || name === '') return undefined
  return version === '' ? name : `${name}/${version}`
}

/**
 * The revision a request speaks: its MCP-Protocol-Version (one spoken here: the bridge refuses any
 * other first), else the one its session negotiated, else the one Streamable HTTP assumes.
 */
export function revisionOf (request: FastifyRequest): Shapes {
  const header = request.headers['mcp-protocol-version']
  if (typeof header === 'string') return shapesOf(header)
  const negotiated = sessionOf(request)?.[2]
  return shapesOf(typeof negotiated === 'string' && PROTOCOL_VERSIONS.includes(negotiated) ? negotiated : undefined)
}
