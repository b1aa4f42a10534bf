// What a 2026-07-28 request carries besides its method's own members, and what each of its results
// does ("Base Protocol", `_meta`; Streamable HTTP, "Request Metadata"). The request names its
// revision, its client and its capabilities in its `_meta`, and its header fields say its
// revision, method and name as its body does: checked here before any method is answered, so that
// an intermediary routing on a field and the bridge acting on the body never disagree. A result
// says its resultType and who answered it.
import type { FastifyRequest } from 'fastify'
import { isObject, type JsonObject } from '../json/value.ts'
import { errorOf, HEADER_MISMATCH, INVALID_PARAMS, UNSUPPORTED_PROTOCOL_VERSION, type Id } from './jsonrpc.ts'
import { SPOKEN, type Shapes } from './revision.ts'
import { revisionOf } from './session.ts'

const PROTOCOL_VERSION = 'io.modelcontextprotocol/protocolVersion'
const CLIENT_INFO = 'io.modelcontextprotocol/clientInfo'
const CLIENT_CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities'
const LOG_LEVEL = 'io.modelcontextprotocol/logLevel'

/**
 * The member of a request's params whose value its Mcp-Name header field carries ("Standard
 * Request Headers"; the tasks extension's, "Streamable HTTP: Routing Headers").
 */
const NAMED: ReadonlyMap<string, string> = new Map([
  ['tools/call', 'name'], ['resources/read', 'uri'], ['prompts/get', 'name'],
  ['tasks/get', 'taskId'], ['tasks/update', 'taskId'], ['tasks/cancel', 'taskId']
])

/** "Log Levels": a request may ask for one, though the bridge sends no log messages. */
const LEVELS = new Set(['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'])

/** A request as its revision reads it, or the 400 that refuses it. */
export type Spoken =
  | {
    readonly shapes: Shapes
    /** The client as the request names it (2026-07-28's `_meta` clientInfo, null for none); undefined: as its session does. */
    readonly client: JsonObject | null | undefined
  }
  | { readonly refused: string }

/**
 * The revision `request` speaks, and who its client is. Under 2026-07-28: its `_meta` holds the
 * revision and capabilities (-32602 without them) and well-formed clientInfo and logLevel if any,
 * and its MCP-Protocol-Version, Mcp-Method and Mcp-Name header fields say what the body does
 * (-32020, HeaderMismatch, where one is missing or differs). A request of an older revision
 * whose body names a revision all the same speaks per request, and is refused without the field.
 */
export function spokenBy (request: FastifyRequest, id: Id, method: string, params: JsonObject): Spoken {
  const shapes = revisionOf(request)
  const meta = isObject(params['_meta']) ? params['_meta'] : undefined
  const named = meta?.[PROTOCOL_VERSION]
  if (!shapes.perRequest) {
    return named !== undefined && request.headers['mcp-protocol-version'] === undefined ? mismatch(id, 'the MCP-Protocol-Version header is missing') : { shapes, client: undefined }
  }
  const client = meta?.[CLIENT_INFO]
  const level = meta?.[LOG_LEVEL]
  const why = typeof named !== 'string' || !isObject(meta?.[CLIENT_CAPABILITIES])
    ? `_meta must hold ${PROTOCOL_VERSION} (a string) and ${CLIENT_CAPABILITIES} (an object)`
    : client !== undefined && !(isObject(client) && typeof client['name'] === 'string' && typeof client['version'] === 'string')
      ? `${CLIENT_INFO} must be { name, version }, two strings`
      : level !== undefined && !(typeof level === 'string' && LEVELS.has(level)) ? `${LOG_LEVEL} must be a log level` : undefined
  if (why !== undefined) return { refused: errorOf(id, INVALID_PARAMS, `Invalid params: ${why}`) }
  const differs = differing('MCP-Protocol-Version', shapes.revision, named as string) ??
    differing('Mcp-Method', field(request, 'mcp-method'), method) ??
    name(request, method, params)
  return differs !== undefined ? mismatch(id, differs) : { shapes, client: (client as JsonObject | undefined) ?? null }
}

/** Whether Mcp-Name says the name or URI the body does, for a method that names one. */
function name (request: FastifyRequest, method: string, params: JsonObject): string | undefined {
  const member = NAMED.get(method)
  if (member === undefined) return undefined
  const value = params[member]
  const sent = field(request, 'mcp-name')
  // A request without the name its method needs is its method's to refuse (an unknown tool, say).
  if (typeof value !== 'string' && sent === undefined) return undefined
  return differing('Mcp-Name', sent === undefined ? undefined : decoded(sent), typeof value === 'string' ? value : '')
}

const field = (request: FastifyRequest, name: string): string | undefined => {
  const value = request.headers[name]
  return typeof value === 'string' ? value : undefined
}

/** "Value Encoding": a value that is no plain ASCII field value is sent as `=?base64?<its UTF-8>?=`. */
const SENTINEL = /^=\?base64\?([A-Za-z0-9+/]*={0,2})\?=$/

function decoded (value: string): string {
  const base64 = SENTINEL.exec(value)?.[1]
  return base64 === undefined ? value : Buffer.from(base64, 'base64').toString('utf8')
}

const cut = (text: string): string => text.length > 100 ? `${text.slice(0, 100)}...` : text

function differing (header: string, sent: string | undefined, body: string): string | undefined {
  if (sent === undefined) return `the ${header} header is missing`
  return sent === body ? undefined : `${header} header value '${cut(sent)}' does not match body value '${cut(body)}'`
}

const mismatch = (id: Id, why: string): Spoken => ({ refused: errorOf(id, HEADER_MISMATCH, `Header mismatch: ${why}`) })

/**
 * UnsupportedProtocolVersionError: the revision a request names in MCP-Protocol-Version is not
 * spoken here; every one that is, listed (2026-07-28 says so; older revisions ask only for the 400).
 */
export function unsupported (version: string, id: Id | null): string {
  const requested = version.slice(0, 40)
  return errorOf(id, UNSUPPORTED_PROTOCOL_VERSION, `Unsupported protocol version: ${requested}`, { supported: SPOKEN, requested })
}

/** `"io.modelcontextprotocol/serverInfo":{...}`: who answers, in every result's `_meta` ("Per-response protocol fields"). */
export const serverInfoMember = (serverInfo: { readonly name: string, readonly version: string }): string =>
  `"io.modelcontextprotocol/serverInfo":${JSON.stringify(serverInfo)}`

/**
 * A result as 2026-07-28 sends it: `resultType` "complete" (the bridge never asks for input), or
 * "task" for a task extension's CreateTaskResult, the server in `_meta`, and a list's or read's
 * cache hints (src/mcp/cache.ts). `result` is one of the bridge's own JSON objects, none with
 * these members.
 */
export function completed (result: string, serverInfo: string, hints?: string, resultType: 'complete' | 'task' = 'complete'): string {
  const open = result === '{}' ? '{' : `${result.slice(0, -1)},`
  return `${open}${hints === undefined ? '' : `${hints},`}"resultType":"${resultType}","_meta":{${serverInfo}}}`
}

/** The tasks extension's identifier (2026-07-28; its specification, "Extension Identifier"). */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks'

/** Whether a 2026-07-28 request's client declares `extension` in its per-request capabilities. */
export function declares (params: JsonObject, extension: string): boolean {
  const meta = params['_meta']
  const capabilities = isObject(meta) ? meta[CLIENT_CAPABILITIES] : undefined
  const extensions = isObject(capabilities) ? capabilities['extensions'] : undefined
  return isObject(extensions) && isObject(extensions[extension])
}
