// The bridge reaches an address only by the address's own routes (src/address/door.ts): a call is
// `POST <address>` and a look at a tool or resource is `GET <address>` (or its job's), dispatched
// through the host's router with the headers of the MCP request that asked, so that every hook a
// host put on those routes judges the caller as it would judge that POST or GET.
import { EventEmitter } from 'node:events'
import type { IncomingHttpHeaders, OutgoingHttpHeader, OutgoingHttpHeaders } from 'node:http'
import type { Socket } from 'node:net'
import { Readable, Writable } from 'node:stream'
import type { TLSSocket } from 'node:tls'
import type { FastifyInstance, FastifyRequest, RawReplyDefaultExpression, RawRequestDefaultExpression } from 'fastify'
import { ENTRY_FIELD } from '../address/door.ts'
import { IDEMPOTENCY_KEY } from '../fields.ts'

/** An answer of a route, as the bridge reads it. */
export interface Routed {
  readonly status: number
  readonly headers: OutgoingHttpHeaders
  readonly body: Buffer
}

/**
 * The MCP request's fields a hook may judge by (Authorization, Cookie, Host, X-Forwarded-*, ...),
 * without those that describe its own message (its length, type, encoding), ask for another
 * representation (Accept, conditional and range fields), name another act (Idempotency-Key,
 * If-Match: a call's come from its `_meta`) or would pass for the door's token.
 */
const NOT_FORWARDED = new Set([
  'content-length', 'content-type', 'content-encoding', 'transfer-encoding', 'connection', 'keep-alive',
  'upgrade', 'expect', 'te', 'trailer', 'accept', 'accept-encoding', 'if-match', 'if-none-match',
  'if-modified-since', 'if-unmodified-since', 'if-range', 'range', IDEMPOTENCY_KEY, 'prefer', ENTRY_FIELD
])

function forwarded (request: FastifyRequest, extra: Readonly<Record<string, string | string[] | undefined>>): Record<string, string | string[]> {
  const headers: Record<string, string | string[]> = {}
  const given: IncomingHttpHeaders = request.headers
  for (const name in given) {
    const value = given[name]
    if (value !== undefined && !NOT_FORWARDED.has(name)) headers[name] = value
  }
  for (const name in extra) {
    const value = extra[name]
    if (value !== undefined) headers[name] = value
  }
  return headers
}

/** The hosts that are closing (from their preClose): a route of theirs takes no more requests. */
const closing = new WeakSet<FastifyInstance>()

/** From the host's preClose on, the bridge routes nothing more through it. */
export function closeRoutes (host: FastifyInstance): void { closing.add(host) }

/**
 * The route's answer; undefined when the host is closing and takes no request, or when the
 * response was torn down before it ended. The request goes to the host's router as a request of
 * Node's own would (`routing`, Fastify's public entry for one), so Fastify makes its request and
 * reply, and runs the route's hooks, as for any other.
 */
export function route (host: FastifyInstance, request: FastifyRequest, method: 'GET' | 'POST', url: string, extra: Readonly<Record<string, string | string[] | undefined>>, payload?: Buffer): Promise<Routed | undefined> {
  if (closing.has(host)) return Promise.resolve(undefined)
  return new Promise((resolve) => {
    const peer = new Peer(request.socket)
    const incoming = new Incoming(method, url, forwarded(request, { accept: 'application/json', ...extra }), peer, payload)
    const outgoing = new Outgoing(peer)
    outgoing.once('finish', () => { resolve({ status: outgoing.statusCode, headers: outgoing.getHeaders(), body: outgoing.body() }) })
    outgoing.once('close', () => { resolve(undefined) }) // after 'finish', a promise already settled
    host.routing(incoming as unknown as RawRequestDefaultExpression, outgoing as unknown as RawReplyDefaultExpression)
  })
}

/**
 * The connection a routed request says it came by: the MCP request's peer and whether it was
 * encrypted (`request.ip`, `request.protocol`); a socket's events, of which it emits none.
 */
class Peer extends EventEmitter {
  readonly remoteAddress: string | undefined
  readonly remotePort: number | undefined
  readonly remoteFamily: string | undefined
  readonly encrypted: boolean
  constructor (socket: Socket) {
    super()
    this.remoteAddress = socket.remoteAddress
    this.remotePort = socket.remotePort
    this.remoteFamily = socket.remoteFamily
    this.encrypted = (socket as Partial<TLSSocket>).encrypted === true
  }
}

/**
 * A request as Node's HTTP server hands one on: its fields, already in the form Node gives them
 * (lower-case names), and a body read at once. Like an inject's, it never closes on its own.
 */
class Incoming extends Readable {
  readonly httpVersion = '1.1'
  readonly httpVersionMajor = 1
  readonly httpVersionMinor = 1
  readonly aborted = false
  readonly complete = true
  readonly method: string
  url: string
  readonly headers: IncomingHttpHeaders
  readonly socket: Peer
  #body: Buffer | undefined

  constructor (method: string, url: string, headers: IncomingHttpHeaders, socket: Peer, body: Buffer | undefined) {
    super({ autoDestroy: false })
    this.method = method
    this.url = url
    this.headers = headers
    this.socket = socket
    this.#body = body
  }

  /** Node's flat list of names and values. */
  get rawHeaders (): string[] {
    return Object.entries(this.headers).flatMap(([name, value]) => (Array.isArray(value) ? value : [value ?? '']).flatMap((one) => [name, one]))
  }

  override _read (): void {
    if (this.#body !== undefined) this.push(this.#body)
    this.#body = undefined
    this.push(null)
  }
}

/**
 * A response as Fastify writes one: the status, the fields (Node's header methods, by lower-case
 * name) and the bytes of the body, kept until it ends unless it is only followed (`keeps` false).
 */
class Outgoing extends Writable {
  statusCode = 200
  statusMessage = ''
  headersSent = false
  readonly socket: Peer
  readonly #headers: OutgoingHttpHeaders = {}
  readonly #chunks: Buffer[] = []
  readonly #keeps: boolean

  constructor (socket: Peer, keeps = true) {
    super()
    this.socket = socket
    this.#keeps = keeps
  }

  setHeader (name: string, value: OutgoingHttpHeader): this {
    this.#headers[name.toLowerCase()] = value
    return this
  }

  getHeader (name: string): OutgoingHttpHeader | undefined { return this.#headers[name.toLowerCase()] }
  getHeaders (): OutgoingHttpHeaders { return { ...this.#headers } }
  getHeaderNames (): string[] { return Object.keys(this.#headers) }
  hasHeader (name: string): boolean { return name.toLowerCase() in this.#headers }
  removeHeader (name: string): void { delete this.#headers[name.toLowerCase()] }

  writeHead (status: number, ...rest: Array<string | OutgoingHttpHeaders | OutgoingHttpHeader[] | undefined>): this {
    this.statusCode = status
    const fields = rest.find((one) => typeof one === 'object')
    if (Array.isArray(fields)) for (let i = 0; i + 1 < fields.length; i += 2) this.setHeader(String(fields[i]), fields[i + 1] as OutgoingHttpHeader)
    else if (fields !== undefined) for (const name in fields) this.setHeader(name, fields[name] as OutgoingHttpHeader)
    this.headersSent = true
    return this
  }

  flushHeaders (): void { this.headersSent = true }

  /** An informational answer (103) is no part of the one a route gives back. */
  writeEarlyHints (_hints: unknown, then?: () => void): void { then?.() }

  override _write (chunk: Buffer, _encoding: string, then: () => void): void {
    this.headersSent = true
    if (this.#keeps) this.#chunks.push(chunk)
    then()
  }

  body (): Buffer { return this.#chunks.length === 1 ? this.#chunks[0] as Buffer : Buffer.concat(this.#chunks) }
}

/**
 * Follows a stream the host's route answers with (a job's events, closed once the job is over)
 * to its end, keeping nothing of it: the status it came with, once it has ended; undefined when
 * the host is closing, or `signal` aborted, which also ends the route's answer (its 'close', as
 * a client leaving would).
 */
export function follow (host: FastifyInstance, request: FastifyRequest, url: string, signal: AbortSignal): Promise<number | undefined> {
  if (closing.has(host) || signal.aborted) return Promise.resolve(undefined)
  return new Promise((resolve) => {
    const peer = new Peer(request.socket)
    const outgoing = new Outgoing(peer, false)
    const leave = (): void => { outgoing.destroy() }
    const done = (status: number | undefined): void => {
      signal.removeEventListener('abort', leave)
      resolve(status)
    }
    signal.addEventListener('abort', leave, { once: true })
    outgoing.once('finish', () => { done(outgoing.statusCode) })
    outgoing.once('close', () => { done(undefined) }) // after 'finish', a promise already settled
    host.routing(new Incoming('GET', url, forwarded(request, { accept: 'application/x-ndjson' }), peer, undefined) as unknown as RawRequestDefaultExpression, outgoing as unknown as RawReplyDefaultExpression)
  })
}

/** A URL's path for an address's path (a space or a letter past ASCII percent-encoded). */
export const urlOf = (path: string): string => encodeURI(path)
