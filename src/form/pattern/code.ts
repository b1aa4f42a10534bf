// The compiled form of a pattern: the instructions src/form/pattern/compiler.ts builds and its three
// matchers read (the simulation of all paths in pike.ts, the lazy DFA in dfa.ts, the bit-parallel
// simulation in bits.ts), and how an instruction moves on without reading.

// Instructions. A consuming instruction reads one code point; the others move without reading.
export const CHAR = 0 // a: the code point
export const SET = 1 // a: index of the class
export const SPLIT = 2 // continue at a and at b
export const JMP = 3 // continue at a
export const ASSERT = 4 // a: START, END, WORD or NOT_WORD; continue at pc + 1 if it holds
export const MATCH = 5
// a: index of the class, b: index of the counter. Reads the class min to max times in a row, as
// the unrolled copies would, with a queue of the code point offsets threads entered it at; continue
// at pc + 1. Only the simulations run it (a DFA state cannot hold the queue).
export const COUNT = 6

export const START = 0
export const END = 1
export const WORD = 2
export const NOT_WORD = 3

// What an assertion knows of a position: the bits of a context.
export const AT_START = 1
export const AT_END = 2
export const PREV_WORD = 4
export const NEXT_WORD = 8
/** Contexts an assertion can tell apart. */
export const CONTEXTS = 16

/** Code points outside ASCII whose answer a matcher remembers (their class, or the positions that read them). */
export const CODE_POINT_CACHE = 4096

/** An automaton ready to run: instructions, and class membership as V8 decides it. */
export interface Automaton {
  readonly states: number
  readonly op: Uint8Array
  readonly a: Int32Array
  readonly b: Int32Array
  /** Every path to a consuming instruction or MATCH passes `^`: nothing can start after offset 0. */
  readonly anchored: boolean
  /** Membership of the ASCII code point c in class id: ascii[id * 128 + c] === 1. */
  readonly ascii: Uint8Array
  /** Least and most reads of each counter of COUNT instructions. */
  readonly countMin: Float64Array
  readonly countMax: Float64Array
  /** Class id alone as a sticky RegExp with the u flag, for any other code point. */
  readonly sticky: readonly RegExp[]
}

// ECMA-262 IsWordChar: with u and without i, \w is [A-Za-z0-9_], so code units suffice
export const isWordUnit = (c: number): boolean =>
  (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || (c >= 0x30 && c <= 0x39) || c === 0x5f

/** The context at offset `at` of the text. */
export function contextAt (text: string, at: number): number {
  const length = text.length
  return (at === 0 ? AT_START : 0) | (at === length ? AT_END : 0) |
    (at > 0 && isWordUnit(text.charCodeAt(at - 1)) ? PREV_WORD : 0) |
    (at < length && isWordUnit(text.charCodeAt(at)) ? NEXT_WORD : 0)
}

/** Whether the assertion of this kind holds in the context. */
export function holds (kind: number, ctx: number): boolean {
  if (kind === START) return (ctx & AT_START) !== 0
  if (kind === END) return (ctx & AT_END) !== 0
  const boundary = ((ctx & PREV_WORD) !== 0) !== ((ctx & NEXT_WORD) !== 0)
  return boundary === (kind === WORD)
}

/**
 * One step of a closure: pushes onto `stack` at `top` where the instruction at pc goes on without
 * reading (JMP's target, SPLIT's two with a on top, past an ASSERT that holds in `ctx`); the new
 * top. A consuming instruction, a counter or MATCH pushes nothing.
 */
export function epsilon (op: Uint8Array, a: Int32Array, b: Int32Array, pc: number, ctx: number, stack: Int32Array, top: number): number {
  switch (op[pc]) {
    case JMP:
      stack[top++] = a[pc] as number
      break
    case SPLIT:
      stack[top++] = b[pc] as number
      stack[top++] = a[pc] as number
      break
    case ASSERT:
      if (holds(a[pc] as number, ctx)) stack[top++] = pc + 1
  }
  return top
}
