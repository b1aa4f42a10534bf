// Where the job addresses' routes read jobs from: this process's store, or Redis with `share`
// (src/jobs/shared.ts). Both give the same views and the same events, so the routes, and every
// framing of the stream, are written once.
import type { JobEvent, Status } from './job.ts'
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
   * final one; `null` every `heartbeat` ms (a framing's keep-alive). Ends when `signal` aborts:
   * a client leaving ends its stream, never the job.
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
    events: (id, cursor, heartbeat, signal) => follow(store.get(id), cursor, heartbeat, signal)
  }
}

/** A job's retained events after `cursor`, then the later ones as the job makes them. */
async function * follow (job: ReturnType<JobStore['get']>, cursor: number, heartbeat: number, signal: AbortSignal): AsyncGenerator<JobEvent | null> {
  if (job === undefined) return
  const queue: Array<JobEvent | null> = [...job.since(cursor)]
  if (job.done) {
    yield * queue
    return
  }
  let wake: (() => void) | undefined
  const push = (item: JobEvent | null): void => {
    queue.push(item)
    wake?.()
  }
  const stop = job.subscribe(push)
  const beat = setInterval(() => { push(null) }, heartbeat)
  const abort = (): void => { wake?.() }
  signal.addEventListener('abort', abort, { once: true })
  try {
    for (;;) {
      while (queue.length > 0) {
        const item = queue.shift()!
        yield item
        if (item !== null && item.status !== 'working') return
      }
      if (signal.aborted) return
      await new Promise<void>((resolve) => { wake = resolve })
      wake = undefined
    }
  } finally {
    clearInterval(beat)
    stop()
    signal.removeEventListener('abort', abort)
  }
}
