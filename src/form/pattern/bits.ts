// The bit-parallel simulation of the automaton of compiler.ts: the set of live consuming
// instructions is a bitset of three 32-bit words, and one character costs the same few table
// look-ups whatever the pattern, with no cache to thrash. A counter (`[^<>]{1,4000}`) is one
// position, with the offsets threads entered it at beside the set, so its count costs nothing per
// character. It takes over where the lazy DFA gives up (dfa.ts), and runs alone where there is no
// DFA (a pattern with a counter has none). Design: docs/patterns.md.
import { AT_END, AT_START, CODE_POINT_CACHE, NEXT_WORD, PREV_WORD, contextAt, isWordUnit, type Automaton } from './code.ts'
import { BIT_POSITIONS, NARROW_POSITIONS, WORDS, layout, positions } from './positions.ts'

// a set is read in chunks of 8 bits, each the index of a row of precomputed unions
const CHUNKS = BIT_POSITIONS / 8

/**
 * The bound on the steps of the bit-parallel simulation per code unit of the text (plus one): a
 * look-up per chunk of the set, the start and the character's set, at most one union per position
 * added to the tables, one membership test per class for a code point outside ASCII, and for each
 * counter (a position) an entry, the character read, and an entry leaving (each leaves once).
 */
export const BIT_STEPS_PER_CHAR = CHUNKS + 2 + BIT_POSITIONS + 80 + 3 * BIT_POSITIONS

export class BitSimulation {
  /** Work of the last `run`, in the unit of src/form/pattern/pattern.ts's steps. */
  steps = 0

  private readonly n: number
  private readonly chunks: number
  private readonly pcOf: Int32Array
  private readonly matchWord: number
  private readonly matchBit: number
  // which context bits some assertion reads: the others are left 0, so fewer contexts are built
  private readonly contextMask: number
  private readonly words: boolean
  private readonly anchored: boolean
  // closure[(ctx * n + pc) * WORDS + w]: the positions reachable from pc without reading, in ctx
  private readonly closure: Int32Array
  // per context, the union of the closures after each position of a chunk's value, filled on first use
  // (a read position's bit never stands for MATCH: MATCH reads nothing)
  private follow = new Int32Array(0)
  private filled = new Uint8Array(0)
  // the positions that accept an ASCII character, and those that accept a class or literal
  private readonly asciiAccept: Int32Array
  private readonly classMask: Int32Array
  private readonly literalMask: Map<number, Int32Array>
  private readonly sticky: readonly RegExp[]
  private readonly codePointAccept = new Map<number, Int32Array>()
  // the counters: their positions (a counter's bit in the accepting sets says it reads the
  // character), and for each, indexed by counter id, its instruction, least and most counts, and
  // the code point offsets at which threads entered it, oldest first, as runs of consecutive
  // offsets (first and last) in a ring of `room` runs from `base` in `first` and `last`
  private readonly counted: Int32Array
  private readonly counters: number
  private readonly counterAt: Int32Array
  private readonly countPc: Int32Array
  private readonly countMin: Float64Array
  private readonly countMax: Float64Array
  private readonly base: Int32Array
  private readonly room: Int32Array
  private readonly head: Int32Array
  private readonly runs: Int32Array
  private first = new Int32Array(0)
  private last = new Int32Array(0)

  /** The simulation for an automaton, or null when it has more positions than a set holds. */
  static for (m: Automaton): BitSimulation | null {
    return positions(m.op) <= BIT_POSITIONS ? new BitSimulation(m) : null
  }

  private constructor (m: Automaton) {
    const p = layout(m)
    this.n = m.states
    this.anchored = m.anchored
    this.sticky = m.sticky
    this.pcOf = p.pcOf
    this.chunks = Math.max(1, Math.ceil(p.pcOf.length / 8))
    this.matchWord = p.match >> 5
    this.matchBit = 1 << (p.match & 31)
    this.contextMask = p.contextMask
    this.words = (p.contextMask & PREV_WORD) !== 0
    this.closure = p.closure
    this.asciiAccept = p.asciiAccept
    this.classMask = p.classMask
    this.literalMask = p.literalMask
    this.counted = p.counted
    this.counters = m.countMin.length
    this.counterAt = p.counterAt
    this.countPc = p.countPc
    this.countMin = m.countMin
    this.countMax = m.countMax
    this.base = new Int32Array(this.counters)
    this.room = new Int32Array(this.counters)
    this.head = new Int32Array(this.counters)
    this.runs = new Int32Array(this.counters)
  }

  /**
   * Whether the pattern matches in `text`, reading from offset `from`, where the instructions
   * `seeds` are live with their assertions still to be decided (none but the start when null).
   */
  run (text: string, from: number, seeds: Int32Array | null): boolean {
    return this.pcOf.length <= NARROW_POSITIONS ? this.runNarrow(text, from, seeds) : this.runWide(text, from, seeds)
  }

  /** The tables of unions, at the first run. */
  private tables (): void {
    // inside the text only \b and \B tell positions apart: at most 4 contexts, each a table
    const mids = this.words ? 4 : 1
    this.follow = new Int32Array(mids * this.chunks * 256 * WORDS)
    this.filled = new Uint8Array(mids * this.chunks * 256)
  }

  // kept whole for speed, as its twin runWide is: a test runs both on the same inputs
  /** `run` for at most NARROW_POSITIONS positions: the sets are their first words (the others stay 0). Public for the test of the twins. */
  runNarrow (text: string, from: number, seeds: Int32Array | null): boolean {
    if (this.follow.length === 0) this.tables()
    const { closure, asciiAccept, n, chunks, anchored, matchBit, contextMask, words, follow, filled, counters } = this
    const counted = this.counted[0] as number
    const length = text.length
    let steps = 0
    let live = 0
    let index = 0
    if (counters > 0) this.resetCounters(length)
    // with one counter, its ring of runs and its counts are locals (tail: the newest run)
    const { first, last } = this
    const room = this.room[0] ?? 0
    const min = this.countMin[0] ?? 0
    const max = this.countMax[0] ?? 0
    const exitPc = (this.countPc[0] ?? 0) + 1
    let head = 0
    let runs = 0
    let tail = -1
    let d = 0
    let at = from
    let ctx = this.context(text, at)
    let s = 0
    if (seeds !== null) {
      for (let i = 0; i < seeds.length; i++) {
        steps++
        s |= closure[(ctx * n + (seeds[i] as number)) * WORDS] as number
      }
    }
    for (;;) {
      // as in runWide, one word at a time
      let l = s
      s = 0
      if (d !== 0) {
        if ((ctx & (AT_START | AT_END)) === 0) {
          const base = (ctx >> 2) * chunks
          for (let k = 0; k < chunks; k++) {
            const v = (d >>> (k << 3)) & 255
            if (v === 0) continue
            const row = ((base + k) << 8) | v
            steps++
            if (filled[row] === 0) {
              steps += this.fill(row, k, v, ctx)
              filled[row] = 1
            }
            l |= follow[row * WORDS] as number
          }
        } else {
          for (let rest = d; rest !== 0; rest &= rest - 1) {
            steps++
            l |= closure[(ctx * n + (this.pcOf[31 - Math.clz32(rest & -rest)] as number) + 1) * WORDS] as number
          }
        }
      }
      if (at === 0 || !anchored) {
        steps++
        l |= closure[ctx * n * WORDS] as number
      }
      if (counters > 0) {
        // a counter in the closures was entered here; those entered before are still live
        const entered = l & counted
        if (entered !== 0) {
          steps++
          if (counters > 1) steps += this.enter(entered, 0, index) - 1
          else if (runs > 0 && last[tail] === index - 1) last[tail] = index // right after the newest run: extends it
          else {
            if (++tail === room) tail = 0
            first[tail] = last[tail] = index
            runs++
          }
        }
        l |= live
        live = l & counted
      }
      if ((l & matchBit) !== 0) return this.done(steps, true)
      if (at >= length || (l === 0 && anchored)) return this.done(steps, false)
      let c = text.charCodeAt(at)
      let width = 1
      steps++
      if (c < 128) {
        d = l & (asciiAccept[c * WORDS] as number)
      } else {
        // a surrogate pair is one code point (the `u` flag); a lone surrogate stands for itself
        c = text.codePointAt(at) as number
        if (c > 0xffff) width = 2
        let accept = this.codePointAccept.get(c)
        if (accept === undefined) {
          accept = this.accepting(c)
          steps += this.sticky.length
        }
        d = l & (accept[0] as number)
      }
      at += width
      index++
      if (contextMask !== 0) {
        ctx = at === length ? AT_END : 0
        if (words) {
          if (isWordUnit(text.charCodeAt(at - 1))) ctx |= PREV_WORD
          if (at < length && isWordUnit(text.charCodeAt(at))) ctx |= NEXT_WORD
        }
        ctx &= contextMask
      }
      if (live !== 0) {
        // every live counter reads the character: those whose class has it keep counting (a
        // counter's bit in d), the others empty; a thread leaves one whose oldest entry has read
        // at least its least count, into the closure after it, which joins the next live set
        const reading = d & live
        d ^= reading
        if (counters > 1) {
          if ((live ^ reading) !== 0) steps += this.emptyAll(live ^ reading, 0)
          this.e0 = this.work = 0
          live = reading === 0 ? 0 : this.read(reading, 0, index, ctx)
          steps += this.work
          s = this.e0
        } else if (reading === 0) {
          steps++
          head = runs = live = 0
          tail = -1
        } else {
          // the one counter, its state in locals: as `read` does
          const oldest = index - max
          steps++
          while (runs > 0 && (last[head] as number) < oldest) {
            if (++head === room) head = 0
            runs--
            steps++
          }
          if (runs === 0) live = 0
          else {
            if ((first[head] as number) < oldest) first[head] = oldest
            if (index - (first[head] as number) >= min) s = closure[(ctx * n + exitPc) * WORDS] as number
          }
        }
      }
    }
  }

  // kept whole for speed, as its twin runNarrow is: a test runs both on the same inputs
  /** `run` for up to BIT_POSITIONS positions. Public for the test of the twins. */
  runWide (text: string, from: number, seeds: Int32Array | null): boolean {
    if (this.follow.length === 0) this.tables()
    const { closure, asciiAccept, n, chunks, anchored, matchWord, matchBit, contextMask, words, follow, filled, counted, counters } = this
    const length = text.length
    let steps = 0
    // the counters with threads inside (their queues not empty), and the code point offset
    let c0 = 0
    let c1 = 0
    let c2 = 0
    let index = 0
    if (counters > 0) this.resetCounters(length)
    // the positions that read the previous character
    let d0 = 0
    let d1 = 0
    let d2 = 0
    let at = from
    let ctx = this.context(text, at)
    // a seed is live now, not after a character: its closure joins the first live set
    let s0 = 0
    let s1 = 0
    let s2 = 0
    if (seeds !== null) {
      for (let i = 0; i < seeds.length; i++) {
        const k = (ctx * n + (seeds[i] as number)) * WORDS
        steps++
        s0 |= closure[k] as number
        s1 |= closure[k + 1] as number
        s2 |= closure[k + 2] as number
      }
    }
    for (;;) {
      // the live positions: what follows the positions that read the previous character, the start
      let l0 = s0
      let l1 = s1
      let l2 = s2
      s0 = s1 = s2 = 0
      if ((d0 | d1 | d2) !== 0) {
        if ((ctx & (AT_START | AT_END)) === 0) {
          // inside the text: one look-up per chunk of 8 positions in the table of the context
          const base = (ctx >> 2) * chunks
          for (let k = 0; k < chunks; k++) {
            const v = ((k < 4 ? d0 : k < 8 ? d1 : d2) >>> ((k & 3) << 3)) & 255
            if (v === 0) continue
            const row = ((base + k) << 8) | v
            steps++
            if (filled[row] === 0) {
              steps += this.fill(row, k, v, ctx)
              filled[row] = 1
            }
            const r = row * WORDS
            l0 |= follow[r] as number
            l1 |= follow[r + 1] as number
            l2 |= follow[r + 2] as number
          }
        } else {
          // at an end of the text, once: the closures one by one
          for (let bit = 0; bit < BIT_POSITIONS; bit++) {
            const d = bit < 32 ? d0 : bit < 64 ? d1 : d2
            if ((d & (1 << (bit & 31))) === 0) continue
            const k = (ctx * n + (this.pcOf[bit] as number) + 1) * WORDS
            steps++
            l0 |= closure[k] as number
            l1 |= closure[k + 1] as number
            l2 |= closure[k + 2] as number
          }
        }
      }
      if (at === 0 || !anchored) {
        const k = ctx * n * WORDS
        steps++
        l0 |= closure[k] as number
        l1 |= closure[k + 1] as number
        l2 |= closure[k + 2] as number
      }
      if (counters > 0) {
        // a counter in the closures was entered here; those entered before are still live
        const e0 = l0 & (counted[0] as number)
        const e1 = l1 & (counted[1] as number)
        const e2 = l2 & (counted[2] as number)
        if (e0 !== 0) steps += this.enter(e0, 0, index)
        if ((e1 | e2) !== 0) steps += this.enter(e1, 1, index) + this.enter(e2, 2, index)
        c0 = l0 = l0 | c0
        c1 = l1 = l1 | c1
        c2 = l2 = l2 | c2
        c0 &= counted[0] as number
        c1 &= counted[1] as number
        c2 &= counted[2] as number
      }
      if (((matchWord === 0 ? l0 : matchWord === 1 ? l1 : l2) & matchBit) !== 0) return this.done(steps, true)
      if (at >= length || ((l0 | l1 | l2) === 0 && anchored)) return this.done(steps, false)
      let c = text.charCodeAt(at)
      let width = 1
      steps++
      if (c < 128) {
        const k = c * WORDS
        d0 = l0 & (asciiAccept[k] as number)
        d1 = l1 & (asciiAccept[k + 1] as number)
        d2 = l2 & (asciiAccept[k + 2] as number)
      } else {
        // a surrogate pair is one code point (the `u` flag); a lone surrogate stands for itself
        c = text.codePointAt(at) as number
        if (c > 0xffff) width = 2
        let accept = this.codePointAccept.get(c)
        if (accept === undefined) {
          accept = this.accepting(c)
          steps += this.sticky.length
        }
        d0 = l0 & (accept[0] as number)
        d1 = l1 & (accept[1] as number)
        d2 = l2 & (accept[2] as number)
      }
      at += width
      // the context of the next position: only the bits some assertion reads
      if (contextMask !== 0) {
        ctx = at === length ? AT_END : 0
        if (words) {
          if (isWordUnit(text.charCodeAt(at - 1))) ctx |= PREV_WORD
          if (at < length && isWordUnit(text.charCodeAt(at))) ctx |= NEXT_WORD
        }
        ctx &= contextMask
      }
      if ((c0 | c1 | c2) !== 0) {
        // every live counter reads the character: those whose class has it keep counting (a
        // counter's bit in d), the others empty; a thread leaves one whose oldest entry has read
        // at least its least count, into the closure after it, which joins the next live set
        index++
        const r0 = d0 & c0
        const r1 = d1 & c1
        const r2 = d2 & c2
        if ((c0 ^ r0) !== 0) steps += this.emptyAll(c0 ^ r0, 0)
        if (((c1 ^ r1) | (c2 ^ r2)) !== 0) steps += this.emptyAll(c1 ^ r1, 1) + this.emptyAll(c2 ^ r2, 2)
        d0 ^= r0
        d1 ^= r1
        d2 ^= r2
        this.e0 = this.e1 = this.e2 = this.work = 0
        c0 = r0 === 0 ? 0 : this.read(r0, 0, index, ctx)
        c1 = r1 === 0 ? 0 : this.read(r1, 1, index, ctx)
        c2 = r2 === 0 ? 0 : this.read(r2, 2, index, ctx)
        steps += this.work
        s0 |= this.e0
        s1 |= this.e1
        s2 |= this.e2
      } else if (counters > 0) {
        index++
      }
    }
  }

  // the closures after the counters a thread left at the last character read, by word, and the
  // work of reading it
  private e0 = 0
  private e1 = 0
  private e2 = 0
  private work = 0

  /** Empties each counter, each with room for the runs of entries a text of `length` code units can make. */
  private resetCounters (length: number): void {
    let total = 0
    for (let id = 0; id < this.counters; id++) {
      // entries are at most one per offset and within the most count of each other; runs fewer
      const room = Math.min((this.countMax[id] as number) + 1, length + 1)
      this.base[id] = total
      this.room[id] = room
      this.head[id] = 0
      this.runs[id] = 0
      total += room
    }
    if (this.first.length < total) {
      this.first = new Int32Array(total)
      this.last = new Int32Array(total)
    }
  }

  /** Threads enter the counters of `bits` (word w of a set) at code point offset `at`; the work done. */
  private enter (bits: number, w: number, at: number): number {
    const { first, last } = this
    let work = 0
    for (; bits !== 0; bits &= bits - 1) {
      const id = this.counterAt[(w << 5) | (31 - Math.clz32(bits & -bits))] as number
      const runs = this.runs[id] as number
      const room = this.room[id] as number
      const base = this.base[id] as number
      let tail = (this.head[id] as number) + runs - 1
      if (tail >= room) tail -= room
      work++
      // an entry right after the newest run extends it
      if (runs > 0 && last[base + tail] === at - 1) {
        last[base + tail] = at
        continue
      }
      if (++tail === room) tail = 0
      first[base + tail] = last[base + tail] = at
      this.runs[id] = runs + 1
    }
    return work
  }

  /** The counters of `bits` (word w) read a character not in their class: every thread in them dies. */
  private emptyAll (bits: number, w: number): number {
    let work = 0
    for (; bits !== 0; bits &= bits - 1) {
      this.runs[this.counterAt[(w << 5) | (31 - Math.clz32(bits & -bits))] as number] = 0
      work++
    }
    return work
  }

  /**
   * The counters of `bits` (word w) read a character of their class, their entries now at code
   * point offset `after`: the entries past the most count leave. Returns those still live; ors
   * into e0..e2 the closures (context ctx) after those a thread may leave, and adds to `work`.
   */
  private read (bits: number, w: number, after: number, ctx: number): number {
    const { first, last } = this
    let live = 0
    for (; bits !== 0; bits &= bits - 1) {
      this.work++
      const low = bits & -bits
      const id = this.counterAt[(w << 5) | (31 - Math.clz32(low))] as number
      const oldest = after - (this.countMax[id] as number)
      const room = this.room[id] as number
      const base = this.base[id] as number
      let head = this.head[id] as number
      let runs = this.runs[id] as number
      // an entry that has read more than the most count is gone: the copies would have run out
      while (runs > 0 && (last[base + head] as number) < oldest) {
        if (++head === room) head = 0
        runs--
        this.work++
      }
      this.head[id] = head
      this.runs[id] = runs
      if (runs === 0) continue
      if ((first[base + head] as number) < oldest) first[base + head] = oldest
      live |= low
      // the oldest entry has read the most: leave once it has read at least the least count
      if (after - (first[base + head] as number) >= (this.countMin[id] as number)) {
        const k = (ctx * this.n + (this.countPc[id] as number) + 1) * WORDS
        this.e0 |= this.closure[k] as number
        this.e1 |= this.closure[k + 1] as number
        this.e2 |= this.closure[k + 2] as number
      }
    }
    return live
  }

  private done (steps: number, matched: boolean): boolean {
    this.steps = steps
    return matched
  }

  /** The context at offset `at`, as far as the pattern's assertions read it. */
  private context (text: string, at: number): number {
    return contextAt(text, at) & this.contextMask
  }

  /** Fills a row of the table: the union of the closures after each position of chunk k in v; the work done. */
  private fill (row: number, k: number, v: number, ctx: number): number {
    const { closure, n, pcOf, follow } = this
    const r = row * WORDS
    let work = 0
    follow[r] = follow[r + 1] = follow[r + 2] = 0
    for (let bit = 0; v !== 0; bit++, v >>>= 1) {
      if ((v & 1) === 0) continue
      const pc = pcOf[(k << 3) + bit] as number
      const c = (ctx * n + pc + 1) * WORDS
      follow[r] = (follow[r] as number) | (closure[c] as number)
      follow[r + 1] = (follow[r + 1] as number) | (closure[c + 1] as number)
      follow[r + 2] = (follow[r + 2] as number) | (closure[c + 2] as number)
      work++
    }
    return work
  }

  /** The positions that read the code point c (outside ASCII), as V8 decides each class. */
  private accepting (c: number): Int32Array {
    const accept = new Int32Array(WORDS)
    const ch = String.fromCodePoint(c)
    this.sticky.forEach((re, id) => {
      re.lastIndex = 0
      if (re.test(ch)) {
        for (let w = 0; w < WORDS; w++) accept[w] = (accept[w] as number) | (this.classMask[id * WORDS + w] as number)
      }
    })
    const lit = this.literalMask.get(c)
    if (lit !== undefined) for (let w = 0; w < WORDS; w++) accept[w] = (accept[w] as number) | (lit[w] as number)
    if (this.codePointAccept.size === CODE_POINT_CACHE) this.codePointAccept.clear()
    this.codePointAccept.set(c, accept)
    return accept
  }
}
