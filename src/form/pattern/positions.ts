// The positions of the bit-parallel simulation (bits.ts), laid out once from the automaton: a
// position is a consuming instruction, a counter or MATCH; a set of them is three 32-bit words; and
// for each context an assertion can tell apart, each instruction's closure is such a set.
import { AT_END, AT_START, ASSERT, CHAR, CONTEXTS, COUNT, MATCH, NEXT_WORD, PREV_WORD, SET, START, END, epsilon, type Automaton } from './code.ts'

/** Words of a set: room for 96 positions, the consuming instructions (a counter among them) and MATCH. */
export const WORDS = 3
/** Most positions a set holds. */
export const BIT_POSITIONS = 32 * WORDS
/** Positions that one 32-bit word holds, read by the simulation's fastest loop. */
export const NARROW_POSITIONS = 32

const isPosition = (o: number): boolean => o === CHAR || o === SET || o === MATCH || o === COUNT

/** The positions an automaton's instructions make: its consuming instructions, its counters and MATCH. */
export function positions (op: ArrayLike<number>): number {
  let count = 0
  for (let pc = 0; pc < op.length; pc++) if (isPosition(op[pc] as number)) count++
  return count
}

/** The sets the simulation reads, each of WORDS words at an index times WORDS. */
export interface Layout {
  /** Each position's instruction, positions in the order of their instructions. */
  readonly pcOf: Int32Array
  /** The position of MATCH. */
  readonly match: number
  /** Which context bits some assertion reads: the others are left 0, so fewer contexts are built. */
  readonly contextMask: number
  /** closure[(ctx * states + pc) * WORDS + w]: the positions reachable from pc without reading, in ctx. */
  readonly closure: Int32Array
  /** The positions that accept each ASCII character, and those that accept each class or literal. */
  readonly asciiAccept: Int32Array
  readonly classMask: Int32Array
  readonly literalMask: Map<number, Int32Array>
  /** The counters' positions (a counter's bit in the accepting sets says it reads the character). */
  readonly counted: Int32Array
  /** Each position's counter id (-1 for another position), and each counter's instruction. */
  readonly counterAt: Int32Array
  readonly countPc: Int32Array
}

export function layout (m: Automaton): Layout {
  const { op, a, states: n } = m
  const bitOf = new Int32Array(n).fill(-1)
  const pcs: number[] = []
  let mask = 0
  const counted = new Int32Array(WORDS)
  const counterAt = new Int32Array(BIT_POSITIONS).fill(-1)
  const countPc = new Int32Array(m.countMin.length)
  for (let pc = 0; pc < n; pc++) {
    const o = op[pc] as number
    if (o === COUNT) {
      const bit = pcs.length
      const id = m.b[pc] as number
      or(counted, bit >> 5, 1 << (bit & 31))
      counterAt[bit] = id
      countPc[id] = pc
    }
    if (isPosition(o)) {
      bitOf[pc] = pcs.length
      pcs.push(pc)
    } else if (o === ASSERT) {
      const kind = a[pc] as number
      mask |= kind === START ? AT_START : kind === END ? AT_END : PREV_WORD | NEXT_WORD
    }
  }
  const pcOf = Int32Array.from(pcs)
  return { pcOf, match: bitOf[op.indexOf(MATCH)] as number, contextMask: mask, closure: closures(m, bitOf, mask), ...accepting(m, pcOf), counted, counterAt, countPc }
}

/** The closures, for every context an assertion can tell apart: at most 16 × states² steps, once, when the pattern is compiled. */
function closures (m: Automaton, bitOf: Int32Array, mask: number): Int32Array {
  const { op, a, b, states: n } = m
  const closure = new Int32Array(CONTEXTS * n * WORDS)
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
        const bit = bitOf[pc] as number
        if (bit < 0) {
          top = epsilon(op, a, b, pc, ctx, stack, top)
          continue
        }
        or(closure, out + (bit >> 5), 1 << (bit & 31))
        // a counter that may read nothing is left as soon as it is entered, too
        if (op[pc] === COUNT && m.countMin[b[pc] as number] === 0) stack[top++] = pc + 1
      }
    }
  }
  return closure
}

/** Which positions read which characters. */
function accepting (m: Automaton, pcOf: Int32Array): Pick<Layout, 'asciiAccept' | 'classMask' | 'literalMask'> {
  const { op, a } = m
  const asciiAccept = new Int32Array(128 * WORDS)
  const classMask = new Int32Array(m.sticky.length * WORDS)
  const literalMask = new Map<number, Int32Array>()
  pcOf.forEach((pc, bit) => {
    const word = bit >> 5
    const one = 1 << (bit & 31)
    if (op[pc] === CHAR) {
      const c = a[pc] as number
      if (c < 128) or(asciiAccept, c * WORDS + word, one)
      else {
        let lit = literalMask.get(c)
        if (lit === undefined) literalMask.set(c, lit = new Int32Array(WORDS))
        or(lit, word, one)
      }
    } else if (op[pc] === SET || op[pc] === COUNT) {
      const id = a[pc] as number
      or(classMask, id * WORDS + word, one)
      for (let c = 0; c < 128; c++) {
        if (m.ascii[id * 128 + c] === 1) or(asciiAccept, c * WORDS + word, one)
      }
    }
  })
  return { asciiAccept, classMask, literalMask }
}

function or (words: Int32Array, i: number, bits: number): void {
  words[i] = (words[i] as number) | bits
}
