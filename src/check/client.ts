import type { Exchange, Request, Response, Send } from './types.ts'

// The checker's one way to the address: requests one at a time, paced, within a budget, and a
// 429 waited out as its Retry-After asks (draft §7.4 invites rate limits; meeting one is no fault).

/** An answer, or why none came (the budget was spent, the rate limit outlasted our patience, the connection failed). */
export type Answer =
  | { readonly request: Request, readonly response: Response, readonly unanswered?: undefined, readonly lost?: undefined }
  | { readonly request: Request, readonly response?: undefined, readonly unanswered: string, readonly lost: Lost }

/** Why no answer came: the checker held back (budget, rate limit), or the connection failed. */
export type Lost = 'budget' | 'rate-limit' | 'connection'

export interface ClientOptions {
  readonly maxRequests: number
  readonly interval: number
  readonly maxWait: number
  readonly sleep: (ms: number) => Promise<void>
}

const RETRIES = 3

export class Client {
  requests = 0
  rateLimited = 0
  readonly #send: Send
  readonly #options: ClientOptions

  constructor (send: Send, options: ClientOptions) {
    this.#send = send
    this.#options = options
  }

  get spent (): boolean {
    return this.requests >= this.#options.maxRequests
  }

  async exchange (request: Request): Promise<Answer> {
    for (let attempt = 0; ; attempt++) {
      if (this.spent) return { request, unanswered: `the request budget (${this.#options.maxRequests}) is spent`, lost: 'budget' }
      if (this.requests > 0 && this.#options.interval > 0) await this.#options.sleep(this.#options.interval)
      this.requests++
      let response: Response
      try {
        response = await this.#send(request)
      } catch (error) {
        return { request, unanswered: `no answer: ${error instanceof Error ? error.message : String(error)}`, lost: 'connection' }
      }
      if (response.status !== 429) return { request, response }
      this.rateLimited++
      const wait = retryAfter(response.headers['retry-after'])
      if (attempt >= RETRIES || wait > this.#options.maxWait) {
        return { request, unanswered: `rate limited (429, Retry-After: ${response.headers['retry-after'] ?? 'none'})`, lost: 'rate-limit' }
      }
      await this.#options.sleep(wait * 1000)
    }
  }
}

/** Seconds to wait: Retry-After as delay-seconds or an HTTP-date (RFC 9110 §10.2.3); 1 without one. */
export function retryAfter (field: string | undefined, now = Date.now()): number {
  if (field === undefined) return 1
  if (/^\d+$/.test(field.trim())) return Number(field.trim())
  const date = Date.parse(field)
  return Number.isNaN(date) ? 1 : Math.max(0, Math.ceil((date - now) / 1000))
}

const decoder = new TextDecoder('utf-8', { fatal: true })
const SHOWN = 240

/** A body as a report shows it: UTF-8 text, or bytes escaped where it is not; cut past 240 characters. */
export function printable (body: Uint8Array | undefined): string {
  if (body === undefined || body.length === 0) return ''
  const head = body.subarray(0, SHOWN * 4)
  let text: string
  try {
    text = decoder.decode(head)
  } catch {
    text = Array.from(head, (b) => b >= 0x20 && b < 0x7f ? String.fromCharCode(b) : `\\x${b.toString(16).padStart(2, '0')}`).join('')
  }
  return text.length > SHOWN || body.length > head.length ? `${text.slice(0, SHOWN)}… (${body.length} bytes)` : text
}

export function evidence (answer: Answer): Exchange {
  const { request, response } = answer
  return {
    request: {
      method: request.method,
      headers: request.headers,
      body: printable(request.body),
      bytes: request.body?.length ?? 0,
      chunked: request.chunked === true
    },
    ...(response === undefined
      ? { unanswered: answer.unanswered }
      : { response: { status: response.status, headers: response.headers, body: printable(response.body) } })
  }
}
