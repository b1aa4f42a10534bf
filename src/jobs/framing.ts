import type { FastifyRequest } from 'fastify'
import { prefers } from '../address/negotiate.ts'
import type { JobEvent } from './job.ts'

/**
 * How a job's events are written on its progress stream. Both framings carry the same events
 * from the same cursor (a `seq`); they differ only in the bytes around each.
 */
export interface Framing {
  readonly type: string
  /** Written first, before any event. */
  readonly opening: string
  /** What is written while nothing happens, every `heartbeat` ms. */
  readonly heartbeat: string
  /**
   * True when a stream that could carry nothing (the job over, every event already seen) is
   * answered 204 instead of an empty 200.
   */
  readonly emptyIs204: boolean
  event (event: JobEvent): string
}

/** One JSON object a line (what `curl -N | jq` reads); an empty line as heartbeat, which jq skips. */
export const NDJSON: Framing = Object.freeze({
  type: 'application/x-ndjson',
  opening: '',
  heartbeat: '\n',
  emptyIs204: false,
  event: (event: JobEvent) => event.line
})

/**
 * Server-sent events (what a browser's EventSource reads): each event's `id` is its `seq`, so the
 * `Last-Event-ID` an EventSource sends when it reconnects is the stream's cursor; its data is the
 * NDJSON line's object with one member more, `message`: the text an actor sees of it in the job
 * arrival's `m`, so that a page shows what a reload would. A comment line is the heartbeat, and
 * `retry` asks a reconnecting EventSource to wait a poll's interval.
 */
export function sse (poll: number): Framing {
  return Object.freeze({
    type: 'text/event-stream; charset=utf-8',
    opening: `retry: ${poll}\n\n`,
    heartbeat: ':\n',
    // The HTML standard's EventSource reconnects whenever a stream ends, and stops only on an
    // answer other than 200: once nothing more can come, 204 tells it to stop.
    emptyIs204: true,
    // JSON text never holds a raw line break, so the data is one line.
    event: (event: JobEvent) => `id: ${event.seq}\ndata: ${event.line.slice(0, -2)},"message":${JSON.stringify(event.message)}}\n\n`
  })
}

const OFFERED = ['application/x-ndjson', 'text/event-stream']

/** SSE for a client that asks for `text/event-stream` over NDJSON (an EventSource always does); else NDJSON. */
export function framingFor (request: FastifyRequest, poll: number): Framing {
  return prefers(request, OFFERED, 'text/event-stream') ? sse(poll) : NDJSON
}

const CURSOR = /^\d{1,15}$/

/**
 * The seq a client has seen: `?after=` or `Last-Event-ID`, the later of the two when it sends
 * both (an EventSource opened at `?after=N` sends the later `Last-Event-ID` when it reconnects);
 * 0 (from the start) when neither is a cursor.
 */
export function cursorOf (after: string | undefined, lastEventId: string | string[] | undefined): number {
  let cursor = 0
  for (const given of [after, lastEventId]) {
    if (typeof given === 'string' && CURSOR.test(given)) cursor = Math.max(cursor, Number(given))
  }
  return cursor
}
