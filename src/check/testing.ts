// fastify-gpt/testing: check a GPT address against draft-ferguson-gpt-00 from a test, through
// Fastify's inject (no socket) or over HTTP. The same checks as `fastify-gpt check <url>`.
import { Readable } from 'node:stream'
import type { FastifyInstance, InjectOptions } from 'fastify'
import { httpSender } from './http.ts'
import { formatReport } from './report.ts'
import { check } from './run.ts'
import type { CheckOptions, Report, Response, Send } from './types.ts'

export { check, formatReport, httpSender }
export type { CheckOptions, CheckResult, Exchange, Follow, Level, LinkGraph, McpBridge, McpReport, Outcome, Report, Request, Response, Send } from './types.ts'
export type { HttpOptions } from './http.ts'

export interface AddressOptions extends Omit<CheckOptions, 'mcp'> {
  /** The address's path on the app, e.g. `/poll`. Default `/`. */
  readonly path?: string
  /** Over HTTP: milliseconds an exchange may take, body included. Default 10000. */
  readonly timeout?: number
  /** Over HTTP: most bytes of an answer read. Default 8 MiB. */
  readonly maxBytes?: number
  /** Hops to follow the addresses the arrival's `l` names, with plain GETs. Default 2; 0: none. */
  readonly depth?: number
  /**
   * An MCP bridge serving the address as a tool (`fastify-gpt/mcp`, or another's): its endpoint,
   * resolved against the address's URL over HTTP, or its path on the app through inject (`/mcp`).
   * Its tool is checked against the address's POST (`report.mcp`, the checks `MCP-*`).
   */
  readonly mcp?: string | URL
}

const CHUNK = 64 * 1024
const INJECTED = 'http://inject.invalid'

/** A transport through `app.inject`: the checks run against the app without a socket. */
export function injectSender (app: FastifyInstance, path = '/'): Send {
  return async (request) => {
    const body = request.body
    const payload = body === undefined
      ? undefined
      : request.chunked === true
        ? Readable.from(chunks(body))
        : Buffer.from(body.buffer, body.byteOffset, body.length)
    const options: InjectOptions = { method: request.method, url: path, headers: { ...request.headers } }
    if (payload !== undefined) options.payload = payload
    const reply = await app.inject(options)
    return { status: reply.statusCode, headers: flatten(reply.headers), body: reply.rawPayload } satisfies Response
  }
}

function * chunks (body: Uint8Array): Generator<Buffer> {
  for (let at = 0; at < body.length; at += CHUNK) yield Buffer.from(body.subarray(at, at + CHUNK))
}

/** Header values as one string each, as on the wire. */
export function flatten (headers: Record<string, string | string[] | number | undefined>): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : String(value)
  }
  return out
}

/**
 * Checks the address at `path` of a Fastify app (through inject), or at an http(s) URL. Resolves
 * to the report: `report.ok` is false when a MUST failed (with `strict`, a SHOULD too).
 */
export async function checkAddress (target: FastifyInstance | string | URL, options: AddressOptions = {}): Promise<Report> {
  const { path = '/', timeout, maxBytes, depth, mcp, ...rest } = options
  if (typeof target === 'string' || target instanceof URL) {
    const url = new URL(target)
    const http = { ...(timeout === undefined ? {} : { timeout }), ...(maxBytes === undefined ? {} : { maxBytes }) }
    const follow = { url, ...(depth === undefined ? {} : { depth }), sendTo: (to: URL) => httpSender(to, http) }
    const bridge = mcp === undefined ? undefined : new URL(mcp, url)
    const over = bridge === undefined ? {} : { mcp: { send: httpSender(bridge, http), path: url.pathname, url: bridge.href } }
    return check(httpSender(url, http), url.href, { follow, ...over, ...rest })
  }
  await target.ready()
  // through inject, every address of the app is on one origin of its own
  const app = target
  const follow = { url: new URL(path, INJECTED), ...(depth === undefined ? {} : { depth }), sendTo: (to: URL) => injectSender(app, to.pathname + to.search) }
  const bridge = mcp === undefined ? undefined : new URL(mcp, INJECTED)
  const over = bridge === undefined ? {} : { mcp: { send: injectSender(app, bridge.pathname + bridge.search), path, url: `inject ${bridge.pathname}` } }
  return check(injectSender(target, path), `inject ${path}`, { follow, ...over, ...rest })
}

/**
 * Checks the address (as `checkAddress` does) and its tool on the MCP bridge at `mcp`: the tool
 * whose `_meta["fastify-gpt/address"]` is the address's path (else the one named from it), its
 * inputSchema against s, and the same bodies sent as POST and as tools/call (with `acts`, values s
 * admits too: each is then two acts). A bridge with no such tool: `report.unfinished` says so.
 */
export async function checkMcp (target: FastifyInstance | string | URL, mcp: string | URL, options: Omit<AddressOptions, 'mcp'> = {}): Promise<Report> {
  return checkAddress(target, { ...options, mcp })
}
