// Server-sent events on the bridge (MCP Streamable HTTP): the GET streams that hear of changed
// tools, and a call's own stream when it reports progress. Each event is one JSON-RPC message.
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

/**
 * The open GET streams, told of each change of the tools. A reader that stops reading misses
 * nothing that matters: a change is the same news however often it is told, so a stream whose
 * buffer is full is not written again (a stalled reader holds its high-water mark, 16 KiB, at most).
 */
export class Listeners {
  readonly #streams = new Set<PassThrough>()
  readonly #timer: ReturnType<typeof setInterval>

  constructor (readonly max: number, heartbeat: number) {
    this.#timer = setInterval(() => { this.#write(': \n\n') }, heartbeat)
    this.#timer.unref()
  }

  get size (): number { return this.#streams.size }

  /** A new stream on `reply`, or false when `max` are open. */
  open (reply: FastifyReply): boolean {
    if (this.#streams.size >= this.max) return false
    const stream = openStream(reply)
    this.#streams.add(stream)
    const gone = (): void => { this.#streams.delete(stream) }
    reply.raw.once('close', () => {
      gone()
      stream.end()
    })
    stream.write(': \n\n') // an opening comment: the client's reader starts at once
    return true
  }

  /** Tells every stream a JSON-RPC notification. */
  notify (message: string): void {
    this.#write(event(message))
  }

  #write (text: string): void {
    for (const stream of this.#streams) {
      if (!stream.writableNeedDrain) stream.write(text)
    }
  }

  close (): void {
    clearInterval(this.#timer)
    for (const stream of this.#streams) stream.end()
    this.#streams.clear()
  }
}
