// An address's editions in one process, and what the address asks of its editions whichever they
// are: the shared ones (src/address/editions.ts) keep the same methods over Redis.
import { publishEdition } from '../diagnostics.ts'
import type { Content } from '../types.ts'

/** An address's editions: closed with the host, and changed by update (the shared ones are started first, by the address). */
export interface Editions {
  close (): Promise<void>
  /** Local editions change at once (or throw a named error); shared ones once stored. */
  update (change: unknown): void | Promise<void>
}

/** One edition as the address serves it: its content, and the stored version it is (0: never stored). */
export interface Versioned {
  readonly version: number
  readonly content: Content
}

/** What local editions need of their address: the edition a change makes of the current one, and serving it. */
export interface LocalHolder<E extends Versioned> {
  readonly path: string
  readonly current: E
  next (change: unknown, base: Content, version: number): E
  serve (edition: E): void
}

/** Editions kept in this process only: each update is built and served at once, as the next version. */
export class LocalEditions<E extends Versioned> implements Editions {
  readonly #holder: LocalHolder<E>
  constructor (holder: LocalHolder<E>) {
    this.#holder = holder
  }

  async close (): Promise<void> {}

  update (change: unknown): void {
    const { current } = this.#holder
    let next: E
    try {
      next = this.#holder.next(change, current.content, current.version + 1)
    } catch (error) {
      publishEdition(this.#holder.path, 'refused', current.version, undefined, error)
      throw error
    }
    this.#holder.serve(next)
  }
}
