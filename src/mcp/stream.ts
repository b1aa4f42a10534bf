// Server-sent events on the bridge (MCP Streamable HTTP): the streams that hear of changed tools
// (a GET's until 2025-11-25, a subscriptions/listen's from 2026-07-28), and a call's own stream
// when it reports progress. Each event is one JSON-RPC message.
import { PassThrough } from 'node:stream'
import type { FastifyReply } from 'fastify'

/** One JSON-RPC message as an SSE event. */
export const event = (message: string): string => `event: message\ndata: ${message}\n\n`

/** Starts an SSE answer on `reply`: its head goes at once, before the first event. */
export function openStream (reply: FastifyReply): PassThrough {
  const stream = new PassThrough()
  // 200 whatever an act with progress set on its reply before its first value: the stream is the bridge's.
  reply.code(200).header('content-type', 'text/event-stream').header('cache-control', 'no-store').header('x-accel-buffering', 'no')
  reply.raw.once('pipe', () => { reply.raw.flushHeaders() })
  reply.send(stream)
  return stream
}

/** The most bytes of progress a call's stream holds for a reader that does not keep up. */
export const PROGRESS_HELD = 65_536

/**
 * A call's own stream (its progress, then its result) for a reader that may stop reading: while
 * the stream is full, progress waits in a queue of at most PROGRESS_HELD bytes, the oldest dropped
 * first (a later value says more of where the act is); the result is never dropped.
 */
export class CallStream {
  readonly #stream: PassThrough
  readonly #queue: string[] = []
  #held = 0

  constructor (stream: PassThrough) {
    this.#stream = stream
    stream.on('drain', () => { this.#flush() })
  }

  /** Bytes of progress waiting for the reader (beside what the stream itself buffers, its high-water mark). */
  get held (): number { return this.#held }

  progress (text: string): void {
    if (this.#queue.length === 0 && !this.#stream.writableNeedDrain) {
      this.#stream.write(text)
      return
    }
    this.#queue.push(text)
    this.#held += Buffer.byteLength(text)
    while (this.#held > PROGRESS_HELD && this.#queue.length > 1) this.#held -= Buffer.byteLength(this.#queue.shift() as string)
  }

  /** The result, after whatever progress is still held. */
  end (text: string): void {
    for (const held of this.#queue.splice(0)) this.#stream.write(held)
    this.#held = 0
    this.#stream.end(text)
  }

  #flush (): void {
    while (this.#queue.length > 0 && !this.#stream.writableNeedDrain) {
      const text = this.#queue.shift() as string
      this.#held -= Buffer.byteLength(text)
      this.#stream.write(text)
    }
  }
}

/**
 * What one listening stream says: first; each notification as it hears it (nothing for one it did
 * not ask for); and last, when the bridge ends it.
 */
export interface Listening {
  readonly opening: string
  readonly tell: (message: string) => string
  readonly closing?: string
}

/** One open listening stream, to write to alone (a task's notification, which only its subscriber hears). */
export interface Listened {
  readonly write: (text: string) => void
  /** Aborts when the stream closes. */
  readonly signal: AbortSignal
}

/** A GET stream (2025-03-26 to 2025-11-25): an opening comment, so the client's reader starts at once; each notification as it is; no end of its own. */
export const GET_STREAM: Listening = Object.freeze({ opening: ': \n\n', tell: event })

/**
 * The open listening streams, told of each change of the tools. A reader that stops reading misses
 * nothing that matters: a change is the same news however often it is told, so a stream whose
 * buffer is full is not written again (a stalled reader holds its high-water mark, 16 KiB, at most).
 * One client holds at most a quarter of them (at least one), so it cannot keep another from hearing.
 */
export class Listeners {
  readonly #streams = new Map<PassThrough, Listening>()
  readonly #byClient = new Map<string, number>()
  readonly #timer: ReturnType<typeof setInterval>
  /** The most streams one client holds. */
  readonly share: number

  constructor (readonly max: number, heartbeat: number) {
    this.share = Math.max(1, Math.floor(max / 4))
    this.#timer = setInterval(() => { this.#write(() => ': \n\n') }, heartbeat)
    this.#timer.unref()
  }

  get size (): number { return this.#streams.size }

  /**
   * A new stream on `reply` for `client` (its address): what writes to it alone, and a signal
   * that aborts when it closes; undefined when `max` are open or the client holds its share.
   */
  open (reply: FastifyReply, client: string, listening: Listening = GET_STREAM): Listened | undefined {
    const held = this.#byClient.get(client) ?? 0
    if (this.#streams.size >= this.max || held >= this.share) return undefined
    const stream = openStream(reply)
    const closed = new AbortController()
    this.#streams.set(stream, listening)
    this.#byClient.set(client, held + 1)
    const gone = (): void => {
      if (!this.#streams.delete(stream)) return
      const left = (this.#byClient.get(client) ?? 1) - 1
      if (left === 0) this.#byClient.delete(client)
      else this.#byClient.set(client, left)
    }
    reply.raw.once('close', () => {
      closed.abort()
      gone()
      stream.end()
    })
    stream.write(listening.opening)
    return { write: (text) => { if (!stream.writableEnded) stream.write(text) }, signal: closed.signal }
  }

  /** Tells every stream a JSON-RPC notification, as each hears it. */
  notify (message: string): void {
    this.#write((listening) => listening.tell(message))
  }

  #write (text: (listening: Listening) => string): void {
    for (const [stream, listening] of this.#streams) {
      const said = text(listening)
      if (said !== '' && !stream.writableNeedDrain) stream.write(said)
    }
  }

  /** Ends every stream, each with its own last words (a subscription's response: it ended gracefully). */
  close (): void {
    clearInterval(this.#timer)
    for (const [stream, listening] of this.#streams) stream.end(listening.closing)
    this.#streams.clear()
    this.#byClient.clear()
  }
}
