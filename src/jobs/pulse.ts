/**
 * What a progress stream waits on: word that an event may have come (`poke`) and its heartbeats,
 * both counted, never queued, so that nothing piles up while its client does not read.
 */
export class Pulse {
  /** An event may have come since the stream last read. */
  dirty = true
  #beats = 0
  #wake: (() => void) | undefined
  readonly #timer: ReturnType<typeof setInterval>

  constructor (heartbeat: number) {
    this.#timer = setInterval(() => { this.#beats++; this.#wake?.() }, heartbeat)
  }

  readonly poke = (): void => {
    this.dirty = true
    this.#wake?.()
  }

  /** True when a heartbeat is due (one for every run of them since the last). */
  beat (): boolean {
    if (this.#beats === 0) return false
    this.#beats = 0
    return true
  }

  /** Until the next poke or heartbeat. */
  async wait (): Promise<void> {
    await new Promise<void>((resolve) => { this.#wake = resolve })
    this.#wake = undefined
  }

  close (): void {
    clearInterval(this.#timer)
  }
}

/** The streams following each job, by a key of the job (its id, or its digest): never by the job itself. */
export class Watchers {
  readonly #byKey = new Map<string, Set<() => void>>()

  /** Calls `wake` at each `wake(key)`; returns the way to stop. */
  add (key: string, wake: () => void): () => void {
    let watchers = this.#byKey.get(key)
    if (watchers === undefined) this.#byKey.set(key, watchers = new Set())
    watchers.add(wake)
    return () => {
      const now = this.#byKey.get(key)
      now?.delete(wake)
      if (now?.size === 0) this.#byKey.delete(key)
    }
  }

  wake (key: string): void {
    for (const wake of this.#byKey.get(key) ?? []) wake()
  }

  /** Wakes the streams of `key` a last time and lets them go (the job is dropped). */
  drop (key: string): void {
    const watchers = this.#byKey.get(key)
    this.#byKey.delete(key)
    for (const wake of watchers ?? []) wake()
  }

  /** Wakes every stream, once more (the host is closing). */
  wakeAll (): void {
    for (const watchers of this.#byKey.values()) for (const wake of watchers) wake()
  }
}
