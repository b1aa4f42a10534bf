// The bit-parallel simulation of the automaton of src/pattern.ts: the set of live consuming
// instructions is a bitset of three 32-bit words, and one character costs the same few table
// look-ups whatever the pattern, with no cache to thrash. It takes over where the lazy DFA gives
// up (src/pattern-dfa.ts), and runs alone where there is no DFA. Design: docs/patterns.md.
import { ASSERT, CHAR, COUNT, END, JMP, MATCH, SET, SPLIT, START, WORD, isWordUnit, type Automaton } from './code.ts'

/** Words of a set: room for 96 positions, the consuming instructions and MATCH. */
const WORDS = 3
/** Most positions a set holds. */
export const BIT_POSITIONS = 32 * WORDS
// a set is read in chunks of 8 bits, each the index of a row of precomputed unions
const CHUNKS = BIT_POSITIONS / 8

/**
 * The bound on the steps of the bit-parallel simulation per code unit of the text (plus one): a
 * look-up per chunk of the set, the start and the character's set, at most one union per position
 * added to the tables, and one membership test per class for a code point outside ASCII.
 */
export const BIT_STEPS_PER_CHAR = CHUNKS + 2 + BIT_POSITIONS + 80

// what an assertion knows of a position: bits of a context
const AT_START = 1
const AT_END = 2
const PREV_WORD = 4
const NEXT_WORD = 8
const CONTEXTS = 16

// code points outside ASCII whose set of accepting positions is remembered
const CODE_POINT_CACHE = 4096

export class BitSimulation {
  /** Work of the last `run`, in the unit of src/pattern.ts's steps. */
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

  /** The simulation for an automaton, or null when it has counters or more positions than a set holds. */
  static for (m: Automaton): BitSimulation | null {
    let positions = 0
    for (let pc = 0; pc < m.states; pc++) {
      const o = m.op[pc]
      if (o === COUNT) return null
      if (o === CHAR || o === SET || o === MATCH) positions++
    }
    return positions <= BIT_POSITIONS ? new BitSimulation(m) : null
  }

  private constructor (m: Automaton) {
    const { op, a, states: n } = m
    this.n = n
    this.anchored = m.anchored
    this.sticky = m.sticky
    const bitOf = new Int32Array(n).fill(-1)
    const pcs: number[] = []
    let mask = 0
    for (let pc = 0; pc < n; pc++) {
      const o = op[pc]
      if (o === CHAR || o === SET || o === MATCH) {
        bitOf[pc] = pcs.length
        pcs.push(pc)
      } else if (o === ASSERT) {
        const kind = a[pc] as number
        mask |= kind === START ? AT_START : kind === END ? AT_END : PREV_WORD | NEXT_WORD
      }
    }
    this.pcOf = Int32Array.from(pcs)
    this.chunks = Math.max(1, Math.ceil(pcs.length / 8))
    const matchPosition = bitOf[op.indexOf(MATCH)] as number
    this.matchWord = matchPosition >> 5
    this.matchBit = 1 << (matchPosition & 31)
    this.contextMask = mask
    this.words = (mask & PREV_WORD) !== 0

    // the closures, for every context an assertion can tell apart: at most 16 × states² steps,
    // once, when the pattern is compiled
    this.closure = new Int32Array(CONTEXTS * n * WORDS)
    const seen = new Int32Array(n).fill(-1)
    const stack = new Int32Array(2 * n + 1)
    let mark = 0
    for (let ctx = 0; ctx < CONTEXTS; ctx++) {
      if ((ctx & mask) !== ctx) continue
      for (let from = 0; from < n; from++) {
        mark++
        const out = (ctx * n + from) * WORDS
        let top = 0
        stack[top++] = from
        while (top > 0) {
          const pc = stack[--top] as number
          if (seen[pc] === mark) continue
          seen[pc] = mark
          const o = op[pc]
          if (o === JMP) stack[top++] = a[pc] as number
          else if (o === SPLIT) {
            stack[top++] = m.b[pc] as number
            stack[top++] = a[pc] as number
          } else if (o === ASSERT) {
            if (holds(a[pc] as number, ctx)) stack[top++] = pc + 1
          } else {
            const bit = bitOf[pc] as number
            or(this.closure, out + (bit >> 5), 1 << (bit & 31))
          }
        }
      }
    }

    // which positions read which characters
    const classes = m.sticky.length
    this.asciiAccept = new Int32Array(128 * WORDS)
    this.classMask = new Int32Array(classes * WORDS)
    this.literalMask = new Map()
    pcs.forEach((pc, bit) => {
      const word = bit >> 5
      const one = 1 << (bit & 31)
      if (op[pc] === CHAR) {
        const c = a[pc] as number
        if (c < 128) or(this.asciiAccept, c * WORDS + word, one)
        else {
          let lit = this.literalMask.get(c)
          if (lit === undefined) this.literalMask.set(c, lit = new Int32Array(WORDS))
          or(lit, word, one)
        }
      } else if (op[pc] === SET) {
        const id = a[pc] as number
        or(this.classMask, id * WORDS + word, one)
        for (let c = 0; c < 128; c++) {
          if (m.ascii[id * 128 + c] === 1) or(this.asciiAccept, c * WORDS + word, one)
        }
      }
    })
  }

  /**
   * Whether the pattern matches in `text`, reading from offset `from`, where the instructions
   * `seeds` are live with their assertions still to be decided (none but the start when null).
   */
  run (text: string, from: number, seeds: Int32Array | null): boolean {
    if (this.follow.length === 0) {
      // inside the text only \b and \B tell positions apart: at most 4 contexts, each a table
      const mids = this.words ? 4 : 1
      this.follow = new Int32Array(mids * this.chunks * 256 * WORDS)
      this.filled = new Uint8Array(mids * this.chunks * 256)
    }
    const { closure, asciiAccept, n, chunks, anchored, matchWord, matchBit, contextMask, words, follow, filled } = this
    const length = text.length
    let steps = 0
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
        if (c >= 0xd800 && c <= 0xdbff && at + 1 < length) {
          const low = text.charCodeAt(at + 1)
          if (low >= 0xdc00 && low <= 0xdfff) {
            c = ((c - 0xd800) << 10) + (low - 0xdc00) + 0x10000
            width = 2
          }
        }
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
    }
  }

  private done (steps: number, matched: boolean): boolean {
    this.steps = steps
    return matched
  }

  /** The context at offset `at`, as far as the pattern's assertions read it. */
  private context (text: string, at: number): number {
    const length = text.length
    return ((at === 0 ? AT_START : 0) | (at === length ? AT_END : 0) |
      (at > 0 && isWordUnit(text.charCodeAt(at - 1)) ? PREV_WORD : 0) |
      (at < length && isWordUnit(text.charCodeAt(at)) ? NEXT_WORD : 0)) & this.contextMask
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

function or (words: Int32Array, i: number, bits: number): void {
  words[i] = (words[i] as number) | bits
}

function holds (kind: number, ctx: number): boolean {
  if (kind === START) return (ctx & AT_START) !== 0
  if (kind === END) return (ctx & AT_END) !== 0
  const boundary = ((ctx & PREV_WORD) !== 0) !== ((ctx & NEXT_WORD) !== 0)
  return boundary === (kind === WORD)
}
