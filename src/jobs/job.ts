import { randomBytes } from 'node:crypto'
import { Ring } from './ring.ts'

/** Where a job stands; every status but `working` is final. */
export type Status = 'working' | 'completed' | 'failed' | 'cancelled'

/** One line of a job's progress stream: its place in the job's history and the NDJSON text. */
export interface JobEvent {
  readonly seq: number
  readonly status: Status
  /** The event as one NDJSON line, newline included. */
  readonly line: string
  /** What an actor reading only `m` sees of it (draft §3.2: p and m are context). */
  readonly message: string
}

/** How many events a job keeps for its stream's cursor and its `m`; older ones are dropped. */
export const RETAINED = 1000
/** How much of a result its message in `m` repeats; the whole result is the member `result`. */
export const MESSAGE_CHARS = 4096

/** 128 random bits, base64url: the job address is a capability, so it must not be guessable. */
export function jobId (): string {
  return randomBytes(16).toString('base64url')
}

/**
 * One act that outlived its request. Answers once: the first of complete, fail and cancel wins,
 * and every later call (a result after a cancel, a timeout after a result) changes nothing and
 * says so by returning false. Holds no timer of its own: the store and the runner keep time.
 */
export class Job {
  readonly id: string
  readonly started: number
  readonly controller = new AbortController()
  status: Status = 'working'
  /** When the job ended, then when it will be gone (ms since the epoch). */
  finished: number | undefined
  expires: number | undefined
  /** The JSON text of the result once completed. */
  result: string | undefined
  /** The last progress value, as JSON text. */
  progressed: string | undefined
  /** Bumped on every change: the arrival's entity tag. */
  version = 0
  readonly #events = new Ring<JobEvent>(RETAINED)
  readonly #listeners = new Set<(event: JobEvent) => void>()
  readonly #keep: number

  constructor (started: number, keep: number, id = jobId()) {
    this.id = id
    this.started = started
    this.#keep = keep
  }

  get done (): boolean { return this.status !== 'working' }

  /** A progress value; false (and nothing recorded) once final, or if it is not JSON. */
  progress (value: unknown): boolean {
    if (this.done) return false
    const json = jobJson(value)
    if (json === undefined) return false
    this.progressed = json
    this.#push('working', `{"seq":${this.version + 1},"status":"working","progress":${json}}\n`, progressMessage(value, json))
    return true
  }

  /** The result; a result that is not JSON fails the job instead. False if already final. */
  complete (value: unknown, now: number): boolean {
    if (this.done) return false
    const json = jobJson(value)
    if (json === undefined) return this.fail(now)
    this.result = json
    const shown = json.length > MESSAGE_CHARS ? `${json.slice(0, MESSAGE_CHARS)}… (the whole result is the member "result")` : json
    return this.#end('completed', now, `,"result":${json}`, `Completed. The result: ${shown}`)
  }

  fail (now: number): boolean {
    return this.#end('failed', now, '', 'Failed.')
  }

  cancel (now: number): boolean {
    return this.#end('cancelled', now, '', 'Cancelled.')
  }

  /** The retained events after `cursor` (a seq), oldest first. */
  since (cursor: number): readonly JobEvent[] {
    return this.#events.from(this.#after(cursor))
  }

  /** The first retained event after `cursor`: the oldest kept one when the cursor is older still. */
  next (cursor: number): JobEvent | undefined {
    return this.#events.at(this.#after(cursor))
  }

  /** The last `count` retained events. */
  last (count: number): readonly JobEvent[] {
    return this.#events.from(this.#events.length - count)
  }

  /**
   * Numbers the next event as if `count` had come before it: events of the act's that were
   * dropped before the job was made (src/jobs/early.ts). Only before the job's first event.
   */
  skip (count: number): void {
    this.version += count
  }

  /** Called with every later event; returns the way to stop listening. */
  subscribe (listener: (event: JobEvent) => void): () => void {
    this.#listeners.add(listener)
    return () => { this.#listeners.delete(listener) }
  }

  #end (status: Status, now: number, member: string, message: string): boolean {
    if (this.done) return false
    this.status = status
    this.finished = now
    this.expires = now + this.#keep
    // The act is told to stop on cancel and failure (a timeout); never because a client left.
    if (status !== 'completed') this.controller.abort(new Error(`the job was ${status}`))
    this.#push(status, `{"seq":${this.version + 1},"status":"${status}"${member}}\n`, message)
    this.#listeners.clear()
    return true
  }

  /** Where the event after `cursor` is kept: the last one kept has the seq `version`, and seqs run on by one. */
  #after (cursor: number): number {
    return Math.max(0, this.#events.length - this.version + cursor)
  }

  #push (status: Status, line: string, message: string): void {
    const event = { seq: ++this.version, status, line, message }
    this.#events.push(event)
    for (const listener of [...this.#listeners]) listener(event)
  }
}

/**
 * A value's JSON text as a job records it (`undefined` reads as null), or undefined when it has
 * none (a BigInt, a cycle): such progress is left out, and such a result fails the job.
 */
export function jobJson (value: unknown): string | undefined {
  try {
    return JSON.stringify(value === undefined ? null : value)
  } catch {
    return undefined
  }
}

/** A progress value as a message: its own `message` string, a string as it is, else its JSON. */
function progressMessage (value: unknown, json: string): string {
  if (typeof value === 'string') return value
  if (value !== null && typeof value === 'object' && typeof (value as { message?: unknown }).message === 'string') {
    return (value as { message: string }).message
  }
  return json.length > MESSAGE_CHARS ? `${json.slice(0, MESSAGE_CHARS)}…` : json
}
