// A real listening host with the MCP bridge, the SDK's own client against it, and raw requests
// for what the client would never send (byte-level envelopes, foreign Host and Origin fields).
import { request as httpRequest, type IncomingHttpHeaders, type IncomingMessage } from 'node:http'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify'
import mcp, { type McpOptions } from '../../src/mcp/index.ts'

// The tests' note form, the one the address tests use.
export { noteForm } from '../helpers/host.ts'

export interface Bridged {
  readonly app: FastifyInstance
  /** `http://127.0.0.1:<port>` */
  readonly origin: string
  readonly port: number
  /** Every log line, parsed. */
  readonly logs: Array<Record<string, unknown>>
  /** Closes the clients opened with `connect`, then the host. */
  close (): Promise<void>
  connect (info?: { name: string, version: string }, headers?: Record<string, string>): Promise<Client>
}

/**
 * A host listening on loopback: `addresses` registers its addresses (and anything else of the
 * host's) before the bridge, which gets `options`. Its log lines at `level` and above are kept.
 */
export async function bridged (addresses: (app: FastifyInstance) => Promise<void> | void, options: McpOptions = {}, server: FastifyServerOptions = {}, level = 'debug'): Promise<Bridged> {
  const logs: Array<Record<string, unknown>> = []
  const app = Fastify({ logger: { level, stream: { write: (line: string) => { logs.push(JSON.parse(line) as Record<string, unknown>) } } }, ...server })
  await addresses(app)
  await app.register(mcp, options)
  await app.listen({ port: 0, host: '127.0.0.1' })
  const port = (app.server.address() as { port: number }).port
  const origin = `http://127.0.0.1:${port}`
  const clients: Client[] = []
  return {
    app,
    origin,
    port,
    logs,
    async close () {
      for (const client of clients) await client.close()
      await app.close()
    },
    async connect (info = { name: 'tester', version: '1.2.3' }, headers = {}) {
      const client = new Client(info)
      const transport = new StreamableHTTPClientTransport(new URL(`${origin}${options.path ?? '/mcp'}`), { requestInit: { headers } })
      await client.connect(transport)
      clients.push(client)
      return client
    }
  }
}

export interface Raw {
  readonly status: number
  readonly headers: IncomingHttpHeaders
  readonly body: string
}

export interface RawOptions {
  readonly method?: string
  readonly path?: string
  /** A header set to undefined is not sent. */
  readonly headers?: Record<string, string | undefined>
  readonly body?: string | Buffer
}

/**
 * One HTTP request over a fresh connection, with exactly these fields (node:http lets Host and
 * Origin be anything); by default those the SDK's client sends after `initialize` of the newest revision.
 */
export function raw (port: number, options: RawOptions = {}): Promise<Raw> {
  const { method = 'POST', path = '/mcp', body } = options
  const given = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25', ...options.headers }
  const headers = Object.fromEntries(Object.entries(given).filter(([, value]) => value !== undefined)) as Record<string, string>
  return new Promise((resolve, reject) => {
    const request = httpRequest({ host: '127.0.0.1', port, method, path, headers, agent: false }, (response) => {
      const chunks: Buffer[] = []
      response.on('data', (chunk: Buffer) => chunks.push(chunk))
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks).toString('utf8') }))
      response.on('error', reject)
    })
    request.on('error', reject)
    request.end(body)
  })
}

/** A request whose answer is read as it comes: a stream that stays open. */
export interface Streamed {
  readonly response: IncomingMessage
  readonly text: () => string
  readonly ended: Promise<unknown>
  close (): void
}

/** One POST of `body` to /mcp with exactly these header fields, from `from`, its answer read as it comes. */
export function streamed (port: number, body: string, headers: Record<string, string>, from = '127.0.0.1'): Promise<Streamed> {
  return new Promise((resolve, reject) => {
    let text = ''
    const request = httpRequest({ host: '127.0.0.1', port, method: 'POST', path: '/mcp', headers, agent: false, localAddress: from }, (response) => {
      response.on('data', (chunk: Buffer) => { text += chunk.toString() })
      response.on('error', () => {})
      resolve({ response, text: () => text, ended: new Promise((resolve) => response.on('close', resolve)), close: () => { request.destroy() } })
    })
    request.on('error', reject)
    request.end(body)
  })
}

/** A JSON-RPC request's text. */
export const rpcText = (method: string, params?: unknown, id: unknown = 1): string =>
  JSON.stringify({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) })

/** A tools/call's bytes, its arguments written as given (any bytes at all). */
export function callText (name: string, args: string | undefined, meta?: Record<string, unknown>, id: number | string = 1): string {
  const members = [`"name":${JSON.stringify(name)}`]
  if (args !== undefined) members.push(`"arguments":${args}`)
  if (meta !== undefined) members.push(`"_meta":${JSON.stringify(meta)}`)
  return `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"method":"tools/call","params":{${members.join(',')}}}`
}

/** The response a call's result makes, byte for byte. */
export const resultText = (result: string, id: number | string = 1): string => `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${result}}`

/** The JSON-RPC messages of an SSE body, in order. */
export function events (body: string): unknown[] {
  return body.split('\n').filter((line) => line.startsWith('data: ')).map((line) => JSON.parse(line.slice(6)) as unknown)
}

/** Waits for `check` to hold, looking every few ms; fails past a generous bound. */
export async function eventually (check: () => boolean | Promise<boolean>, what: string, bound = 5_000): Promise<void> {
  const start = Date.now()
  while (!(await check())) {
    if (Date.now() - start > bound) throw new Error(`never: ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
}
