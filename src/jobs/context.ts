import type { ActContext } from '../address/options.ts'

/**
 * An act's context whose AbortController is made only when the act reads `signal`: most acts
 * never do, and an act of the core's fast path should cost what it did.
 */
export class LazyContext implements ActContext {
  #controller: AbortController | undefined
  #aborted = false
  #reason: unknown

  get signal (): AbortSignal {
    if (this.#controller === undefined) {
      this.#controller = new AbortController()
      if (this.#aborted) this.#controller.abort(this.#reason)
    }
    return this.#controller.signal
  }

  get aborted (): boolean { return this.#aborted }

  abort (reason: unknown): void {
    if (this.#aborted) return
    this.#aborted = true
    this.#reason = reason
    this.#controller?.abort(reason)
  }
}
