import { Unreachable } from './http.ts'
import { visible } from './visible.ts'
import type { Exchange, Request, Response, Send } from './types.ts'

// The checker's one way to the address: requests one at a time, paced, within a budget, and a
// 429 waited out as its Retry-After asks (draft §7.4 invites rate limits; meeting one is no fault).

/** An answer, or why none came (the budget was spent, the rate limit outlasted our patience, the connection failed). */
export type Answer =
  | { readonly request: Request, readonly response: Response, readonly unanswered?: undefined, readonly lost?: undefined }
  | { readonly request: Request, readonly response?: undefined, readonly unanswered: string, readonly lost: Lost }

/**
 * Why no answer came: the checker held back (its request budget or time limit spent, a rate
 * limit outlasting its patience), the connection failed, or none could even be made.
 */
export type Lost = 'budget' | 'time' | 'rate-limit' | 'connection' | 'unreachable'

/** Losses that say nothing of the address: the checker held back. */
export const held = (answer: Answer): boolean => answer.lost === 'budget' || answer.lost === 'time' || answer.lost === 'rate-limit'

export interface ClientOptions {
  readonly maxRequests: number
  readonly interval: number
  readonly maxWait: number
  readonly sleep: (ms: number) => Promise<void>
  /** When the run must end (ms since the epoch), and its length in seconds, for the report. */
  readonly deadline?: number
  readonly timeLimit?: number
  /** Sent with every POST only (draft §3.1: a GET needs no header). */
  readonly actHeaders?: Readonly<Record<string, string>>
  readonly progress?: (message: string) => void
}

/** A wait longer than this is worth telling a person about. */
const NOTICEABLE = 1000

const RETRIES = 3

export class Client {
  requests = 0
  rateLimited = 0
  /** Whether a request was held back because the time limit had passed. */
  timedOut = false
  readonly #send: Send
  readonly #options: ClientOptions

  constructor (send: Send, options: ClientOptions) {
    this.#send = send
    this.#options = options
  }

  get spent (): boolean {
    return this.requests >= this.#options.maxRequests
  }

  /** Whether the run's time limit has passed. */
  get late (): boolean {
    return this.#options.deadline !== undefined && Date.now() >= this.#options.deadline
  }

  /** Why no more checks can run, if so. */
  get stopped (): string | undefined {
    if (this.late) return `the time limit (${this.#options.timeLimit ?? 0} s) is spent`
    if (this.spent) return `the request budget (${this.#options.maxRequests}) is spent`
    return undefined
  }

  async exchange (request: Request): Promise<Answer> {
    const { actHeaders, progress } = this.#options
    const sent = request.method === 'POST' && actHeaders !== undefined ? { ...request, headers: { ...actHeaders, ...request.headers } } : request
    for (let attempt = 0; ; attempt++) {
      if (this.late) {
        this.timedOut = true
        return { request, unanswered: this.stopped as string, lost: 'time' }
      }
      if (this.spent) return { request, unanswered: this.stopped as string, lost: 'budget' }
      if (this.requests > 0 && this.#options.interval > 0) await this.#options.sleep(this.#options.interval)
      this.requests++
      let response: Response
      const slow = progress === undefined
        ? undefined
        : setTimeout(() => progress(`waiting for the answer to ${request.method} ${describe(request)}…`), NOTICEABLE)
      try {
        response = await this.#send(sent)
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error)
        return error instanceof Unreachable
          ? { request, unanswered: `could not connect: ${message}`, lost: 'unreachable' }
          : { request, unanswered: `no answer: ${message}`, lost: 'connection' }
      } finally {
        clearTimeout(slow)
      }
      if (response.status !== 429) return { request, response }
      this.rateLimited++
      const wait = retryAfter(response.headers['retry-after'])
      const deadline = this.#options.deadline ?? Infinity
      if (attempt >= RETRIES || wait > this.#options.maxWait || Date.now() + wait * 1000 > deadline) {
        return { request, unanswered: `rate limited (429, Retry-After: ${response.headers['retry-after'] ?? 'none'})`, lost: 'rate-limit' }
      }
      if (wait * 1000 > NOTICEABLE) progress?.(`rate limited (429): waiting ${wait} s, as Retry-After asks`)
      await this.#options.sleep(wait * 1000)
    }
  }
}

/** A request in a few words, for progress lines. */
function describe (request: Request): string {
  if (request.method === 'GET') return Object.keys(request.headers).length === 0 ? '(no header)' : Object.keys(request.headers).join(', ')
  return `of ${request.body?.length ?? 0} bytes`
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

/**
 * A body as a report shows it: UTF-8 text, or bytes escaped where it is not; cut past 240
 * characters; control characters escaped (an address may send ESC or BEL to a terminal).
 */
export function printable (body: Uint8Array | undefined): string {
  if (body === undefined || body.length === 0) return ''
  const head = body.subarray(0, SHOWN * 4)
  let text: string
  try {
    text = visible(decoder.decode(head))
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
      : { response: { status: response.status, headers: response.headers, body: printable(response.body), ...(response.cut === undefined ? {} : { cut: response.cut }) } })
  }
}
