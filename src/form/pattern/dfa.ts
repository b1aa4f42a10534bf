// A lazy DFA over the automaton of src/form/pattern/compiler.ts: the sets of live instructions the simulation
// would compute are built on demand, one per (set, class of code points) first met, and cached, so
// that a text of a shape seen before costs a table look-up per character. Design: docs/patterns.md.
import { ASSERT, AT_END, AT_START, CHAR, CODE_POINT_CACHE, CONTEXTS, END, JMP, MATCH, NEXT_WORD, PREV_WORD, SET, SPLIT, START, epsilon, isWordUnit, type Automaton } from './code.ts'

/** Default size of a pattern's cache, in 32-bit cells: transition rows, sets of instructions and their keys. */
export const DFA_CACHE_CELLS = 1 << 16

// transitions: a row offset (≥ 0) or one of these
const UNKNOWN = -1
const MATCHED = -2
const DEAD = -3

// a bit beside a closure's context: a state is being built, so `$`, `\b` and `\B` wait for the next
// character (a state's flags are the context bits it knows, AT_START and PREV_WORD)
const PENDING = CONTEXTS

// classes beyond the ASCII ones that a row has room for; more distinct ones flush the cache
const EXTRA_CLASSES = 32
// characters a state loops on before the rest of the run is found by a RegExp
const LONG_LOOP = 32
// per state besides its row and set: the key's characters are counted at half a cell
const STATE_OVERHEAD = 16

/** Outcome of `run`: a match, none, or BAIL (the cache thrashes: simulate from `bailAt` with `bailSet()`). */
export const BAIL = -1

export class LazyDfa {
  /** Work of the last `run`, in the unit of src/form/pattern/pattern.ts's steps. */
  steps = 0
  /** Offset where the simulation takes over after BAIL. */
  bailAt = 0
  /** Times the cache was flushed, over the life of this DFA. */
  flushes = 0
  /** Runs that returned BAIL, over the life of this DFA. */
  bails = 0

  private readonly op: Uint8Array
  private readonly a: Int32Array
  private readonly b: Int32Array
  private readonly n: number
  private readonly anchored: boolean
  private readonly sticky: readonly RegExp[]
  private readonly words: boolean
  private readonly budget: number

  // the alphabet: code points with the same answer from every consuming instruction (and the
  // same word-ness when the pattern has \b or \B) share a class; rows are indexed by class
  private readonly stride: number
  private readonly asciiClass: Uint8Array
  private readonly asciiClasses: number
  private readonly asciiSignatures: Map<string, number>
  private readonly literal: Map<number, number>
  private readonly classRep: Int32Array
  private readonly classSet: Uint8Array
  private readonly classWord: Uint8Array
  private classCount: number
  private signatures: Map<string, number>
  private readonly codePointClass = new Map<number, number>()

  // the cache: state i has the row trans[i * stride, (i + 1) * stride) and the set pool[setAt[i], + setLen[i])
  private trans: Int32Array = new Int32Array(0)
  private pool: Int32Array = new Int32Array(0)
  private setAt: number[] = []
  private setLen: number[] = []
  private flag: number[] = []
  private pending: boolean[] = []
  private endMatch: number[] = []
  private loops: (RegExp | undefined)[] = []
  private readonly keys = new Map<string, number>()
  private count = 0
  private poolUsed = 0
  private cells = 0
  private start = UNKNOWN
  private lastFlushStates = 0
  private bailState = 0

  // scratch: visited marks by generation, two sets of instructions, the closure's stack
  private readonly seen: Int32Array
  private gen = 0
  private readonly bufC: Int32Array
  private readonly bufT: Int32Array
  private readonly stack: Int32Array
  private work = 0

  /** A DFA for the automaton, or null when its alphabet alone would make rows wider than states + 1. */
  static for (m: Automaton, budget = DFA_CACHE_CELLS): LazyDfa | null {
    const dfa = new LazyDfa(m, budget)
    return dfa.asciiClasses < dfa.stride ? dfa : null
  }

  private constructor (m: Automaton, budget: number) {
    const { op, a, states: n } = m
    this.op = op
    this.a = a
    this.b = m.b
    this.n = n
    this.anchored = m.anchored
    this.sticky = m.sticky
    this.words = op.some((o, pc) => o === ASSERT && (a[pc] as number) > END)
    this.literal = new Map()
    for (let pc = 0; pc < n; pc++) {
      if (op[pc] === CHAR && !this.literal.has(a[pc] as number)) this.literal.set(a[pc] as number, this.literal.size)
    }
    const sets = m.sticky.length
    this.asciiClass = new Uint8Array(128)
    this.asciiSignatures = new Map()
    const reps: number[] = []
    for (let c = 0; c < 128; c++) {
      let bits = ''
      for (let id = 0; id < sets; id++) bits += m.ascii[id * 128 + c] === 1 ? '1' : '0'
      const signature = this.signature(c, bits)
      let cls = this.asciiSignatures.get(signature)
      if (cls === undefined) {
        cls = reps.length
        reps.push(c)
        this.asciiSignatures.set(signature, cls)
      }
      this.asciiClass[c] = cls
    }
    this.asciiClasses = reps.length
    this.stride = Math.min(n + 1, this.asciiClasses + EXTRA_CLASSES)
    this.budget = Math.max(budget, 2 * (this.stride + n + STATE_OVERHEAD))
    this.classRep = new Int32Array(this.stride)
    this.classSet = new Uint8Array(this.stride * sets)
    this.classWord = new Uint8Array(this.stride)
    reps.forEach((c, cls) => {
      this.classRep[cls] = c
      this.classWord[cls] = this.words && isWordUnit(c) ? 1 : 0
      for (let id = 0; id < sets; id++) this.classSet[cls * sets + id] = m.ascii[id * 128 + c] as number
    })
    this.classCount = this.asciiClasses
    this.signatures = new Map(this.asciiSignatures)
    this.seen = new Int32Array(n)
    this.bufC = new Int32Array(n)
    this.bufT = new Int32Array(n)
    this.stack = new Int32Array(2 * n + 1)
  }

  /** Whether the pattern matches in `text`: 1 or 0, or BAIL when the cache thrashes. */
  run (text: string): number {
    this.work = 0
    let h = this.start
    if (h === UNKNOWN) h = this.start = this.initial()
    if (h < 0) return this.done(0, h === MATCHED ? 1 : 0)
    const { asciiClass } = this
    let trans = this.trans
    const length = text.length
    let at = 0
    let flushes = this.flushes
    let lastFlushAt = -1
    for (;;) {
      // the common case, ASCII through cached transitions, in a loop of its own
      let loopFrom = at
      while (at < length) {
        const c = text.charCodeAt(at)
        if (c >= 128) break
        const t = trans[h + (asciiClass[c] as number)] as number
        if (t !== h) {
          if (t < 0) break
          h = t
          loopFrom = at
        } else if (at - loopFrom === LONG_LOOP) {
          at = this.skipLoop(h, text, at)
          loopFrom = at
          continue
        }
        at++
      }
      if (at >= length) break
      let c = text.charCodeAt(at)
      let width = 1
      let cls: number
      if (c < 128) {
        cls = asciiClass[c] as number
      } else {
        // a surrogate pair is one code point (the `u` flag); a lone surrogate stands for itself
        c = text.codePointAt(at) as number
        if (c > 0xffff) width = 2
        cls = this.classOf(c)
        if (cls < 0) {
          h = this.flush(h)
          cls = this.classOf(c)
          trans = this.trans
        }
      }
      let t = trans[h + cls] as number
      if (t < 0) {
        if (t === UNKNOWN) {
          t = this.transition(h, cls)
          trans = this.trans
          if (t >= 0 && this.flushes !== flushes) {
            // RE2's rule: a second flush soon after the first means the cache does not pay
            if (lastFlushAt >= 0 && at + width - lastFlushAt < 10 * this.lastFlushStates) {
              this.bailAt = at + width
              this.bailState = t
              this.bails++
              return this.done(at + width, BAIL)
            }
            flushes = this.flushes
            lastFlushAt = at + width
          }
        }
        if (t < 0) return this.done(at + width, t === MATCHED ? 1 : 0)
      }
      at += width
      h = t
    }
    return this.done(length, this.matchesAtEnd(h))
  }

  /**
   * The offset after the run of ASCII characters from `at` on which the state at row h loops to
   * itself. A sticky `[...]*` of those characters finds it in V8's native code: it has nothing
   * after the loop to backtrack into, so it takes time linear in the run.
   */
  private skipLoop (h: number, text: string, at: number): number {
    const i = h / this.stride
    let loop = this.loops[i]
    if (loop === undefined) {
      let chars = ''
      for (let c = 0; c < 128; c++) {
        if (this.trans[h + (this.asciiClass[c] as number)] === h) chars += `\\x${c.toString(16).padStart(2, '0')}`
      }
      this.work += 128
      loop = this.loops[i] = new RegExp(`[${chars}]*`, 'y')
      this.cells += STATE_OVERHEAD
    }
    loop.lastIndex = at
    loop.test(text)
    return loop.lastIndex
  }

  /** States in the cache. */
  get cached (): number {
    return this.count
  }

  /** The instructions live at `bailAt`, with `$`, `\b` and `\B` still to be decided there. */
  bailSet (): Int32Array {
    const i = this.bailState / this.stride
    return this.pool.subarray(this.setAt[i] as number, (this.setAt[i] as number) + (this.setLen[i] as number))
  }

  private done (reads: number, result: number): number {
    this.steps = this.work + reads
    return result
  }

  private signature (c: number, bits: string): string {
    const word = this.words && c < 128 && isWordUnit(c) ? 'w' : ''
    return `${this.literal.get(c) ?? -1}${word}:${bits}`
  }

  /** The class of a code point outside ASCII, or -1 when rows have no room for a new one. */
  private classOf (c: number): number {
    let cls = this.codePointClass.get(c)
    if (cls !== undefined) return cls
    const sets = this.sticky.length
    const ch = String.fromCodePoint(c)
    let bits = ''
    for (const re of this.sticky) {
      re.lastIndex = 0
      bits += re.test(ch) ? '1' : '0'
    }
    this.work += sets
    const signature = this.signature(c, bits)
    cls = this.signatures.get(signature)
    if (cls === undefined) {
      if (this.classCount === this.stride) return -1
      cls = this.classCount++
      this.signatures.set(signature, cls)
      this.classRep[cls] = c
      this.classWord[cls] = 0
      for (let id = 0; id < sets; id++) this.classSet[cls * sets + id] = bits.charCodeAt(id) - 0x30
    }
    if (this.codePointClass.size === CODE_POINT_CACHE) this.codePointClass.clear()
    this.codePointClass.set(c, cls)
    return cls
  }

  /**
   * Adds to out[len...] the consuming instructions, and the assertions still undecided, reachable
   * from pc without reading; -1 if MATCH is. What is known of the position is the context `ctx`.
   */
  private close (pc0: number, ctx: number, out: Int32Array, len: number): number {
    const { op, a, b, stack, seen, gen } = this
    let top = 0
    stack[top++] = pc0
    while (top > 0) {
      const pc = stack[--top] as number
      this.work++
      if (seen[pc] === gen) continue
      seen[pc] = gen
      const o = op[pc]
      if (o === MATCH) return -1
      // a DFA runs no COUNT: what reads is CHAR or SET
      if (o === CHAR || o === SET || (o === ASSERT && (ctx & PENDING) !== 0 && a[pc] !== START)) out[len++] = pc
      else top = epsilon(op, a, b, pc, ctx, stack, top)
    }
    return len
  }

  /** A fresh generation of visited marks. */
  private mark (): void {
    // after 2^31 closures the marks would wrap around and stop marking: clear them first
    /* c8 ignore next 4: reached after 2^31 closures in one process, which no test runs */
    if (this.gen === 0x7fffffff) {
      this.seen.fill(0)
      this.gen = 0
    }
    this.gen++
  }

  private initial (): number {
    this.mark()
    const len = this.close(0, AT_START | PENDING, this.bufT, 0)
    return len < 0 ? MATCHED : len === 0 ? DEAD : this.state(this.bufT, len, AT_START)
  }

  /** The state after reading a character of class cls in the state at row h; cached in the row. */
  private transition (h: number, cls: number): number {
    const i = h / this.stride
    const { op, a } = this
    const flags = this.flag[i] as number
    let src = this.pool
    let base = this.setAt[i] as number
    let len = this.setLen[i] as number
    if (this.pending[i] === true) {
      // decide `$`, `\b` and `\B` now that the next character is known
      const ctx = flags | (this.classWord[cls] === 1 ? NEXT_WORD : 0)
      this.mark()
      let decided = 0
      for (let k = 0; k < len; k++) {
        decided = this.close(src[base + k] as number, ctx, this.bufC, decided)
        if (decided < 0) return (this.trans[h + cls] = MATCHED)
      }
      src = this.bufC
      base = 0
      len = decided
    }
    this.mark()
    const sets = this.sticky.length
    const rep = this.classRep[cls] as number
    let size = 0
    for (let k = 0; k < len; k++) {
      const pc = src[base + k] as number
      this.work++
      const hit = op[pc] === CHAR ? a[pc] === rep : this.classSet[cls * sets + (a[pc] as number)] === 1
      if (hit) {
        size = this.close(pc + 1, PENDING, this.bufT, size)
        if (size < 0) return (this.trans[h + cls] = MATCHED)
      }
    }
    if (!this.anchored) {
      // the unanchored search: a match may also start at the next position
      size = this.close(0, PENDING, this.bufT, size)
      if (size < 0) return (this.trans[h + cls] = MATCHED)
    }
    const before = this.flushes
    const t = size === 0 ? DEAD : this.state(this.bufT, size, this.classWord[cls] === 1 ? PREV_WORD : 0)
    // a flush emptied the cache, this row with it
    if (this.flushes === before) this.trans[h + cls] = t
    return t
  }

  /** The row of the state with these instructions and flags, added if new (flushing the cache if full). */
  private state (set: Int32Array, size: number, flags: number, sorted = false): number {
    const ordered = sorted ? set.subarray(0, size) : this.canonical(set, size)
    const key = String.fromCharCode(flags) + String.fromCharCode.apply(null, ordered as unknown as number[])
    this.work += size
    const known = this.keys.get(key)
    if (known !== undefined) return known
    const cost = this.stride + size + (size >> 1) + STATE_OVERHEAD
    if (this.cells + cost > this.budget) this.clear()
    const i = this.count++
    const h = i * this.stride
    this.cells += cost
    this.work += this.stride
    if (this.trans.length < h + this.stride) this.trans = grow(this.trans, h + this.stride)
    this.trans.fill(UNKNOWN, h, h + this.stride)
    if (this.pool.length < this.poolUsed + size) this.pool = grow(this.pool, this.poolUsed + size)
    this.pool.set(ordered, this.poolUsed)
    this.setAt[i] = this.poolUsed
    this.setLen[i] = size
    this.poolUsed += size
    this.flag[i] = flags
    this.pending[i] = ordered.some(pc => this.op[pc] === ASSERT)
    this.endMatch[i] = -1
    this.loops[i] = undefined
    this.keys.set(key, h)
    return h
  }

  /** The set in increasing order, so that equal sets share a state; at most `states` steps. */
  private canonical (set: Int32Array, size: number): Int32Array {
    const slice = set.subarray(0, size)
    if (size * Math.ceil(Math.log2(size + 1)) <= this.n) {
      this.work += size
      return slice.sort()
    }
    // large: read the marks of the closure that built it, in order
    this.work += this.n
    const { seen, gen, op } = this
    let k = 0
    for (let pc = 0; pc < this.n && k < size; pc++) {
      if (seen[pc] === gen && (op[pc] as number) !== JMP && (op[pc] as number) !== SPLIT && !(op[pc] === ASSERT && this.a[pc] === START)) set[k++] = pc
    }
    return slice
  }

  private matchesAtEnd (h: number): number {
    const i = h / this.stride
    let known = this.endMatch[i] as number
    if (known < 0) {
      known = 0
      if (this.pending[i] === true) {
        this.mark()
        const at = this.setAt[i] as number
        for (let k = 0; k < (this.setLen[i] as number) && known === 0; k++) {
          if (this.close(this.pool[at + k] as number, (this.flag[i] as number) | AT_END, this.bufC, 0) < 0) known = 1
        }
      }
      this.endMatch[i] = known
    }
    return known
  }

  /** Empties the cache and adds back the state at row h, the one being read from; its new row. */
  private flush (h: number): number {
    const i = h / this.stride
    const size = this.setLen[i] as number
    this.bufT.set(this.pool.subarray(this.setAt[i] as number, (this.setAt[i] as number) + size))
    const flags = this.flag[i] as number
    this.clear()
    return this.state(this.bufT, size, flags, true)
  }

  private clear (): void {
    this.flushes++
    this.lastFlushStates = this.count
    this.keys.clear()
    this.count = 0
    this.cells = 0
    this.poolUsed = 0
    this.start = UNKNOWN
    this.classCount = this.asciiClasses
    this.signatures = new Map(this.asciiSignatures)
    this.codePointClass.clear()
  }
}

function grow (array: Int32Array, least: number): Int32Array {
  const bigger = new Int32Array(Math.max(least, 2 * array.length, 64))
  bigger.set(array)
  return bigger
}
