// Reading an act's bytes within its limits (draft §5.2 (1), §7.4): POST's body parser and the MCP
// bridge read through this one file.
import type { FastifyRequest } from 'fastify'
import { Refused } from './pipeline.ts'

/**
 * The bodies being read and the time by which each must be in (draft §7.4), under one timer armed
 * for the earliest: a timer set and cleared for every act was a measurable share of a small act's
 * CPU (docs/benchmarks.md, "Where the time goes"). One timeout for all, so the order of arrival
 * is the order of the deadlines: a list linked in that order, which adds at its end and takes out
 * anywhere without hashing. The timer is unref'd: it never keeps a process alive by itself.
 */
export class Deadlines {
  #first: Pending | undefined
  #last: Pending | undefined
  #timer: ReturnType<typeof setTimeout> | undefined
  constructor (readonly timeout: number) {}

  /** Calls `expire` once `timeout` ms have passed, unless `remove` of what it returns comes first. */
  add (expire: () => void): Pending {
    const pending: Pending = { deadline: performance.now() + this.timeout, expire, previous: this.#last, next: undefined }
    if (this.#last === undefined) this.#first = pending
    else this.#last.next = pending
    this.#last = pending
    if (this.#timer === undefined) this.#arm(this.timeout)
    return pending
  }

  /** Takes `pending` out, if it is still in. */
  remove (pending: Pending): void {
    const { previous, next } = pending
    if (previous === undefined ? this.#first !== pending : previous.next !== pending) return
    if (previous === undefined) this.#first = next
    else previous.next = next
    if (next === undefined) this.#last = previous
    else next.previous = previous
    pending.previous = pending.next = undefined // holds no other read's closures (and bodies) alive
  }

  #arm (ms: number): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer) // an expired read's answer started another
    this.#timer = setTimeout(this.#sweep, Math.max(1, ms))
    this.#timer.unref()
  }

  readonly #sweep = (): void => {
    this.#timer = undefined
    const now = performance.now()
    for (let pending = this.#first; pending !== undefined; pending = this.#first) {
      if (pending.deadline > now) return this.#arm(pending.deadline - now)
      this.remove(pending)
      pending.expire()
    }
  }
}

/** A body being read, in Deadlines' list. */
interface Pending {
  readonly deadline: number
  readonly expire: () => void
  previous: Pending | undefined
  next: Pending | undefined
}

/**
 * Reads at most `limit` bytes within the deadlines' timeout of starting: a declared Content-Length
 * over the limit is refused before reading (draft §5.2 (1), §7.4). Calls back once, with the bytes
 * or with why they were refused.
 */
export function readBody (request: FastifyRequest, payload: NodeJS.ReadableStream, limit: number, deadlines: Deadlines, then: (bytes: Buffer | Refused) => void): void {
  const declared = Number(request.headers['content-length'])
  if (declared > limit) return then(new Refused('size', 'body over the limit'))
  const chunks: Buffer[] = []
  let length = 0
  // The listeners stay on the stream, which is the request's and goes with it: taking four off
  // cost more than the calls that come after the end (a 'close', say) and find `finished`.
  let finished = false
  const finish = (outcome: Buffer | Refused): void => {
    if (finished) return
    finished = true
    deadlines.remove(pending)
    then(outcome)
  }
  const onData = (chunk: Buffer): void => {
    if (finished) return // past the limit or the deadline: the rest is let go
    length += chunk.length
    if (length > limit) return finish(new Refused('size', 'body over the limit'))
    chunks.push(chunk)
  }
  const onEnd = (): void => finish(chunks.length === 1 ? chunks[0] as Buffer : Buffer.concat(chunks, length))
  const onGone = (): void => finish(new Refused('incomplete', 'body not received: the client went away'))
  // A host's preParsing hook may hand on a stream of its own (a decoder of Content-Encoding).
  const onError = (): void => finish(new Refused('encoding', 'body not received: its stream failed (a Content-Encoding that does not decode?)'))
  // The whole body within the timeout, not each piece: a trickle would otherwise hold the connection.
  const expire = (): void => finish(new Refused('timeout', `body not received within bodyTimeout (${deadlines.timeout} ms)`, true))
  const pending = deadlines.add(expire)
  payload.on('data', onData)
  payload.on('end', onEnd)
  payload.on('error', onError)
  payload.on('close', onGone)
  // A stream a host's preParsing hook paused (@fastify/compress's decoder) stays paused when a
  // 'data' listener is added: read it, as Fastify's own parsers do.
  payload.resume()
}
