import { isObject } from '../json/value.ts'
import { parse } from '../parse/parse.ts'
import type { Answer } from './client.ts'
import { MAX_ARRIVAL_VALUES, values } from './extent.ts'
import type { Request, Response } from './types.ts'

// The checker's MCP client: just enough of MCP's Streamable HTTP transport (2025-06-18) to find an
// address's tool on a bridge and call it, over the checker's own HTTP (a bridge is another's as
// often as ours: nothing of fastify-gpt/mcp is imported). Every request is a POST of one JSON-RPC
// message; the answer is read as JSON or as an event stream, whichever the bridge chose.

/** One exchange through the run's client (its budget, pacing and time limit), to the bridge or to the address. */
export type Exchanger = (request: Request) => Promise<Answer>

/** The revision asked for in `initialize`; a bridge answers with one it speaks. */
export const ASKED_VERSION = '2025-06-18'
const CLIENT_INFO = { name: 'fastify-gpt-check', version: '1' }
/** Most pages of tools/list read. */
const MAX_PAGES = 20
/** Most characters of a bridge's error message kept in a reason. */
const SHOWN = 200

const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }

/** What the bridge said at `initialize`: the headers every later request carries, and its revision. */
export interface Session {
  readonly headers: Readonly<Record<string, string>>
  readonly protocolVersion: string
  /** The next request's id. */
  id: number
}

export interface Tool {
  readonly name: string
  readonly inputSchema: unknown
  /** How it was found: by `_meta["fastify-gpt/address"]`, or by the name made from the path. */
  readonly by: 'address' | 'name'
  /** The tools/list answer that listed it. */
  readonly listed: Answer
}

/** What one JSON-RPC request came to: a result (with its bytes as the bridge wrote them), an error, or no JSON-RPC answer. */
export type Reply =
  | { readonly kind: 'result', readonly result: unknown, readonly bytes: Uint8Array }
  | { readonly kind: 'error', readonly code: unknown, readonly message: string }
  | { readonly kind: 'none', readonly why: string }

const encoder = new TextEncoder()
const decoder = new TextDecoder()

const concat = (parts: readonly (Uint8Array | string)[]): Uint8Array =>
  Buffer.concat(parts.map((part) => typeof part === 'string' ? encoder.encode(part) : part))

/** A JSON-RPC request (a notification without `id`); `params` is JSON text, or bytes spliced in as they are. */
export function rpc (session: Session | undefined, method: string, params?: readonly (Uint8Array | string)[], id?: number): Request {
  const body = concat([`{"jsonrpc":"2.0",${id === undefined ? '' : `"id":${id},`}"method":${JSON.stringify(method)}`,
    ...(params === undefined ? [] : [',"params":', ...params]), '}'])
  return { method: 'POST', headers: session?.headers ?? HEADERS, body }
}

/**
 * tools/call with `body`'s bytes as the arguments, exactly as sent (or as `arguments.value`, for a
 * wrapped form): a body no strict parser takes reaches the bridge as it reaches POST.
 */
export function callRequest (session: Session, id: number, tool: string, wrapped: boolean, body: Uint8Array): Request {
  const args = wrapped ? ['{"value":', body, '}'] : [body]
  return rpc(session, 'tools/call', [`{"name":${JSON.stringify(tool)},"arguments":`, ...args, '}'], id)
}

const mediaType = (response: Response): string => (response.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? ''

/** A JSON text read strictly, within the bound on what the checker parses; or why not. */
function readJson (text: Uint8Array): { value: unknown } | { why: string } {
  if (values(text) > MAX_ARRIVAL_VALUES) return { why: `it holds more than ${MAX_ARRIVAL_VALUES} JSON values` }
  try {
    return { value: parse(text, { maxDepth: Infinity }) }
  } catch (error) {
    return { why: `it is not strictly valid JSON (${(error as Error).message})` }
  }
}

/** The answer to request `id`: the JSON-RPC response in a JSON body, or in one event of an event stream. */
export function replyOf (answer: Answer, id: number): Reply {
  const { response } = answer
  if (response === undefined) return { kind: 'none', why: answer.unanswered }
  if (response.cut !== undefined) return { kind: 'none', why: `its answer did not come in full (${response.cut})` }
  const type = mediaType(response)
  const texts = type === 'text/event-stream' ? events(response.body) : type === 'application/json' ? [response.body] : []
  if (texts.length === 0) {
    return { kind: 'none', why: `answered ${response.status} ${type === 'text/event-stream' ? 'with an empty event stream' : response.headers['content-type'] ?? 'without Content-Type'}` }
  }
  let why = 'the event stream held no answer to it'
  for (const text of texts) {
    const read = readJson(text)
    if ('why' in read) {
      why = `answered ${response.status}, but ${read.why}`
      continue
    }
    const message = read.value
    if (!isObject(message) || message['jsonrpc'] !== '2.0' || !('result' in message || 'error' in message)) {
      why = `answered ${response.status} with what is not a JSON-RPC response`
      continue
    }
    // another message of an event stream (a request or a notification of the bridge's) is not the answer
    if (message['id'] !== id) {
      why = `answered ${response.status} with the id ${JSON.stringify(message['id'])}, not ${id}`
      continue
    }
    const error = message['error']
    if (isObject(error)) return { kind: 'error', code: error['code'], message: typeof error['message'] === 'string' ? error['message'].slice(0, SHOWN) : '' }
    if (response.status !== 200) return { kind: 'none', why: `answered ${response.status}` }
    return { kind: 'result', result: message['result'], bytes: member(text, 'result') as Uint8Array }
  }
  return { kind: 'none', why }
}

/** A reply in a few words, for a reason: why it is not the result asked for. */
export const unlike = (reply: Reply): string => reply.kind === 'error'
  ? `JSON-RPC error ${JSON.stringify(reply.code)}: ${reply.message}`
  : reply.kind === 'none' ? reply.why : 'a result that is not an object'

/** The data of each event of an event stream (text/event-stream, as the WHATWG's HTML defines it). */
function events (body: Uint8Array): Uint8Array[] {
  const out: Uint8Array[] = []
  let data: string[] = []
  for (const line of [...decoder.decode(body).split(/\r\n|\r|\n/), '']) {
    if (line === '') {
      if (data.length > 0) out.push(encoder.encode(data.join('\n')))
      data = []
    } else if (line === 'data' || line.startsWith('data:')) {
      const value = line.slice(5)
      data.push(value.startsWith(' ') ? value.slice(1) : value)
    }
  }
  return out
}

const QUOTE = 0x22
const BACKSLASH = 0x5c
const COMMA = 0x2c
const COLON = 0x3a
const OPENS = new Set([0x7b, 0x5b])
const CLOSES = new Set([0x7d, 0x5d])
const BLANK = new Set([0x20, 0x09, 0x0a, 0x0d])

/**
 * The bytes of the member `name` of the object a (strictly valid) JSON text is, as written, or
 * undefined without one: what a refusal's result is compared by, byte for byte.
 */
export function member (text: Uint8Array, name: string): Uint8Array | undefined {
  let depth = 0
  let key = false
  let found = false
  let start = -1
  const trimmed = (end: number): Uint8Array => {
    let from = start
    let to = end
    while (from < to && BLANK.has(text[from] as number)) from++
    while (to > from && BLANK.has(text[to - 1] as number)) to--
    return text.subarray(from, to)
  }
  for (let i = 0; i < text.length; i++) {
    const byte = text[i] as number
    if (byte === QUOTE) {
      const from = i
      for (i++; i < text.length && text[i] !== QUOTE; i++) if (text[i] === BACKSLASH) i++
      if (depth === 1 && key) {
        key = false
        found = JSON.parse(decoder.decode(text.subarray(from, i + 1))) === name
      }
    } else if (OPENS.has(byte)) {
      depth++
      key = depth === 1
    } else if (CLOSES.has(byte)) {
      depth--
      if (depth === 0 && start >= 0) return trimmed(i)
    } else if (depth === 1 && byte === COLON && found && start < 0) start = i + 1
    else if (depth === 1 && byte === COMMA) {
      if (start >= 0) return trimmed(i)
      key = true
    }
  }
  return undefined
}

/** The tool name made from an address's path: its segments joined by `_` (other characters than MCP allows too), `/` is `root`. */
export function nameOf (path: string): string {
  const name = path.replace(/^\/+|\/+$/g, '').replace(/[^A-Za-z0-9_.-]/g, '_')
  return name === '' ? 'root' : name
}

export interface Connected {
  readonly session: Session
  readonly tool: Tool
}

/**
 * Opens a session with the bridge (initialize, then notifications/initialized) and finds the
 * address's tool in tools/list; or says in one line why it could not.
 */
export async function connect (exchange: Exchanger, url: string, path: string): Promise<Connected | { why: string }> {
  const at = `the MCP bridge at ${url}`
  const first = await exchange(rpc(undefined, 'initialize', [JSON.stringify({ protocolVersion: ASKED_VERSION, capabilities: {}, clientInfo: CLIENT_INFO })], 1))
  const initialized = replyOf(first, 1)
  const result = initialized.kind === 'result' ? initialized.result : undefined
  if (!isObject(result) || typeof result['protocolVersion'] !== 'string') {
    return { why: `${at} did not answer initialize: ${initialized.kind === 'result' ? 'its result has no protocolVersion' : unlike(initialized)}` }
  }
  const protocolVersion = result['protocolVersion']
  const sessionId = first.response?.headers['mcp-session-id']
  const session: Session = {
    headers: { ...HEADERS, 'mcp-protocol-version': protocolVersion, ...(sessionId === undefined ? {} : { 'mcp-session-id': sessionId }) },
    protocolVersion,
    id: 2
  }
  await exchange(rpc(session, 'notifications/initialized'))
  const names = new Set<string>()
  let byName: Tool | undefined
  let cursor: unknown
  for (let page = 0; page < MAX_PAGES; page++) {
    const id = session.id++
    const listed = await exchange(rpc(session, 'tools/list', cursor === undefined ? undefined : [JSON.stringify({ cursor })], id))
    const reply = replyOf(listed, id)
    const result = reply.kind === 'result' && isObject(reply.result) ? reply.result : undefined
    const tools = result?.['tools']
    if (!Array.isArray(tools)) return { why: `${at} did not answer tools/list with tools: ${reply.kind === 'result' ? 'its result has no tools array' : unlike(reply)}` }
    for (const tool of tools) {
      if (!isObject(tool) || typeof tool['name'] !== 'string') continue
      const meta = tool['_meta']
      const found = { name: tool['name'], inputSchema: tool['inputSchema'], listed }
      if (isObject(meta) && meta['fastify-gpt/address'] === path) return { session, tool: { ...found, by: 'address' } }
      if (tool['name'] === nameOf(path)) byName ??= { ...found, by: 'name' }
      names.add(tool['name'])
    }
    cursor = result?.['nextCursor']
    if (typeof cursor !== 'string') break
  }
  if (byName !== undefined) return { session, tool: byName }
  const listed = names.size === 0 ? 'it lists none' : `it lists ${[...names].slice(0, 10).map((name) => JSON.stringify(name)).join(', ')}${names.size > 10 ? ` and ${names.size - 10} more` : ''}`
  return { why: `${at} lists no tool for ${path}: none has _meta["fastify-gpt/address"] ${JSON.stringify(path)} or the name ${JSON.stringify(nameOf(path))} (${listed})` }
}
