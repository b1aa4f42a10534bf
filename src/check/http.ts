import { request as httpRequest, type IncomingMessage } from 'node:http'
import { request as httpsRequest } from 'node:https'
import type { Response, Send } from './types.ts'

// A transport over HTTP(S) with node:http: it sends exactly the headers given (fetch would add
// Accept, User-Agent and more, and the arrival checks need a request that has none). The address
// may be hostile: every exchange is bounded in bytes kept and in time, whole (a body that drips a
// byte a second ends with the exchange), and no redirect is ever followed.

const CHUNK = 64 * 1024
export const DEFAULT_TIMEOUT = 10_000
/**
 * Most bytes of an answer read. A fastify-gpt arrival holds every message of `m`, and with tens of
 * thousands of them passes 1 MiB: 8 MiB leaves room for those and is cheap to hold.
 */
export const DEFAULT_MAX_BYTES = 8 * 1024 * 1024

export interface HttpOptions {
  /** Milliseconds an exchange may take, first byte sent to last byte read. Default 10000. */
  readonly timeout?: number
  /** Most bytes of an answer's body read; past them the answer is cut. Default 8 MiB. */
  readonly maxBytes?: number
}

/** An error before any connection was made: the address could not be reached at all. */
export class Unreachable extends Error {}

export function httpSender (url: URL, options: HttpOptions | number = {}): Send {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new TypeError(`not an http(s) URL: ${url.href}`)
  const { timeout = DEFAULT_TIMEOUT, maxBytes = DEFAULT_MAX_BYTES } = typeof options === 'number' ? { timeout: options } : options
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest
  return (sent) => new Promise<Response>((resolve, reject) => {
    const headers: Record<string, string> = { ...sent.headers }
    if (sent.method === 'POST') {
      if (sent.chunked === true) headers['transfer-encoding'] = 'chunked'
      else headers['content-length'] = String(sent.body?.length ?? 0)
    }
    let connected = false
    let settled = false
    let answer: ((cut: string) => void) | undefined
    const finish = (outcome: () => void): void => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      outcome()
      // the verdict is in: whatever is still unsent or unread is not needed
      outgoing.destroy()
    }
    // one connection per request: nothing of one exchange can carry over to the next
    const outgoing = request(url, { method: sent.method, headers, agent: false, timeout })
    const timer = setTimeout(() => {
      const cut = `not complete within ${timeout} ms`
      if (answer !== undefined) answer(cut)
      else finish(() => reject(new Error(`no answer within ${timeout} ms`)))
    }, timeout)
    outgoing.on('socket', (socket) => {
      socket.once(url.protocol === 'https:' ? 'secureConnect' : 'connect', () => { connected = true })
    })
    outgoing.on('timeout', () => outgoing.destroy(new Error(`no answer within ${timeout} ms`)))
    outgoing.on('error', (error) => finish(() => reject(connected ? error : new Unreachable(error.message))))
    outgoing.on('response', (incoming: IncomingMessage) => {
      const kept: Buffer[] = []
      let length = 0
      const respond = (cut?: string): void => finish(() => resolve({
        status: incoming.statusCode ?? 0,
        headers: headersOf(incoming),
        body: Buffer.concat(kept),
        ...(cut === undefined ? {} : { cut })
      }))
      answer = respond
      const announced = Number(incoming.headers['content-length'])
      if (announced > maxBytes) return respond(`announced ${announced} bytes, over the ${maxBytes} the checker reads`)
      incoming.on('data', (chunk: Buffer) => {
        const room = maxBytes - length
        if (chunk.length > room) {
          kept.push(chunk.subarray(0, room))
          length = maxBytes
          return respond(`over the ${maxBytes} bytes the checker reads`)
        }
        kept.push(chunk)
        length += chunk.length
      })
      incoming.on('end', () => respond())
      // a connection reset or dropped after the status line: the answer is there, its body is not
      incoming.on('error', () => respond('the connection closed before the body ended'))
      incoming.on('close', () => { if (!incoming.complete) respond('the connection closed before the body ended') })
    })
    const body = sent.body
    if (body === undefined || body.length === 0) return outgoing.end()
    if (sent.chunked !== true) return outgoing.end(body)
    // chunked: the body goes out piece by piece, stopping if the answer came first
    let at = 0
    const next = (): void => {
      while (at < body.length && !outgoing.destroyed) {
        const piece = body.subarray(at, at + CHUNK)
        at += CHUNK
        if (!outgoing.write(piece)) {
          outgoing.once('drain', next)
          return
        }
      }
      if (!outgoing.destroyed) outgoing.end()
    }
    next()
  })
}

function headersOf (incoming: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [name, value] of Object.entries(incoming.headers)) {
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : value
  }
  return out
}
