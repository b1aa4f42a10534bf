import { jobJson, RETAINED, type Job } from './job.ts'
import { Ring } from './ring.ts'

/**
 * Progress an act reports before it becomes a job: its last RETAINED values that are events (JSON),
 * which is all the job would keep of them, and how many events came before those, so that the job's first event has
 * the seq it would have had. What it holds and what its replay costs are bounded by the window,
 * however fast the act yields before the hand-off.
 */
export class EarlyProgress {
  readonly #values = new Ring<unknown>(RETAINED)
  #dropped = 0

  /** Values held, at most RETAINED. */
  get length (): number { return this.#values.length }

  push (value: unknown): void {
    // A value that is not JSON would not have been an event: it takes neither a seq nor a place.
    if (jobJson(value) === undefined) return
    if (this.#values.full) this.#dropped++
    this.#values.push(value)
  }

  /** Into the job just made, numbered from where the act's history started. */
  replay (job: Job): void {
    job.skip(this.#dropped)
    for (const value of this.#values.from(0)) job.progress(value)
    this.#values.clear()
    this.#dropped = 0
  }
}
