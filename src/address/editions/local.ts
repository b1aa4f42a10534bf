// An address's editions, behind one interface: local ones (this process only, below) or shared
// ones through Redis (src/address/editions/shared.ts).
import { publishEdition } from '../../diagnostics.ts'
import type { Content } from '../../types.ts'

/** One edition as the address serves it: its content, and the stored version it is (0: never stored). */
export interface Versioned {
  readonly version: number
  readonly content: Content
}

/** What the address lets its editions do: build editions without serving them, and serve one. */
export interface Holder<E extends Versioned> {
  readonly path: string
  readonly current: E
  /** The content `change` (or a function of `base`) makes of `base`; throws a named error if refused. Nothing is compiled. */
  apply (change: unknown, base: Content): Content
  /** An edition of `content`, checked and compiled; throws a named error if refused. */
  build (content: Content, version: number): E
  /** An edition of stored content (JSON text); throws a named error if refused. */
  read (text: string, version: number): E
  /** Serves `edition` from now on (the editions decide which is newest). */
  serve (edition: E): void
}

/** Where an address's updates go, and what decides the edition it serves. */
export interface Editions {
  /** Applies `change` and serves the edition it makes: at once (local), or once stored (shared). */
  update (change: unknown): void | Promise<void>
  close (): Promise<void>
}

/** Editions of this process alone: an update is applied, built and served before it returns. */
export class LocalEditions<E extends Versioned> implements Editions {
  readonly #holder: Holder<E>

  constructor (holder: Holder<E>) {
    this.#holder = holder
  }

  /** Throws the named error that refuses `change`, and then the edition served stays. */
  update (change: unknown): void {
    const { current } = this.#holder
    let edition: E
    try {
      edition = this.#holder.build(this.#holder.apply(change, current.content), current.version + 1)
    } catch (error) {
      this.#refused(error)
    }
    this.#built(edition)
  }

  // Nothing to let go of: the editions live in the address.
  async close (): Promise<void> {}

  /** An edition built, served from now on. */
  #built (edition: E): void {
    this.#holder.serve(edition)
  }

  /** A change refused: its caller is told why, by the error thrown. */
  #refused (reason: unknown): never {
    publishEdition(this.#holder.path, 'refused', this.#holder.current.version, undefined, reason)
    throw reason
  }
}
