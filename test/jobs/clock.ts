import type { Clock } from '../../src/jobs/store.ts'

/** A clock the test moves: timers fire, in order, only when it is told to tick. */
export class FakeClock implements Clock {
  time = 1_000_000
  #timers: Array<{ at: number, then: () => void, live: boolean }> = []
  now = (): number => this.time
  after (ms: number, then: () => void): () => void {
    const timer = { at: this.time + ms, then, live: true }
    this.#timers.push(timer)
    return () => { timer.live = false }
  }

  tick (ms: number): void {
    const end = this.time + ms
    for (;;) {
      const due = this.#timers.filter((timer) => timer.live && timer.at <= end).sort((a, b) => a.at - b.at)[0]
      if (due === undefined) break
      due.live = false
      this.time = Math.max(this.time, due.at)
      due.then()
    }
    this.time = end
  }
}
