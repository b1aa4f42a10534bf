// Where the job addresses' routes read jobs from: this process's store, or Redis with `share`
// (src/jobs/shared.ts). Both give the same views and the same events, so the routes, and every
// framing of the stream, are written once.
import type { JobEvent, Status } from './job.ts'
import { Pulse } from './pulse.ts'
import type { JobStore } from './store.ts'

/** What an arrival, a page and a stream read of a job: a `Job` is one, a Redis snapshot another. */
export interface JobView {
  readonly id: string
  readonly started: number
  readonly status: Status
  readonly done: boolean
  readonly version: number
  readonly expires: number | undefined
  readonly progressed: string | undefined
  readonly result: string | undefined
  last (count: number): readonly JobEvent[]
}

/** A job could not be read now (Redis away): not the same as no job. */
export const UNAVAILABLE = Symbol('unavailable')

export interface JobSource {
  /** The job, or undefined when it is unknown, gone, or unreadable. */
  get (id: string): JobView | undefined | typeof UNAVAILABLE | Promise<JobView | undefined | typeof UNAVAILABLE>
  /** Cancels a running job: the status it has afterwards (cancelled, or the end that came first). */
  cancel (id: string): Status | undefined | Promise<Status | undefined | typeof UNAVAILABLE>
  /** Drops a finished job now. */
  forget (id: string): void | Promise<void | typeof UNAVAILABLE>
  /**
   * The job's events after `cursor` (a seq), then each later one as it comes, ending after the
   * final one; `null` every `heartbeat` ms (a framing's keep-alive). Read from the job's retained
   * events when pulled, so a stream holds no more than they are, however slowly its client
   * reads; one that fell behind them goes on at the oldest kept. Ends when `signal` aborts (a
   * client leaving ends its stream, never the job), and when the job is gone.
   */
  events (id: string, cursor: number, heartbeat: number, signal: AbortSignal): AsyncIterable<JobEvent | null>
}

/** The jobs of this process, as they were before `share`: no Redis, nothing awaited that need not be. */
export function localSource (store: JobStore): JobSource {
  return {
    get: (id) => store.get(id),
    cancel (id) {
      const job = store.get(id)
      if (job === undefined) return undefined
      job.cancel(store.clock.now())
      return job.status
    },
    forget: (id) => { store.forget(id) },
    events: (id, cursor, heartbeat, signal) => follow(store, id, cursor, heartbeat, signal)
  }
}

/** Nothing more can come: the job is over and every event after the cursor was read, or the job is gone. */
const OVER = Symbol('over')

/**
 * A job's first retained event after `cursor`; undefined while none has come yet. Looks the job
 * up each time, and holds it in no frame a suspended stream keeps.
 */
function nextEvent (store: JobStore, id: string, cursor: number): JobEvent | undefined | typeof OVER {
  const job = store.get(id)
  if (job === undefined) return OVER
  return job.next(cursor) ?? (job.done ? OVER : undefined)
}

/**
 * A job's events after `cursor`, each read when pulled. Being told of a new event sets a flag and
 * heartbeats count, so nothing queues while the client does not read; it holds the job's id,
 * never the job, so a job forgotten is let go at once and the stream ends at its next pull.
 */
async function * follow (store: JobStore, id: string, cursor: number, heartbeat: number, signal: AbortSignal): AsyncGenerator<JobEvent | null> {
  const pulse = new Pulse(heartbeat)
  const stop = store.watch(id, pulse.poke)
  signal.addEventListener('abort', pulse.poke, { once: true })
  try {
    for (;;) {
      if (signal.aborted) return
      if (pulse.dirty) {
        const event = nextEvent(store, id, cursor)
        if (event === OVER) return
        if (event === undefined) {
          pulse.dirty = false
          continue
        }
        cursor = event.seq
        yield event
        if (event.status !== 'working') return
        continue
      }
      if (pulse.beat()) {
        yield null
        continue
      }
      await pulse.wait()
    }
  } finally {
    pulse.close()
    stop()
    signal.removeEventListener('abort', pulse.poke)
  }
}
