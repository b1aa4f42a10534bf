/**
 * The last `capacity` values pushed, oldest first: each push past it drops the oldest, at a
 * constant cost whatever the capacity. A job's events and an act's progress before its hand-off
 * are held in one, so that what either holds is bounded whatever the act yields.
 */
export class Ring<T> {
  readonly capacity: number
  readonly #items: T[] = []
  /** Where the oldest value is once the ring is full. */
  #start = 0

  constructor (capacity: number) {
    this.capacity = capacity
  }

  get length (): number { return this.#items.length }

  /** True when the next push drops the oldest value. */
  get full (): boolean { return this.#items.length === this.capacity }

  push (value: T): void {
    if (!this.full) {
      this.#items.push(value)
      return
    }
    this.#items[this.#start] = value
    this.#start = (this.#start + 1) % this.capacity
  }

  /** The `index`-th value kept, oldest first; undefined past the ends. */
  at (index: number): T | undefined {
    if (index < 0 || index >= this.#items.length) return undefined
    return this.#items[(this.#start + index) % this.capacity]
  }

  /** The values kept from the `index`-th on, oldest first. */
  from (index: number): T[] {
    const values: T[] = []
    for (let i = Math.max(0, index); i < this.#items.length; i++) values.push(this.#items[(this.#start + i) % this.capacity]!)
    return values
  }

  clear (): void {
    this.#items.length = 0
    this.#start = 0
  }
}
