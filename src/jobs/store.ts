import { Job } from './job.ts'
import { Watchers } from './pulse.ts'
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

/** The most running places one client holds: a quarter of `maxJobs` (at least one), so no one client takes them all. */
export function clientShare (maxJobs: number): number {
  return Math.ceil(maxJobs / 4)
}

/** A running act's place, taken before it starts: given back when it answers, or held by its job until the job ends. */
export interface Place {
  /** Who asked (`request.ip`). */
  readonly client: string
  /** When the act started (ms since the epoch): it must end by `started + actTimeout`. */
  readonly started: number
}

/** What the store knows of one client: its running places, and its finished jobs kept, by id, each with the rank of its end. */
interface Client {
  readonly running: Set<Place>
  readonly finished: Map<string, number>
}

/** A job addressable here, and the client whose act it is. */
interface Held {
  readonly job: Job
  readonly place: Place
}

/**
 * The jobs of one address, in this process. `maxJobs` bounds the acts running at once (jobs
 * working, and acts still deciding whether they become one), each client holding at most its
 * share; a refusal comes before the act starts. A finished job is kept `keep` ms but holds no
 * place; at most `maxJobs` are kept, and one more ending drops the oldest of whichever client
 * has the most (docs/jobs.md).
 */
export class JobStore {
  /**
   * With `share` (src/jobs/shared.ts): told of each job admitted, before its first event, and
   * resolving once other instances can read it (false: they cannot); told of each job dropped.
   */
  shared: { admitted (job: Job): Promise<boolean>, forgotten (id: string): void } | undefined
  readonly #jobs = new Map<string, Held>()
  readonly #expiries = new Map<string, () => void>()
  readonly #clients = new Map<string, Client>()
  /** Streams following a job, by its id: never by the job, so a job forgotten is not held by them. */
  readonly #watchers = new Watchers()
  #running = 0
  #finished = 0
  /** Jobs ended so far: the rank of the next end, so that "oldest" is exact within a millisecond. */
  #ends = 0
  readonly #settings: BackgroundSettings
  readonly #share: number
  readonly clock: Clock

  constructor (settings: BackgroundSettings, clock: Clock = realClock) {
    this.#settings = settings
    this.#share = clientShare(settings.maxJobs)
    this.clock = clock
  }

  /** Acts running: jobs working, and acts deciding. */
  get running (): number { return this.#running }

  /** Finished jobs kept. */
  get finished (): number { return this.#finished }

  /** A place for an act of `client` about to start; undefined when `maxJobs`, or the client's share, are running. */
  reserve (client: string): Place | undefined {
    const known = this.#clients.get(client)
    if (this.#running >= this.#settings.maxJobs || (known?.running.size ?? 0) >= this.#share) return undefined
    const place: Place = { client, started: this.clock.now() }
    this.#client(client).running.add(place)
    this.#running++
    return place
  }

  /** Gives back a place: the act answered within its request. */
  release (place: Place): void {
    const client = this.#clients.get(place.client)
    if (client === undefined || !client.running.delete(place)) return
    this.#running--
    this.#prune(place.client, client)
  }

  /** A new job in a reserved place: addressable from now on, until `keep` after it ends. */
  admit (place: Place): Job {
    const job = new Job(place.started, this.#settings.keep)
    this.#jobs.set(job.id, { job, place })
    job.subscribe((event) => {
      this.#watchers.wake(job.id)
      if (event.status !== 'working') this.#ended(job.id)
    })
    return job
  }

  /** Undefined without `share`; else whether the job is readable on every instance now. */
  announce (job: Job): Promise<boolean> | undefined {
    return this.shared?.admitted(job)
  }

  /** The job, unless it is unknown or past its expiry. */
  get (id: string): Job | undefined {
    const held = this.#jobs.get(id)
    if (held === undefined) return undefined
    if (held.job.expires !== undefined && held.job.expires <= this.clock.now()) {
      this.forget(id)
      return undefined
    }
    return held.job
  }

  /**
   * Calls `wake` at each event of the job `id` and once more when it is dropped; returns the way
   * to stop. It holds the id, not the job: a stream stalled on a job does not keep it.
   */
  watch (id: string, wake: () => void): () => void {
    return this.#watchers.add(id, wake)
  }

  /** Drops a job now (its expiry, the `forget` control act, or room for a later one); one still working is cancelled. */
  forget (id: string): void {
    const held = this.#jobs.get(id)
    if (held === undefined) return
    this.#jobs.delete(id)
    const client = this.#clients.get(held.place.client)!
    if (client.running.delete(held.place)) this.#running--
    if (client.finished.delete(id)) this.#finished--
    this.#prune(held.place.client, client)
    this.#expiries.get(id)?.()
    this.#expiries.delete(id)
    // Nobody can reach it any more: a job still working is told to stop.
    held.job.cancel(this.clock.now())
    this.#watchers.drop(id)
    this.shared?.forgotten(id)
  }

  /**
   * Seconds until a place `client` may take is likely free: with `actTimeout`, the soonest one
   * of the acts in the way must end (all of them when `maxJobs` are running, else the client's
   * own), at least 1; without it, a poll's interval.
   */
  retryAfter (client: string, actTimeout: number | undefined): number {
    if (actTimeout === undefined) return Math.ceil(this.#settings.poll / 1000)
    const clients = this.#running >= this.#settings.maxJobs ? [...this.#clients.values()] : [this.#clients.get(client)]
    let soonest = Infinity
    for (const known of clients) {
      for (const place of known?.running ?? []) soonest = Math.min(soonest, place.started + actTimeout)
    }
    return Math.max(1, Math.ceil((soonest - this.clock.now()) / 1000))
  }

  /**
   * Cancels every running job, and leaves no timer (the host is closing). The jobs stay readable
   * to the streams still open, so each ends at its job's final event.
   */
  close (): void {
    const now = this.clock.now()
    for (const { job } of [...this.#jobs.values()]) job.cancel(now)
    for (const cancel of this.#expiries.values()) cancel()
    this.#expiries.clear()
  }

  /** A job just ended: its place is free, it is kept `keep` ms, and the finished jobs kept stay within `maxJobs`. */
  #ended (id: string): void {
    const held = this.#jobs.get(id)
    if (held === undefined) return // forgotten, and cancelled for it
    const client = this.#clients.get(held.place.client)!
    client.running.delete(held.place)
    this.#running--
    client.finished.set(id, this.#ends++)
    this.#finished++
    this.#expiries.set(id, this.clock.after(held.job.expires! - this.clock.now(), () => { this.forget(id) }))
    if (this.#finished > this.#settings.maxJobs) this.forget(this.#flooded())
  }

  /**
   * The finished job to drop first: the oldest of the client holding the most (so a flood drops
   * its own results first); between clients holding as many, the oldest of theirs.
   */
  #flooded (): string {
    let most: Client | undefined
    for (const client of this.#clients.values()) {
      if (most === undefined || client.finished.size > most.finished.size ||
        (client.finished.size === most.finished.size && oldest(client)[1] < oldest(most)[1])) most = client
    }
    return oldest(most!)[0]
  }

  #client (name: string): Client {
    let client = this.#clients.get(name)
    if (client === undefined) this.#clients.set(name, client = { running: new Set(), finished: new Map() })
    return client
  }

  #prune (name: string, client: Client): void {
    if (client.running.size === 0 && client.finished.size === 0) this.#clients.delete(name)
  }
}

/** A client's finished job that ended first, and the rank of its end (a Map keeps the order of insertion). */
function oldest (client: Client): [string, number] {
  return client.finished.entries().next().value ?? ['', Infinity]
}
