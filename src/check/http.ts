import { request as httpRequest, type IncomingMessage } from 'node:http'
import { request as httpsRequest } from 'node:https'
import type { Response, Send } from './types.ts'

// A transport over HTTP(S) with node:http: it sends exactly the headers given (fetch would add
// Accept, User-Agent and more, and the arrival checks need a request that has none).

const CHUNK = 64 * 1024
const DEFAULT_TIMEOUT = 10_000
/** Most bytes of an answer kept; the rest is read and dropped. */
const KEPT = 1024 * 1024

export function httpSender (url: URL, timeout = DEFAULT_TIMEOUT): Send {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new TypeError(`not an http(s) URL: ${url.href}`)
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest
  return (sent) => new Promise<Response>((resolve, reject) => {
    const headers: Record<string, string> = { ...sent.headers }
    if (sent.method === 'POST') {
      if (sent.chunked === true) headers['transfer-encoding'] = 'chunked'
      else headers['content-length'] = String(sent.body?.length ?? 0)
    }
    // one connection per request: nothing of one exchange can carry over to the next
    const outgoing = request(url, { method: sent.method, headers, agent: false, timeout })
    outgoing.on('timeout', () => outgoing.destroy(new Error(`no answer within ${timeout} ms`)))
    outgoing.on('error', reject)
    outgoing.on('response', (incoming: IncomingMessage) => {
      const kept: Buffer[] = []
      let length = 0
      incoming.on('data', (chunk: Buffer) => {
        if (length < KEPT) kept.push(chunk.subarray(0, KEPT - length))
        length += chunk.length
      })
      incoming.on('error', reject)
      incoming.on('end', () => {
        // the answer is in: whatever of a large body is still unsent is not needed
        outgoing.destroy()
        resolve({ status: incoming.statusCode ?? 0, headers: headersOf(incoming), body: Buffer.concat(kept) })
      })
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
