// fastify-gpt/mcp: every fastify-gpt address on the host as an MCP tool and resource, served over
// MCP's Streamable HTTP at one path (docs/mcp.md). Stateless: any instance answers any request.
import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import rateLimit, { type RateLimitPluginOptions } from '@fastify/rate-limit'
import fp from 'fastify-plugin'
import { DEFAULT_BODY_TIMEOUT } from '../address/options.ts'
import { Refused } from '../address/pipeline.ts'
import { QUIET_HEADERS } from '../address/rate-limit.ts'
import { Deadlines, readBody } from '../address/read.ts'
import { GPT_ERR_OPTION_INVALID } from '../errors.ts'
import { isObject, type JsonObject } from '../json/value.ts'
import { parse, ParseError } from '../parse/parse.ts'
import { Bridge, type Entry } from './bridge.ts'
import { callTool } from './call.ts'
import { closeRoutes } from './enter.ts'
import { allowedOf, rebound, type Allowed } from './guard.ts'
import { accepted, answerBatch } from './batch.ts'
import { spokenBy, unsupported } from './envelope.ts'
import { errorOf, INVALID_REQUEST, isId, JSON_TYPE, PARSE_ERROR, type Id } from './jsonrpc.ts'
import { answer, deliver, finishedAnswer, messageOf, originOf, responseOf } from './rpc.ts'
import { SPOKEN } from './revision.ts'
import { actorOf, revisionOf } from './session.ts'
import { startsArray } from './span.ts'
import { Listeners } from './stream.ts'
import { toolName } from './tools.ts'

export interface McpOptions {
  /** Where the bridge is served. Default `/mcp`. */
  path?: string
  /** The server's name and version in `initialize`. Default `{ name: 'fastify-gpt', version: '0.1.0' }`. */
  serverInfo?: { name: string, version: string }
  /** MCP's `instructions` for the client, if any. */
  instructions?: string
  /** An address's tool name, from its path. Default: its segments joined by `_` (`/orders/new` is `orders_new`). */
  toolName?: (path: string) => string
  /**
   * Host names (without port) a request may name besides the loopback ones; given, every request
   * is checked, else only those that came in on a loopback address. `false`: no check.
   */
  allowedHosts?: readonly string[] | false
  /** Origins (`https://app.example`) a browser's request may come from besides loopback ones. */
  allowedOrigins?: readonly string[]
  /**
   * Which of the host's addresses are tools, by path. Default: all. Whatever hooks gate an
   * address's GET and POST gate its tool too: a call is that POST (src/address/door.ts).
   */
  addresses?: (path: string) => boolean
  /**
   * `@fastify/rate-limit` options for every request to the bridge, or `false`. Default 600 a
   * minute per client. A call is counted by its address's own limit as well, with its posts.
   */
  rateLimit?: RateLimitPluginOptions | false
  /** Listening streams open at once (GET's, subscriptions/listen's: each hears of changed tools), a quarter of them at most (at least one) per client. Default 100. */
  maxStreams?: number
  /** Milliseconds between two heartbeats of a listening stream. Default 15000. */
  heartbeat?: number
  /** Milliseconds to receive a request's body. Default 10000, as an address's. */
  bodyTimeout?: number
}

interface Resolved {
  readonly path: string
  readonly allowed: Allowed | undefined
  readonly bodyTimeout: number
}

async function plugin (host: FastifyInstance, options: McpOptions): Promise<void> {
  const path = options.path ?? '/mcp'
  const invalid = (detail: string): Error => new GPT_ERR_OPTION_INVALID(path, detail)
  if (typeof path !== 'string' || !path.startsWith('/')) throw invalid('"path" must be a path starting with /')
  checkOptions(options, invalid)
  const listeners = new Listeners(positive(options.maxStreams, 100, 'maxStreams', invalid), positive(options.heartbeat, 15_000, 'heartbeat', invalid))
  const bridge = new Bridge({
    where: path,
    serverInfo: options.serverInfo ?? { name: 'fastify-gpt', version: '0.1.0' },
    instructions: options.instructions,
    toolName: options.toolName ?? toolName,
    serves: options.addresses ?? (() => true),
    listeners,
    host
  })
  const resolved: Resolved = {
    path,
    allowed: allowedOf(options.allowedHosts, options.allowedOrigins),
    bodyTimeout: positive(options.bodyTimeout, DEFAULT_BODY_TIMEOUT, 'bodyTimeout', invalid)
  }
  host.addHook('preClose', async () => {
    closeRoutes(host)
    listeners.close()
  })

  const limit = options.rateLimit ?? DEFAULT_RATE_LIMIT
  await host.register(async (mcp) => {
    if (limit !== false) await mcp.register(rateLimit, { ...QUIET_HEADERS, ...limit, global: true })
    mcp.addHook('onReady', async () => { bridge.start() })
    mcp.removeAllContentTypeParsers()
    const deadlines = new Deadlines(resolved.bodyTimeout)
    // The request's bytes as sent: the strict parser reads them whole (below), and a call's
    // arguments go on to the act pipeline as those same bytes.
    mcp.addContentTypeParser('application/json', (request, payload, done) => {
      readBody(request, payload, bridge.bodyLimit, deadlines, (bytes) => { done(null, bytes) })
    })
    mcp.post(path, (request, reply) => onPost(bridge, resolved, request, reply))
    mcp.get(path, (request, reply) => {
      const refused = guard(resolved, request, reply) ?? unspoken(request, reply)
      if (refused !== undefined) return refused
      // 2026-07-28 has no GET stream ("Backward Compatibility"): subscriptions/listen is its stream.
      if (revisionOf(request).perRequest || !accepts(request.headers.accept) || listeners.open(reply, request.ip) === undefined) return reply.code(405).header('allow', 'POST').send()
      return reply
    })
    mcp.delete(path, (_request, reply) => reply.code(405).header('allow', 'GET, POST').send())
  })
}

const KNOWN = new Set(['path', 'serverInfo', 'instructions', 'toolName', 'addresses', 'allowedHosts', 'allowedOrigins', 'rateLimit', 'maxStreams', 'heartbeat', 'bodyTimeout'])
const isStrings = (value: unknown): boolean => Array.isArray(value) && value.every((item) => typeof item === 'string' && item !== '')

/** The options a JavaScript host may get wrong (a string where a list goes, a misspelt name): named errors at registration. */
function checkOptions (options: McpOptions, invalid: (detail: string) => Error): void {
  for (const name of Object.keys(options)) if (!KNOWN.has(name)) throw invalid(`"${name}" is not an option of fastify-gpt/mcp`)
  const { serverInfo, instructions, toolName: name, addresses, allowedHosts, allowedOrigins, rateLimit: limit } = options as Record<string, unknown>
  const info = serverInfo as Record<string, unknown> | undefined
  if (info !== undefined && (info === null || typeof info['name'] !== 'string' || typeof info['version'] !== 'string')) throw invalid('"serverInfo" must be { name, version }, two strings')
  if (instructions !== undefined && typeof instructions !== 'string') throw invalid('"instructions" must be a string')
  if (name !== undefined && typeof name !== 'function') throw invalid('"toolName" must be a function of a path')
  if (addresses !== undefined && typeof addresses !== 'function') throw invalid('"addresses" must be a function of a path')
  if (allowedHosts !== undefined && allowedHosts !== false && !isStrings(allowedHosts)) throw invalid('"allowedHosts" must be a list of host names, or false')
  if (allowedOrigins !== undefined && !isStrings(allowedOrigins)) throw invalid('"allowedOrigins" must be a list of origins')
  if (limit !== undefined && limit !== false && (limit === null || typeof limit !== 'object')) throw invalid('"rateLimit" must be @fastify/rate-limit options, or false')
}

function positive (value: number | undefined, fallback: number, name: string, invalid: (detail: string) => Error): number {
  if (value === undefined) return fallback
  if (!Number.isSafeInteger(value) || value <= 0) throw invalid(`"${name}" must be a positive integer`)
  return value
}

/** Requests a minute per client to the bridge, whatever their method. */
export const DEFAULT_RATE_LIMIT: Readonly<RateLimitPluginOptions> = Object.freeze({ max: 600, timeWindow: 60_000 })

const accepts = (accept: string | undefined): boolean => accept !== undefined && accept.includes('text/event-stream')

/** A 403 for a request that fails the DNS-rebinding check (src/mcp/guard.ts), else undefined. */
function guard (resolved: Resolved, request: FastifyRequest, reply: FastifyReply): FastifyReply | undefined {
  const origin = request.headers.origin
  const why = rebound(resolved.allowed, request.socket.localAddress, request.headers.host, typeof origin === 'string' ? origin : undefined)
  if (why === undefined) return undefined
  return reply.code(403).header('content-type', JSON_TYPE).send(errorOf(null, -32000, why))
}

/**
 * A 400 for a request naming a protocol revision not spoken here (MCP-Protocol-Version), else
 * undefined; answering the id of `bytes`, a POST's body, where it reads strictly as one request.
 */
function unspoken (request: FastifyRequest, reply: FastifyReply, bytes?: unknown, maxDepth = 0): FastifyReply | undefined {
  const version = request.headers['mcp-protocol-version']
  if (typeof version !== 'string' || SPOKEN.includes(version)) return undefined
  return reply.code(400).header('content-type', JSON_TYPE).send(unsupported(version, idIn(bytes, maxDepth)))
}

/** JSON-RPC 2.0 §5: an error answers the request's id, null where it cannot be read. */
function idIn (bytes: unknown, maxDepth: number): Id | null {
  if (!Buffer.isBuffer(bytes)) return null
  try {
    // One level deeper than a request: a wrapped form's arguments may be (parseRequest).
    const message = parse(bytes, { maxDepth: maxDepth + 1 })
    return isObject(message) && isId(message['id']) ? message['id'] : null
  } catch {
    return null
  }
}

/** POST: one JSON-RPC message, parsed strictly as a whole (draft §5.2 (2) holds for every byte of a call). */
async function onPost (bridge: Bridge, resolved: Resolved, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  const refused = guard(resolved, request, reply)
  if (refused !== undefined) return refused
  const old = unspoken(request, reply, request.body, bridge.maxDepth)
  if (old !== undefined) return old
  reply.header('content-type', JSON_TYPE)
  const bytes = request.body
  if (bytes instanceof Refused || !Buffer.isBuffer(bytes)) {
    if (bytes instanceof Refused && bytes.unread) reply.header('connection', 'close')
    return reply.code(bytes instanceof Refused && bytes.stage === 'size' ? 413 : 400).send(errorOf(null, INVALID_REQUEST, 'The request was not received whole'))
  }
  let message: unknown
  // A batch's messages are one level deeper than a request's.
  let depth = bridge.maxDepth + (startsArray(bytes) ? 1 : 0)
  try {
    message = parseRequest(bytes, depth, true)
    if (message === DEEPER) message = parseRequest(bytes, ++depth, false)
  } catch {
    const loose = unparsed(bridge, bytes)
    if (loose === undefined) return reply.code(400).send(errorOf(null, PARSE_ERROR, 'Parse error'))
    // JSON, but not one a strict reading takes: an invalid request, whose id cannot be trusted.
    if (loose === JSON_ONLY) return reply.code(400).send(errorOf(null, INVALID_REQUEST, 'Invalid Request: a duplicated member, a number past 2^53 or a lone surrogate is not taken'))
    // A call of a known tool is an act refused or not by its address, whose POST gets these bytes
    // as they came: its strict parser refuses them as the bridge's did. Its revision reads it first.
    const spoken = spokenBy(request, loose.id, 'tools/call', loose.params)
    if ('refused' in spoken) return reply.code(400).send(spoken.refused)
    const answered = await callTool(bridge.host, {
      hosted: loose.entry.hosted,
      tool: bridge.tool(loose.entry),
      bytes,
      parsed: false,
      args: undefined,
      ifMatch: undefined,
      actor: actorOf(request, spoken.client),
      progress: undefined,
      origin: originOf(request),
      idempotencyKey: undefined,
      shapes: spoken.shapes
    }, request)
    return deliver(reply, responseOf(loose.id, finishedAnswer(bridge, spoken.shapes, answered)))
  }
  if (Array.isArray(message)) return await answerBatch(bridge, request, reply, bytes, message)
  const read = messageOf(message)
  // 2026-07-28: params that are no object hold no `_meta`, which every request must (a 400, as any malformed one).
  if (read.kind === 'invalid') return reply.code(revisionOf(request).perRequest ? 400 : read.status).send(read.error)
  if (read.kind === 'taken') return accepted(reply)
  const spoken = spokenBy(request, read.id, read.method, read.params)
  if ('refused' in spoken) return reply.code(400).send(spoken.refused)
  return deliver(reply, await answer(bridge, { request, reply, bytes, batched: false, ...spoken }, read.id, read.method, read.params))
}

const DEEPER = Symbol('deeper')

/**
 * The request, parsed strictly within `maxDepth`; DEEPER the first time it is too deep, since a
 * wrapped form's body is one level deeper than another's: parsed again one deeper, then the call
 * knows its arguments' depth was not bounded by the first (src/mcp/call.ts bodyOf).
 */
function parseRequest (bytes: Buffer, maxDepth: number, again: boolean): unknown {
  try {
    return parse(bytes, { maxDepth })
  } catch (error) {
    if (again && error instanceof ParseError && error.reason === 'depth') return DEEPER
    throw error
  }
}

/**
 * A request the strict parser refused. A tools/call of a known tool whose envelope reads loosely
 * (a duplicated member, a lone surrogate, a number past 2^53) is refused as every call is, by its
 * address; other JSON is an invalid request (JSON_ONLY); what is not JSON at all, a parse error.
 */
function unparsed (bridge: Bridge, bytes: Buffer): { readonly id: string | number, readonly entry: Entry, readonly params: JsonObject } | typeof JSON_ONLY | undefined {
  let loose: unknown
  try {
    loose = JSON.parse(bytes.toString('utf8'))
  } catch {
    return undefined
  }
  const id = isObject(loose) ? loose['id'] : undefined
  const params = isObject(loose) ? loose['params'] : undefined
  const entry = isObject(params) && typeof params['name'] === 'string' ? bridge.named(params['name']) : undefined
  return isObject(loose) && loose['method'] === 'tools/call' && isId(id) && isObject(params) && entry !== undefined ? { id, entry, params } : JSON_ONLY
}

/** Bytes that are JSON read loosely, but no call of a known tool. */
const JSON_ONLY = Symbol('json only')

export const mcp = fp(plugin as FastifyPluginAsync<McpOptions>, { fastify: '5.x', name: 'fastify-gpt/mcp' })
export default mcp
export { MODERN_VERSIONS, PROTOCOL_VERSIONS } from './revision.ts'
export { REFUSAL } from './call.ts'
