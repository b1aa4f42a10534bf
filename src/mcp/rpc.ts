// The JSON-RPC side of the bridge: one request's method, as MCP defines it, answered from the
// addresses of the host (docs/mcp.md). Everything here is a function of the request and the
// editions being served: no session is kept, so any instance answers any request.
import type { FastifyReply, FastifyRequest } from 'fastify'
import { isObject, type JsonObject } from '../json/value.ts'
import { IDEMPOTENCY_KEY } from '../fields.ts'
import { callAsTask, callTool, type Answer } from './call.ts'
import type { Bridge, Entry } from './bridge.ts'
import { freshness, hints, STEADY, type Fresh } from './cache.ts'
import { route, urlOf, type Routed } from './enter.ts'
import { completed, declares, TASKS_EXTENSION } from './envelope.ts'
import { errorOf, INVALID_PARAMS, INVALID_REQUEST, isId, JSON_TYPE, METHOD_NOT_FOUND, RESOURCE_NOT_FOUND, resultOf, type Id } from './jsonrpc.ts'
import { PROTOCOL_VERSIONS, shapesOf, SPOKEN, type Shapes } from './revision.ts'
import { actorOf, newSession } from './session.ts'
import { CallStream, event, openStream, type Listening } from './stream.ts'
import { asksTask, cancelTask, createdTask, getTask, heard, TASKS_CAPABILITY, taskResult, tellWhenOver, undeclared, updateTask } from './tasks.ts'
import { hasView, UI_EXTENSION, UI_SCHEME, VIEW_META, VIEW_TYPE, viewNamed, viewResource } from './view.ts'

/** What answering one request needs besides the bridge: the HTTP exchange, the request's bytes, and what it speaks. */
export interface Exchange {
  readonly request: FastifyRequest
  readonly reply: FastifyReply
  /** The message's own bytes: the whole request's, or its item's in a batch. */
  readonly bytes: Buffer
  /** Whether the message is one of a batch: answered in its array, never on a stream of its own. */
  readonly batched: boolean
  /** The revision the request speaks (src/mcp/envelope.ts spokenBy). */
  readonly shapes: Shapes
  /** Its client as it names itself in `_meta` (2026-07-28; null for none), undefined: as its session does. */
  readonly client: JsonObject | null | undefined
}

/**
 * An answer outside JSON-RPC's own: an HTTP status that says "later" (with its JSON-RPC error and
 * when), another status its revision gives a JSON-RPC error (2026-07-28's 404), or a host hook's own answer.
 */
export type Outside =
  | { readonly status: 400 | 404 | 406 | 409 | 429 | 503, readonly retryAfter?: number, readonly json: string }
  | { readonly host: Routed }

/** What one request comes to: its response's JSON, an answer outside the protocol, or undefined once a call's own stream holds it. */
export type Response = string | Outside | undefined

/** A JSON-RPC message as read: a request to answer, one taken without an answer (a notification, a response), or invalid. */
export type Message =
  | { readonly kind: 'request', readonly id: Id, readonly method: string, readonly params: JsonObject }
  | { readonly kind: 'taken' }
  | { readonly kind: 'invalid', readonly error: string, readonly status: 200 | 400 }

const TAKEN: Message = Object.freeze({ kind: 'taken' })
const invalid = (id: unknown, message: string): Message => ({ kind: 'invalid', error: errorOf(isId(id) ? id : null, INVALID_REQUEST, message), status: 400 })

/**
 * One message read as JSON-RPC 2.0 and MCP have it. A notification, or a response to a request
 * of ours (none is ever sent), is taken with nothing to answer; a request whose method is not a
 * string is neither.
 */
export function messageOf (message: unknown): Message {
  if (!isObject(message)) return invalid(null, 'Not a JSON-RPC message')
  const { id, method, params } = message
  if (message['jsonrpc'] !== '2.0') return invalid(id, 'Not a JSON-RPC 2.0 message')
  const response = id !== undefined && method === undefined && ('result' in message || 'error' in message)
  if (id !== undefined && typeof method !== 'string' && !response) return invalid(id, 'The method must be a string')
  if (typeof method !== 'string' || id === undefined) return TAKEN
  if (!isId(id)) return invalid(null, 'The id must be a string or an integer')
  if (params !== undefined && !isObject(params)) return { kind: 'invalid', error: errorOf(id, INVALID_PARAMS, 'params must be an object'), status: 200 }
  return { kind: 'request', id, method, params: params ?? {} }
}

/**
 * Methods of MCP's the bridge does not offer, and why: none is in its capabilities, and each is
 * -32601 saying so (docs/mcp.md lists them, and a test holds the list to this table).
 */
export const NOT_OFFERED: ReadonlyMap<string, string> = new Map([
  ['logging/setLevel', 'the bridge sends no log messages; an address logs to its host\'s logger'],
  ['completion/complete', 'a form\'s enum and const already name every value a member may take'],
  ['prompts/list', 'an address\'s p and m are its tool\'s description'],
  ['prompts/get', 'an address\'s p and m are its tool\'s description'],
  ['resources/subscribe', 'a changed tool is told by notifications/tools/list_changed: read its resource again'],
  ['resources/unsubscribe', 'a changed tool is told by notifications/tools/list_changed: read its resource again'],
  ['tasks/list', 'a task\'s id is its job address, a capability: a task is found only by who holds its id']
])

/**
 * Methods of one era only: true, 2026-07-28's own; false, those it removed (the handshake, ping,
 * logging's level and resources' subscriptions: "Key Changes"). In the other era each is an
 * unknown method.
 */
const ERA: ReadonlyMap<string, boolean> = new Map([
  ['server/discover', true],
  ['subscriptions/listen', true],
  ['initialize', false],
  ['ping', false],
  ['logging/setLevel', false],
  ['resources/subscribe', false],
  ['resources/unsubscribe', false]
])

/** The answer to one JSON-RPC request. */
export async function answer (bridge: Bridge, exchange: Exchange, id: Id, method: string, params: JsonObject): Promise<Response> {
  const { shapes } = exchange
  if (ERA.get(method) === !shapes.perRequest) return notFound(id, method, shapes, undefined)
  switch (method) {
    // 2025-03-26, "Lifecycle": initialize MUST NOT be part of a batch.
    case 'initialize': return exchange.batched ? errorOf(id, INVALID_REQUEST, 'initialize is not taken in a batch') : resultOf(id, initialize(bridge, exchange.reply, params))
    case 'ping': return resultOf(id, '{}')
    case 'server/discover': return resultOf(id, finished(bridge, shapes, discover(bridge), STEADY))
    case 'subscriptions/listen': return await listen(bridge, exchange, id, params)
    case 'tools/list': return await listed(bridge, exchange, id, (entries) => `{"tools":[${entries.map((entry) => bridge.tool(entry).json(shapes)).join(',')}]}`)
    case 'tools/call': return await call(bridge, exchange, id, params)
    case 'resources/list': return await listed(bridge, exchange, id, (entries) => JSON.stringify({ resources: entries.flatMap((entry) => resources(entry, originOf(exchange.request))) }))
    case 'resources/templates/list': return await listed(bridge, exchange, id, (entries) => JSON.stringify({ resourceTemplates: templates(entries, originOf(exchange.request)) }))
    case 'resources/read': return await read(bridge, exchange, id, params)
    case 'tasks/get':
    case 'tasks/update':
    case 'tasks/cancel':
    case 'tasks/result': return await task(bridge, exchange, id, method, params)
    default: return notFound(id, method, shapes, NOT_OFFERED.get(method))
  }
}

/**
 * A `tasks/` method, where the request's revision has it: 2025-11-25's get, result and cancel;
 * the 2026-07-28 extension's get, update and cancel, for a client that declares it (-32021, its
 * "Error Handling"), where tasks/result is removed (-32601, its "Backward Compatibility").
 */
async function task (bridge: Bridge, exchange: Exchange, id: Id, method: string, params: JsonObject): Promise<Response> {
  const { request, shapes } = exchange
  const offered = shapes.tasks === 'core' ? method !== 'tasks/update' : shapes.tasks === 'extension' && method !== 'tasks/result'
  if (!offered) return notFound(id, method, shapes, undefined)
  if (shapes.tasks === 'extension' && !declares(params, TASKS_EXTENSION)) return missing(id)
  switch (method) {
    case 'tasks/get': return await getTask(bridge, request, id, params, shapes)
    case 'tasks/update': return await updateTask(bridge, request, id, params)
    case 'tasks/cancel': return await cancelTask(bridge, request, id, params, shapes)
    default: return await taskResult(bridge, request, id, params, shapes)
  }
}

/** The tasks extension's -32021, with HTTP 400 as 2026-07-28 asks of it ("Capability Negotiation"). */
const missing = (id: Id): Response => ({ status: 400, json: undeclared(id) })

/** -32601; from 2026-07-28 with HTTP 404 ("Protocol Version Header"), whose JSON-RPC body tells it from a server without the endpoint. */
function notFound (id: Id, method: string, shapes: Shapes, why: string | undefined): Response {
  const json = errorOf(id, METHOD_NOT_FOUND, `Method not found: ${method.slice(0, 100)}${why === undefined ? '' : ` (not offered: ${why})`}`)
  return shapes.perRequest ? { status: 404, json } : json
}

/** A result as `shapes`' revision sends it: from 2026-07-28, with its resultType, the server, and `hints` (src/mcp/envelope.ts). */
export const finished = (bridge: Bridge, shapes: Shapes, result: string, hints?: string): string =>
  shapes.perRequest ? completed(result, bridge.serverInfoMember, hints) : result

/** A call's answer as `shapes`' revision sends it. */
export const finishedAnswer = (bridge: Bridge, shapes: Shapes, answered: Answer): Answer =>
  'result' in answered ? { result: finished(bridge, shapes, answered.result) } : answered

/** What the bridge offers, in either era: tools, told when they change; resources, without subscriptions. */
const CAPABILITIES = { tools: { listChanged: true }, resources: {} }

/** 2026-07-28's, with the extensions spoken: tasks and MCP Apps' ui (each's "Capability Negotiation": no settings, an empty object). */
const MODERN_CAPABILITIES = { ...CAPABILITIES, extensions: { [TASKS_EXTENSION]: {}, [UI_EXTENSION]: {} } }

/**
 * initialize: the revision asked for if spoken here, else the newest (of those with a handshake).
 * No session is kept: the Mcp-Session-Id carries the client's name and version and the revision
 * (src/mcp/session.ts).
 */
function initialize (bridge: Bridge, reply: FastifyReply, params: JsonObject): string {
  const asked = params['protocolVersion']
  const protocolVersion = typeof asked === 'string' && PROTOCOL_VERSIONS.includes(asked) ? asked : PROTOCOL_VERSIONS[0] as string
  const client = params['clientInfo']
  reply.header('mcp-session-id', newSession(isObject(client) ? client : undefined, protocolVersion))
  return JSON.stringify({
    protocolVersion,
    capabilities: shapesOf(protocolVersion).tasks === 'core' ? { ...CAPABILITIES, tasks: TASKS_CAPABILITY } : CAPABILITIES,
    serverInfo: bridge.serverInfo,
    ...(bridge.instructions === undefined ? {} : { instructions: bridge.instructions })
  })
}

/**
 * server/discover (2026-07-28): the revisions the bridge supports (DiscoverResult, those an
 * UnsupportedProtocolVersionError lists), what it offers, its instructions; who it is goes in `_meta`.
 */
function discover (bridge: Bridge): string {
  return JSON.stringify({
    supportedVersions: SPOKEN,
    capabilities: MODERN_CAPABILITIES,
    ...(bridge.instructions === undefined ? {} : { instructions: bridge.instructions })
  })
}

/**
 * subscriptions/listen (2026-07-28), where a GET stream was: a stream of its own, opened by the
 * acknowledgment of what it will hear, each message tagged with the request's id, and ended by
 * the bridge, when it closes, with the request's response (a graceful end). It hears of changed
 * tools if it asks, and of the tasks it names (`taskIds`, the tasks extension's, for a client
 * declaring it: -32021 otherwise) that it may read, each once its job is over (src/mcp/tasks.ts).
 * Past maxStreams, 503 as any "later".
 */
async function listen (bridge: Bridge, exchange: Exchange, id: Id, params: JsonObject): Promise<Response> {
  const filter = params['notifications']
  if (!isObject(filter)) return errorOf(id, INVALID_PARAMS, 'Invalid params: notifications must be an object, the notifications to hear')
  const asked = filter['taskIds']
  if (asked !== undefined && !(Array.isArray(asked) && asked.every((taskId) => typeof taskId === 'string'))) return errorOf(id, INVALID_PARAMS, 'Invalid params: taskIds must be an array of strings')
  if (asked !== undefined && !declares(params, TASKS_EXTENSION)) return missing(id)
  if (!accepts(exchange.request, 'text/event-stream')) return { status: 406, json: errorOf(id, INVALID_REQUEST, 'subscriptions/listen is answered as a stream: accept text/event-stream') }
  const taskIds = asked === undefined ? undefined : await heard(bridge, exchange.request, id, asked as string[])
  const subscription = `"io.modelcontextprotocol/subscriptionId":${JSON.stringify(id)}`
  const tools = filter['toolsListChanged'] === true
  const granted = JSON.stringify({ ...(tools ? { toolsListChanged: true } : {}), ...(taskIds === undefined ? {} : { taskIds }) })
  const listening: Listening = {
    opening: event(`{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{${subscription}},"notifications":${granted}}}`),
    // notifications/tools/list_changed, the one notification told to every stream, has no params of its own.
    tell: tools ? (message) => event(`${message.slice(0, -1)},"params":{"_meta":{${subscription}}}}`) : () => '',
    closing: event(resultOf(id, `{"resultType":"complete","_meta":{${subscription},${bridge.serverInfoMember}}}`))
  }
  const listened = bridge.listeners.open(exchange.reply, exchange.request.ip, listening)
  if (listened === undefined) return { status: 503, retryAfter: 1, json: errorOf(id, -32000, 'Busy: as many streams as the bridge keeps are open; listen again later') }
  if (taskIds !== undefined) tellWhenOver(bridge, exchange.request, id, taskIds, listened, exchange.shapes)
  return undefined
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

async function call (bridge: Bridge, exchange: Exchange, id: Id, params: JsonObject): Promise<Response> {
  const { request, reply } = exchange
  const name = params['name']
  const entry = typeof name === 'string' ? bridge.named(name) : undefined
  if (entry === undefined) return errorOf(id, INVALID_PARAMS, `Unknown tool: ${String(name).slice(0, 128)}`)
  const task = exchange.shapes.tasks === 'core' && asksTask(params)
  // 2025-11-25, "Tool-Level Negotiation": a tool without taskSupport called as a task is -32601.
  if (task && entry.hosted.background === undefined) return errorOf(id, METHOD_NOT_FOUND, `Method not found: tools/call as a task (the tool ${entry.name} has no task support)`)
  const meta = isObject(params['_meta']) ? params['_meta'] : undefined
  const token = meta?.['progressToken']
  const ifMatch = meta?.['fastify-gpt/if-match']
  const key = meta?.['fastify-gpt/idempotency-key']
  // Progress goes on the call's own stream, opened with the first value (a quick act answers in JSON).
  let stream: CallStream | undefined
  let count = 0
  const streams = !task && !exchange.batched && isId(token) && entry.hosted.background !== undefined && accepts(request, 'text/event-stream')
  const progress = !streams
    ? undefined
    : (value: unknown): void => {
        stream ??= new CallStream(openStream(reply))
        const message = (typeof value === 'string' ? value : JSON.stringify(value) ?? '').slice(0, MESSAGE)
        stream.progress(event(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: token, progress: ++count, message } })))
      }
  const facts = {
    hosted: entry.hosted,
    tool: bridge.tool(entry),
    bytes: exchange.bytes,
    parsed: true,
    args: params['arguments'],
    ifMatch: typeof ifMatch === 'string' ? ifMatch : undefined,
    actor: actorOf(request, exchange.client),
    progress,
    origin: originOf(request),
    // A `_meta` key that is no string is a malformed key (its empty field), never a fall back to the header.
    idempotencyKey: key === undefined ? request.headers[IDEMPOTENCY_KEY] : typeof key === 'string' ? key : '',
    shapes: exchange.shapes
  }
  if (task) {
    const tasked = await callAsTask(bridge.host, facts, request, true)
    return 'job' in tasked ? await createdTask(bridge, request, id, tasked.job, exchange.shapes) : responseOf(id, tasked)
  }
  // The tasks extension, "Capability Negotiation": the server decides, and here the address
  // does: an act that outlives `background.after` is a job, told as a task to a client that
  // declares the extension, and as the job's handle to any other.
  if (exchange.shapes.tasks === 'extension' && entry.hosted.background !== undefined && declares(params, TASKS_EXTENSION)) {
    const tasked = await callAsTask(bridge.host, facts, request, false)
    if (!('job' in tasked)) return responseOf(id, finishedAnswer(bridge, exchange.shapes, tasked), stream)
    const created = await createdTask(bridge, request, id, tasked.job, exchange.shapes)
    if (stream === undefined) return created
    // Past progress the stream is the answer: a hook's refusal of the job's GET is told there as
    // an error naming its status, as in a batch.
    stream.end(event(batchedResponse(id, created) as string))
    return undefined
  }
  const answered: Answer = await callTool(bridge.host, facts, request)
  return responseOf(id, finishedAnswer(bridge, exchange.shapes, answered), stream)
}

/**
 * A call's answer as a response; on the stream its progress opened, it ends that stream. A host's
 * hook's answer to the POST (a 401 with WWW-Authenticate, a 403) is the call's: never after
 * progress, since the act runs after every hook.
 */
export function responseOf (id: Id, answered: Answer, stream?: CallStream): Response {
  if ('host' in answered) return answered
  const json = 'result' in answered ? resultOf(id, answered.result) : errorOf(id, -32000, BUSY[answered.status])
  if (stream !== undefined) {
    stream.end(event(json))
    return undefined
  }
  return 'status' in answered ? { status: answered.status, retryAfter: answered.retryAfter, json } : json
}

/** A single request's response on the bridge's reply: its JSON, or the answer outside the protocol as it was made. */
export function deliver (reply: FastifyReply, response: Response): FastifyReply {
  if (response === undefined) return reply
  if (typeof response === 'string') return reply.send(response)
  if ('host' in response) return hostAnswer(reply, response.host)
  if (response.retryAfter !== undefined) reply.header('retry-after', String(response.retryAfter))
  return reply.code(response.status).send(response.json)
}

/**
 * A response as one of a batch's: the array has no room for an answer outside the protocol, so a
 * host's hook's is an error naming its status (sent alone, the call gets that answer itself).
 */
export function batchedResponse (id: Id, response: Response): string | undefined {
  if (response === undefined || typeof response === 'string') return response // undefined: never, a batched call has no stream
  if ('json' in response) return response.json
  return errorOf(id, response.host.status < 400 ? -32603 : -32000, `The host answered the call with HTTP ${response.host.status}${response.host.status < 400 ? '' : ': send it alone to read that answer'}`)
}

/** Header fields of a host's answer that belong to its own message, not to what it says. */
const OWN_FIELDS = new Set(['content-length', 'transfer-encoding', 'connection', 'keep-alive', 'date'])

/**
 * A host hook's answer to a route the bridge went through, sent as the hook made it where it
 * refuses (4xx, 5xx: MCP's authorization reads a 401's WWW-Authenticate); any other is no
 * answer an MCP client can read, and is told as an error.
 */
function hostAnswer (reply: FastifyReply, routed: Routed): FastifyReply {
  if (routed.status < 400) {
    return reply.code(502).header('content-type', JSON_TYPE).send(errorOf(null, -32603, `The host answered the call with HTTP ${routed.status}`))
  }
  reply.code(routed.status)
  for (const [name, value] of Object.entries(routed.headers)) {
    if (value !== undefined && !OWN_FIELDS.has(name)) reply.header(name, value)
  }
  return reply.send(routed.body)
}

/** What a request may see: the addresses shown, how fresh each one's GET said it is, and whether any was hidden. */
interface Seen {
  readonly shown: readonly Entry[]
  readonly fresh: readonly Fresh[]
  readonly hidden: boolean
}

/**
 * The addresses this request may see: those whose GET, as this request would make it, the host
 * answers (draft §3.1) with 200. A GET refused by a host's hook hides the address; one that is
 * rate limited answers the whole request so.
 */
async function visible (bridge: Bridge, request: FastifyRequest): Promise<Seen | { readonly retryAfter: number }> {
  const entries = bridge.entries()
  const looks = await Promise.all(entries.map((entry) => route(bridge.host, request, 'GET', urlOf(entry.path), {})))
  const shown: Entry[] = []
  const fresh: Fresh[] = []
  let hidden = false
  const now = Date.now()
  for (const [index, look] of looks.entries()) {
    const entry = entries[index] as Entry
    if (look?.status === 429) return { retryAfter: Number(look.headers['retry-after'] ?? 1) || 1 }
    if (look?.status !== 200) {
      hidden = true
      continue
    }
    shown.push(entry)
    fresh.push(freshness(look.headers, bridge.changedAt(entry), now))
  }
  return { shown, fresh, hidden }
}

/** A list of what the request may see; from 2026-07-28 as fresh as the GETs it was made of (src/mcp/cache.ts). */
async function listed (bridge: Bridge, exchange: Exchange, id: Id, list: (entries: readonly Entry[]) => string): Promise<Response> {
  const seen = await visible(bridge, exchange.request)
  if (!('shown' in seen)) return responseOf(id, { status: 429, retryAfter: seen.retryAfter })
  return resultOf(id, finished(bridge, exchange.shapes, list(seen.shown), hints(exchange.request, seen.fresh, seen.hidden)))
}

/** Whether the request's Accept names `type` (or a range holding it). */
function accepts (request: FastifyRequest, type: string): boolean {
  const accept = request.headers.accept
  return accept !== undefined && (accept.includes(type) || accept.includes('*/*'))
}

// An address's path as a URI's (a space or a letter past ASCII percent-encoded), and back in read();
// then its view, where it has one (MCP Apps, "Lifecycle": resources/list includes ui:// resources).
function resources (entry: Entry, origin: string): JsonObject[] {
  const prompt = entry.hosted.address.current.content.prompt
  const arrival = { uri: origin + encodeURI(entry.path), name: entry.name, mimeType: 'application/json', description: prompt }
  return hasView(entry.hosted) ? [arrival, viewResource(entry.name, entry.hosted)] : [arrival]
}

function templates (entries: readonly Entry[], origin: string): JsonObject[] {
  return entries.flatMap((entry) => entry.hosted.background === undefined
    ? []
    : [{ uriTemplate: `${origin}${encodeURI(entry.hosted.background.base)}/{id}`, name: `${entry.name}_job`, mimeType: 'application/json', description: `A job of the tool ${entry.name}: its state, progress and result.` }])
}

/** The address a view's URI names, if it has a view. */
function viewAt (bridge: Bridge, uri: string): Entry | undefined {
  const name = viewNamed(uri)
  const entry = name === undefined ? undefined : bridge.named(name)
  return entry !== undefined && hasView(entry.hosted) ? entry : undefined
}

/** The path of the address or job a URI names: by its path, its origin being where the client reached the host. */
function pathOf (uri: string): string | undefined {
  try {
    // A URL's path is percent-encoded (/%C3%BCber), an address's is not (/über): decoded, each
    // address listed is found again. A malformed escape throws, as an unparsable URI does.
    return decodeURI(new URL(uri).pathname)
  } catch {
    return undefined
  }
}

/**
 * resources/read: an address's arrival, the very bytes its GET sends (as text), or a job's: read
 * by that GET, as this request would make it; or an address's view, read where that GET is 200.
 * By path: the URI's origin is where the client reached the host, which a proxy may rename. Not
 * found: -32002, from 2026-07-28 -32602 naming the URI.
 */
async function read (bridge: Bridge, exchange: Exchange, id: Id, params: JsonObject): Promise<Response> {
  const uri = params['uri']
  const view = typeof uri === 'string' ? viewAt(bridge, uri) : undefined
  // MCP Apps, "Reservations in MCP": ui:// names views, never an address's arrival.
  const path = view?.path ?? (typeof uri === 'string' && !uri.startsWith(UI_SCHEME) ? pathOf(uri) : undefined)
  const { shapes } = exchange
  const notFound = (): string => shapes.perRequest ? errorOf(id, INVALID_PARAMS, 'Resource not found', { uri }) : errorOf(id, RESOURCE_NOT_FOUND, 'Resource not found')
  const entry = view ?? (path === undefined ? undefined : bridge.atPath(path))
  if (path === undefined || (entry === undefined && bridge.jobAt(path) === undefined)) return notFound()
  const routed = await route(bridge.host, exchange.request, 'GET', urlOf(path), {})
  if (routed === undefined) return errorOf(id, -32000, 'The resource cannot be read now: read it again later')
  switch (routed.status) {
    case 200: {
      const now = Date.now()
      // A job's GET says itself how fresh it is (private, no-cache); an arrival, since when it is what it is.
      const fresh = freshness(routed.headers, entry === undefined ? now : bridge.changedAt(entry), now)
      const contents = view === undefined
        ? { uri, mimeType: 'application/json', text: routed.body.toString('utf8') }
        : { uri, mimeType: VIEW_TYPE, text: bridge.view(view), ...(shapes.meta ? { _meta: VIEW_META } : {}) }
      return resultOf(id, finished(bridge, shapes, JSON.stringify({ contents: [contents] }), hints(exchange.request, [fresh], false)))
    }
    case 404: return notFound()
    case 429:
    case 503: return errorOf(id, -32000, 'The resource cannot be read now: read it again later')
    default:
      return { host: routed }
  }
}
