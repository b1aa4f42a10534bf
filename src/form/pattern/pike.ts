// The simulation of all paths of the automaton at once (a Pike VM without captures): each
// instruction enters the set of live states at most once per position of the text, whatever the
// pattern's nesting, hence the bound on its work. It runs where neither the lazy DFA (dfa.ts) nor
// the bit-parallel simulation (bits.ts) does, and in tests and comparisons. Design: docs/patterns.md.
import { ASSERT, CHAR, COUNT, MATCH, SET, contextAt, epsilon, type Automaton } from './code.ts'

export class PikeVm {
  /** Work of the last `run`, in the unit of src/form/pattern/pattern.ts's steps. */
  steps = 0

  private readonly op: Uint8Array
  private readonly a: Int32Array
  private readonly b: Int32Array
  private readonly anchored: boolean
  // whether some instruction asserts: else no position's context is worth computing
  private readonly asserts: boolean
  // class membership as V8 decides it: a table for ASCII, a sticky RegExp at the offset otherwise
  private readonly ascii: Uint8Array
  private readonly sticky: readonly RegExp[]
  private readonly countMin: Float64Array
  private readonly countMax: Float64Array
  private readonly seenAt: Float64Array
  private readonly seen: Uint8Array
  private tick = 0
  // scratch for one run: two sparse sets of states and the stack of the closure
  private readonly dense: [Int32Array, Int32Array]
  private readonly sparse: [Int32Array, Int32Array]
  private readonly stack: Int32Array
  // each counter's queue: the code point offsets at which threads entered it, oldest first, in a
  // ring; all advance together on a character of the class and all die on any other
  private readonly queue: Int32Array[]
  private readonly head: Int32Array
  private readonly queued: Int32Array
  private readonly alive: Uint8Array
  // the code point offset a closure enters counters at
  private entryAt = 0

  constructor (m: Automaton) {
    const n = m.states
    this.op = m.op
    this.a = m.a
    this.b = m.b
    this.anchored = m.anchored
    this.asserts = m.op.includes(ASSERT)
    this.ascii = m.ascii
    this.sticky = m.sticky
    this.countMin = m.countMin
    this.countMax = m.countMax
    this.seenAt = new Float64Array(m.sticky.length).fill(-1)
    this.seen = new Uint8Array(m.sticky.length)
    this.dense = [new Int32Array(n), new Int32Array(n)]
    this.sparse = [new Int32Array(n), new Int32Array(n)]
    this.stack = new Int32Array(2 * n + 1)
    const counters = m.countMin.length
    this.queue = Array.from({ length: counters }, () => new Int32Array(0))
    this.head = new Int32Array(counters)
    this.queued = new Int32Array(counters)
    this.alive = new Uint8Array(counters)
  }

  /** Whether the pattern matches in `text`, from offset `from`, where the instructions `seeds` are live (all of them from 0 when null). */
  run (text: string, from: number, seeds: Int32Array | null): boolean {
    const { op, a, b, ascii, alive, head, queue, countMin, asserts } = this
    const length = text.length
    let [now, next] = this.dense
    let [nowIndex, nextIndex] = this.sparse
    let size = 0
    let steps = 0
    let at = from
    let ctx = asserts ? contextAt(text, at) : 0
    this.steps = 0
    // counters count code points; seeds come from the DFA, which runs only programs without them
    let index = 0
    const counters = this.queue.length
    if (counters > 0) this.resetCounters(length)
    this.entryAt = 0
    if (seeds !== null) {
      for (const pc of seeds) {
        size = this.close(now, nowIndex, size, pc, ctx)
        if (size < 0) return this.done(steps, true)
      }
    }
    for (;;) {
      if (at === 0 || !this.anchored) {
        size = this.close(now, nowIndex, size, 0, ctx)
        if (size < 0) return this.done(steps, true)
      }
      if (at >= length || (size === 0 && this.anchored)) return this.done(steps, false)
      // a surrogate pair is one code point (the `u` flag); a lone surrogate stands for itself
      const c = text.codePointAt(at) as number
      const width = c > 0xffff ? 2 : 1
      const ahead = asserts ? contextAt(text, at + width) : 0
      this.tick++
      const after = index + 1
      // first every counter reads the character, before a closure below enters one at `after`
      if (counters > 0) {
        for (let k = 0; k < size; k++) {
          const pc = now[k] as number
          if (op[pc] === COUNT) {
            const id = a[pc] as number
            steps += this.advance(b[pc] as number, c < 128 ? ascii[id * 128 + c] === 1 : this.member(id, c, text, at), after)
          }
        }
      }
      this.entryAt = after
      let nextSize = 0
      for (let k = 0; k < size; k++) {
        const pc = now[k] as number
        const o = op[pc]
        if (o === CHAR) {
          steps++
          if (a[pc] !== c) continue
        } else if (o === SET) {
          steps++
          const id = a[pc] as number
          if (c < 128 ? ascii[id * 128 + c] !== 1 : !this.member(id, c, text, at)) continue
        } else if (o === COUNT) {
          const id = b[pc] as number
          steps++
          if (alive[id] === 0) continue
          // still counting: live at the next position, with no new entry
          const j = nextIndex[pc] as number
          if (!(j < nextSize && next[j] === pc)) {
            nextIndex[pc] = nextSize
            next[nextSize++] = pc
          }
          // the oldest entry has read the most: leave once it has read at least the least count
          if (after - ((queue[id] as Int32Array)[head[id] as number] as number) < (countMin[id] as number)) continue
        } else {
          continue
        }
        nextSize = this.close(next, nextIndex, nextSize, pc + 1, ahead)
        if (nextSize < 0) return this.done(steps, true)
      }
      const dense = now
      now = next
      next = dense
      const sparse = nowIndex
      nowIndex = nextIndex
      nextIndex = sparse
      size = nextSize
      at += width
      ctx = ahead
      index = after
      this.entryAt = index
    }
  }

  /** Empties every counter, each with room for the entries a text of `length` code units can make. */
  private resetCounters (length: number): void {
    for (let id = 0; id < this.queue.length; id++) {
      const room = Math.min((this.countMax[id] as number) + 1, length + 1)
      if ((this.queue[id] as Int32Array).length < room) this.queue[id] = new Int32Array(room)
      this.head[id] = 0
      this.queued[id] = 0
    }
  }

  /** A counter reads a character, `member` of its class or not, its entries now at `after`; the work done. */
  private advance (id: number, member: boolean, after: number): number {
    if (!member) {
      this.queued[id] = 0
      this.alive[id] = 0
      return 0
    }
    const queue = this.queue[id] as Int32Array
    const max = this.countMax[id] as number
    let head = this.head[id] as number
    let queued = this.queued[id] as number
    let work = 0
    // an entry that has read more than the most count is gone: the copies would have run out
    while (queued > 0 && after - (queue[head] as number) > max) {
      head = head + 1 === queue.length ? 0 : head + 1
      queued--
      work++
    }
    this.head[id] = head
    this.queued[id] = queued
    this.alive[id] = queued > 0 ? 1 : 0
    return work
  }

  /** A thread enters counter id at code point offset `at`; false when one already had. */
  private enter (id: number, at: number): boolean {
    const queue = this.queue[id] as Int32Array
    const queued = this.queued[id] as number
    let tail = (this.head[id] as number) + queued
    if (tail >= queue.length) tail -= queue.length
    if (queued > 0 && queue[tail === 0 ? queue.length - 1 : tail - 1] === at) return false
    queue[tail] = at
    this.queued[id] = queued + 1
    return true
  }

  private done (steps: number, matched: boolean): boolean {
    this.steps += steps
    return matched
  }

  /** Adds to the set the states reachable from `start` without reading, in context `ctx`; -1 on MATCH. */
  private close (dense: Int32Array, sparse: Int32Array, size: number, start: number, ctx: number): number {
    const { op, a, b, stack } = this
    let top = 0
    let steps = 0
    stack[top++] = start
    while (top > 0) {
      const pc = stack[--top] as number
      steps++
      const k = sparse[pc] as number
      const present = k < size && dense[k] === pc
      const o = op[pc]
      if (o === COUNT) {
        // entered here, even if already live (it counts for the threads that entered before)
        const id = b[pc] as number
        if (!present) {
          sparse[pc] = size
          dense[size++] = pc
        }
        if (this.enter(id, this.entryAt) && this.countMin[id] === 0) stack[top++] = pc + 1
        continue
      }
      if (present) continue
      sparse[pc] = size
      dense[size++] = pc
      if (o === MATCH) {
        this.steps += steps
        return -1
      }
      top = epsilon(op, a, b, pc, ctx, stack, top)
    }
    this.steps += steps
    return size
  }

  private member (id: number, c: number, text: string, at: number): boolean {
    if (c < 128) return this.ascii[id * 128 + c] === 1
    if (this.seenAt[id] !== this.tick) {
      const re = this.sticky[id] as RegExp
      re.lastIndex = at
      this.seen[id] = re.test(text) ? 1 : 0
      this.seenAt[id] = this.tick
    }
    return this.seen[id] === 1
  }
}
