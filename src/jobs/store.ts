import { Job } from './job.ts'
import type { BackgroundSettings } from './settings.ts'

/** Keeps time for the store; a test gives its own. */
export interface Clock {
  now (): number
  /**
   * Runs `then` after `ms`; the returned function cancels it. `hold`: the timer keeps the process
   * running (a request waits on it), else it does not.
   */
  after (ms: number, then: () => void, hold?: boolean): () => void
}

export const realClock: Clock = {
  now: Date.now,
  after (ms, then, hold = false) {
    const timer = setTimeout(then, ms)
    if (!hold) timer.unref() // a kept job never holds the process open
    return () => { clearTimeout(timer) }
  }
}

/**
 * The jobs of one address, in this process. Counts against `maxJobs` every job it holds (running,
 * or finished and kept) and every act still deciding whether it becomes one, so that a refusal
 * comes before the act starts and nothing held is ever dropped to make room.
 */
export class JobStore {
  /**
   * With `share` (src/jobs/shared.ts): told of each job admitted, before its first event, and
   * resolving once other instances can read it (false: they cannot); told of each job dropped.
   */
  shared: { admitted (job: Job): Promise<boolean>, forgotten (id: string): void } | undefined
  readonly #jobs = new Map<string, Job>()
  readonly #expiries = new Map<string, () => void>()
  #deciding = 0
  readonly #settings: BackgroundSettings
  readonly clock: Clock

  constructor (settings: BackgroundSettings, clock: Clock = realClock) {
    this.#settings = settings
    this.clock = clock
  }

  /** Jobs held, and acts deciding. */
  get size (): number { return this.#jobs.size + this.#deciding }

  /** Takes a place for an act about to start; false when `maxJobs` are held. */
  reserve (): boolean {
    if (this.size >= this.#settings.maxJobs) return false
    this.#deciding++
    return true
  }

  /** Gives back a place: the act answered within its request. */
  release (): void {
    this.#deciding--
  }

  /** A new job in the reserved place: addressable from now on, until `keep` after it ends. */
  admit (started: number): Job {
    this.#deciding--
    const job = new Job(started, this.#settings.keep)
    this.#jobs.set(job.id, job)
    job.subscribe((event) => { if (event.status !== 'working') this.#ended(job) })
    return job
  }

  /** Undefined without `share`; else whether the job is readable on every instance now. */
  announce (job: Job): Promise<boolean> | undefined {
    return this.shared?.admitted(job)
  }

  /** Starts the countdown of a job that just ended. */
  #ended (job: Job): void {
    if (job.expires === undefined || !this.#jobs.has(job.id)) return
    this.#expiries.set(job.id, this.clock.after(job.expires - this.clock.now(), () => { this.forget(job.id) }))
  }

  /** The job, unless it is unknown or past its expiry. */
  get (id: string): Job | undefined {
    const job = this.#jobs.get(id)
    if (job === undefined) return undefined
    if (job.expires !== undefined && job.expires <= this.clock.now()) {
      this.forget(id)
      return undefined
    }
    return job
  }

  /** Drops a job now (its expiry, or the `forget` control act). */
  forget (id: string): void {
    this.#expiries.get(id)?.()
    this.#expiries.delete(id)
    if (this.#jobs.delete(id)) this.shared?.forgotten(id)
  }

  /** Seconds until a place is likely free: the first kept job to expire, or a poll's interval. */
  retryAfter (): number {
    const now = this.clock.now()
    let soonest = Infinity
    for (const job of this.#jobs.values()) {
      if (job.expires !== undefined && job.expires < soonest) soonest = job.expires
    }
    const ms = soonest === Infinity ? this.#settings.poll : Math.max(soonest - now, 0)
    return Math.max(1, Math.ceil(ms / 1000))
  }

  /** Cancels every running job and forgets them all (the host is closing). */
  close (): void {
    const now = this.clock.now()
    for (const job of this.#jobs.values()) job.cancel(now)
    for (const id of [...this.#jobs.keys()]) this.forget(id)
  }
}
