// The JSON-RPC side of the bridge: one request's method, as MCP defines it, answered from the
// addresses of the host (docs/mcp.md). Everything here is a function of the request and the
// editions being served: no session is kept, so any instance answers any request.
import type { FastifyReply, FastifyRequest } from 'fastify'
import { isObject, type JsonObject } from '../json/value.ts'
import { IDEMPOTENCY_KEY } from '../fields.ts'
import { callTool, type Answer } from './call.ts'
import type { Bridge, Entry } from './bridge.ts'
import { route, urlOf, type Routed } from './enter.ts'
import { PROTOCOL_VERSIONS } from './revision.ts'
import { actorOf, newSession, revisionOf } from './session.ts'
import { CallStream, event, openStream } from './stream.ts'

export type Id = string | number

/** Every JSON answer's Content-Type. */
export const JSON_TYPE = 'application/json; charset=utf-8'

/** A JSON-RPC id as MCP allows it: a string or an integer (never null). */
export const isId = (id: unknown): id is Id => typeof id === 'string' || (typeof id === 'number' && Number.isSafeInteger(id))

export const resultOf = (id: Id, result: string): string => `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${result}}`
export const errorOf = (id: Id | null, code: number, message: string): string =>
  JSON.stringify({ jsonrpc: '2.0', id, error: { code, message } })

/** JSON-RPC's and MCP's error codes. */
export const INVALID_REQUEST = -32600
export const METHOD_NOT_FOUND = -32601
export const INVALID_PARAMS = -32602
export const PARSE_ERROR = -32700
export const RESOURCE_NOT_FOUND = -32002

/** What answering one request needs besides the bridge: the HTTP exchange, and the request's bytes. */
export interface Exchange {
  readonly request: FastifyRequest
  readonly reply: FastifyReply
  readonly bytes: Buffer
  /** The depth the strict parser allowed the request. */
  readonly depth: number
}

/** The answer to one JSON-RPC request: the response's JSON, or undefined once `reply` is answered otherwise. */
export async function answer (bridge: Bridge, exchange: Exchange, id: Id, method: string, params: JsonObject): Promise<string | undefined> {
  switch (method) {
    case 'initialize': return resultOf(id, initialize(bridge, exchange.reply, params))
    case 'ping': return resultOf(id, '{}')
    case 'tools/list': {
      const shapes = revisionOf(exchange.request)
      return await listed(bridge, exchange, id, (entries) => `{"tools":[${entries.map((entry) => bridge.tool(entry).json(shapes)).join(',')}]}`)
    }
    case 'tools/call': return await call(bridge, exchange, id, params)
    case 'resources/list': return await listed(bridge, exchange, id, (entries) => JSON.stringify({ resources: entries.map((entry) => resource(entry, originOf(exchange.request))) }))
    case 'resources/templates/list': return await listed(bridge, exchange, id, (entries) => JSON.stringify({ resourceTemplates: templates(entries, originOf(exchange.request)) }))
    case 'resources/read': return await read(bridge, exchange, id, params)
    default: return errorOf(id, METHOD_NOT_FOUND, `Method not found: ${method.slice(0, 100)}`)
  }
}

/**
 * initialize: the revision asked for if spoken here, else the newest. No session is kept: the
 * Mcp-Session-Id carries the client's name and version and the revision (src/mcp/session.ts).
 */
function initialize (bridge: Bridge, reply: FastifyReply, params: JsonObject): string {
  const asked = params['protocolVersion']
  const protocolVersion = typeof asked === 'string' && PROTOCOL_VERSIONS.includes(asked) ? asked : PROTOCOL_VERSIONS[0] as string
  const client = params['clientInfo']
  reply.header('mcp-session-id', newSession(isObject(client) ? client : undefined, protocolVersion))
  return JSON.stringify({
    protocolVersion,
    capabilities: { tools: { listChanged: true }, resources: {} },
    serverInfo: bridge.serverInfo,
    ...(bridge.instructions === undefined ? {} : { instructions: bridge.instructions })
  })
}

/** Where this request reached the host, as the client wrote it (behind a proxy, with trustProxy). */
export const originOf = (request: FastifyRequest): string => `${request.protocol}://${request.host}`

/** A call answered outside the protocol, by its HTTP status. */
const BUSY = {
  409: 'Running: the act under this idempotency key has not answered yet; call again later with the same key',
  429: 'Rate limited: call again later',
  503: 'Busy: call again later'
} as const

/** The longest progress message sent, as a job's (src/jobs/job.ts). */
const MESSAGE = 4096

async function call (bridge: Bridge, exchange: Exchange, id: Id, params: JsonObject): Promise<string | undefined> {
  const { request, reply } = exchange
  const name = params['name']
  const entry = typeof name === 'string' ? bridge.named(name) : undefined
  if (entry === undefined) return errorOf(id, INVALID_PARAMS, `Unknown tool: ${String(name).slice(0, 128)}`)
  const meta = isObject(params['_meta']) ? params['_meta'] : undefined
  const token = meta?.['progressToken']
  const ifMatch = meta?.['fastify-gpt/if-match']
  const key = meta?.['fastify-gpt/idempotency-key']
  // Progress goes on the call's own stream, opened with the first value (a quick act answers in JSON).
  let stream: CallStream | undefined
  let count = 0
  const streams = isId(token) && entry.hosted.background !== undefined && accepts(request, 'text/event-stream')
  const progress = !streams
    ? undefined
    : (value: unknown): void => {
        stream ??= new CallStream(openStream(reply))
        const message = (typeof value === 'string' ? value : JSON.stringify(value) ?? '').slice(0, MESSAGE)
        stream.progress(event(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: token, progress: ++count, message } })))
      }
  const answered: Answer = await callTool(bridge.host, {
    hosted: entry.hosted,
    tool: bridge.tool(entry),
    bytes: exchange.bytes,
    parsed: true,
    args: params['arguments'],
    ifMatch: typeof ifMatch === 'string' ? ifMatch : undefined,
    actor: actorOf(request),
    progress,
    origin: originOf(request),
    // A `_meta` key that is no string is a malformed key (its empty field), never a fall back to the header.
    idempotencyKey: key === undefined ? request.headers[IDEMPOTENCY_KEY] : typeof key === 'string' ? key : '',
    shapes: revisionOf(request)
  }, request)
  return sendAnswer(id, answered, reply, stream)
}

/** A call's answer on the bridge's reply (or the stream its progress opened). */
export function sendAnswer (id: Id, answered: Answer, reply: FastifyReply, stream?: CallStream): string | undefined {
  if ('host' in answered) {
    // A host's hook answered the POST (a 401 with WWW-Authenticate, a 403): the call gets that
    // answer. Never after progress: the act runs after every hook.
    hostAnswer(reply, answered.host)
    return undefined
  }
  const json = 'result' in answered ? resultOf(id, answered.result) : errorOf(id, -32000, BUSY[answered.status])
  if (stream !== undefined) {
    stream.end(event(json))
    return undefined
  }
  if ('status' in answered) {
    reply.code(answered.status).header('retry-after', String(answered.retryAfter)).send(json)
    return undefined
  }
  return json
}

/** Header fields of a host's answer that belong to its own message, not to what it says. */
const OWN_FIELDS = new Set(['content-length', 'transfer-encoding', 'connection', 'keep-alive', 'date'])

/**
 * A host hook's answer to a route the bridge went through, sent as the hook made it where it
 * refuses (4xx, 5xx: MCP's authorization reads a 401's WWW-Authenticate); any other is no
 * answer an MCP client can read, and is told as an error.
 */
function hostAnswer (reply: FastifyReply, routed: Routed): void {
  if (routed.status < 400) {
    reply.code(502).header('content-type', JSON_TYPE).send(errorOf(null, -32603, `The host answered the call with HTTP ${routed.status}`))
    return
  }
  reply.code(routed.status)
  for (const [name, value] of Object.entries(routed.headers)) {
    if (value !== undefined && !OWN_FIELDS.has(name)) reply.header(name, value)
  }
  reply.send(routed.body)
}

/**
 * The addresses this request may see: those whose GET, as this request would make it, the host
 * answers (draft §3.1) with 200. A GET refused by a host's hook hides the address; one that is
 * rate limited answers the whole request so.
 */
async function visible (bridge: Bridge, request: FastifyRequest): Promise<Entry[] | { readonly retryAfter: number }> {
  const entries = bridge.entries()
  const looks = await Promise.all(entries.map((entry) => route(bridge.host, request, 'GET', urlOf(entry.path), {})))
  const shown: Entry[] = []
  for (const [index, look] of looks.entries()) {
    if (look?.status === 200) shown.push(entries[index] as Entry)
    else if (look?.status === 429) return { retryAfter: Number(look.headers['retry-after'] ?? 1) || 1 }
  }
  return shown
}

/** A list of what the request may see. */
async function listed (bridge: Bridge, exchange: Exchange, id: Id, list: (entries: readonly Entry[]) => string): Promise<string | undefined> {
  const entries = await visible(bridge, exchange.request)
  if (!Array.isArray(entries)) return sendAnswer(id, { status: 429, retryAfter: entries.retryAfter }, exchange.reply)
  return resultOf(id, list(entries))
}

/** Whether the request's Accept names `type` (or a range holding it). */
function accepts (request: FastifyRequest, type: string): boolean {
  const accept = request.headers.accept
  return accept !== undefined && (accept.includes(type) || accept.includes('*/*'))
}

// An address's path as a URI's (a space or a letter past ASCII percent-encoded), and back in read().
function resource (entry: Entry, origin: string): JsonObject {
  const prompt = entry.hosted.address.current.content.prompt
  return { uri: origin + encodeURI(entry.path), name: entry.name, mimeType: 'application/json', description: prompt }
}

function templates (entries: readonly Entry[], origin: string): JsonObject[] {
  return entries.flatMap((entry) => entry.hosted.background === undefined
    ? []
    : [{ uriTemplate: `${origin}${encodeURI(entry.hosted.background.base)}/{id}`, name: `${entry.name}_job`, mimeType: 'application/json', description: `A job of the tool ${entry.name}: its state, progress and result.` }])
}

/**
 * resources/read: an address's arrival, the very bytes its GET sends (as text), or a job's: read
 * by that GET, as this request would make it. By path: the URI's origin is where the client
 * reached the host, which a proxy may rename.
 */
async function read (bridge: Bridge, exchange: Exchange, id: Id, params: JsonObject): Promise<string | undefined> {
  const uri = params['uri']
  let path: string | undefined
  try {
    // A URL's path is percent-encoded (/%C3%BCber), an address's is not (/über): decoded, each
    // address listed is found again. A malformed escape throws, as an unparsable URI does.
    path = typeof uri === 'string' ? decodeURI(new URL(uri).pathname) : undefined
  } catch {}
  const notFound = (): string => errorOf(id, RESOURCE_NOT_FOUND, 'Resource not found')
  if (path === undefined || (bridge.atPath(path) === undefined && bridge.jobAt(path) === undefined)) return notFound()
  const routed = await route(bridge.host, exchange.request, 'GET', urlOf(path), {})
  if (routed === undefined) return errorOf(id, -32000, 'The resource cannot be read now: read it again later')
  switch (routed.status) {
    case 200: return resultOf(id, JSON.stringify({ contents: [{ uri, mimeType: 'application/json', text: routed.body.toString('utf8') }] }))
    case 404: return notFound()
    case 429:
    case 503: return errorOf(id, -32000, 'The resource cannot be read now: read it again later')
    default:
      hostAnswer(exchange.reply, routed)
      return undefined
  }
}
