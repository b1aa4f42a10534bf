// A matcher for the form's `pattern` and `patternProperties` that runs in time linear in the text.
// The form's author writes the pattern but the act's sender writes the text, so a backtracking
// engine would let one body stall the host (draft §5.2: every act is verified against the form).
// Semantics are ECMA-262's with the `u` flag; what needs backtracking is refused: docs/patterns.md.
// Here the compiled pattern chooses its matcher: the lazy DFA first, then a simulation.
import type { AST } from '@eslint-community/regexpp'
import type { RegExpEngine } from 'ajv/dist/types/index.js'
import { BitSimulation } from './bits.ts'
import { automaton, compile, recount, PatternError, type Code } from './compiler.ts'
import { BAIL, DFA_CACHE_CELLS, LazyDfa } from './dfa.ts'
import { PikeVm } from './pike.ts'
import { NARROW_POSITIONS, positions } from './positions.ts'

export { PatternError } from './compiler.ts'

/**
 * Most instructions a compiled pattern may have. Every character of the text may visit each of
 * them, so this bounds the work per character (STEPS_PER_CHAR). A counted repetition of one
 * character or class, `[^<>]{1,4000}`, is one instruction with a counter; any other is copied once
 * per count, so `(ab){40}` needs 81.
 */
export const MAX_STATES = 80

/** The bound on the work of one `test`, per UTF-16 code unit of the text (plus one): 16 × (MAX_STATES + 1). */
export const STEPS_PER_CHAR = 16 * (MAX_STATES + 1)

/** Most tests in a row that skip a DFA which gave up (Program.run). */
const MAX_DFA_SKIP = 256

/** A compiled pattern: `test` answers whether it matches anywhere in a string, as `RegExp(source, 'u').test` does. */
export interface LinearPattern {
  readonly source: string
  readonly flags: 'u'
  /** Instructions of the automaton, at most MAX_STATES. */
  readonly states: number
  /** Work done by the last `test`: at most 16 × (states + 1) × (length + 1) (docs/patterns.md). */
  readonly steps: number
  /** Whether the bit-parallel simulation runs where the lazy DFA does not (false: the simulation of all paths). */
  readonly bitParallel: boolean
  /** The lazy DFA's cache over this pattern's life, for diagnostics; null when the simulation runs alone. */
  readonly dfa: DfaStatistics | null
  test (text: string): boolean
  /** `/source/u`: Ajv keys its cache of compiled patterns by this string. */
  toString (): string
}

export interface DfaStatistics {
  /** DFA states in the cache now. */
  readonly states: number
  /** Times the cache filled and was emptied. */
  readonly flushes: number
  /** Tests the simulation finished because the cache was flushed again too soon. */
  readonly bails: number
  /** Tests that, after a give-up, skipped the DFA and ran the pattern counted, its set one word wide (src/form/pattern/bits.ts). */
  readonly counted: number
}

export interface PatternOptions {
  /** Size of the lazy DFA's cache in 32-bit cells (default DFA_CACHE_CELLS); 0 runs the simulation alone. */
  dfaCells?: number
  /**
   * Most instructions (default MAX_STATES). A form's patterns always get the default: a larger
   * automaton costs more work per character of the text than the address's bound allows.
   */
  maxStates?: number
  /** Count every repetition of one character or class, even when the copies would fit (tests, comparisons). */
  counting?: boolean
  /**
   * Whether the bit-parallel simulation (src/form/pattern/bits.ts) runs where the lazy DFA does not
   * (default true); false leaves that to the simulation of all paths, as before it (tests, comparisons).
   */
  bits?: boolean
}

/** The work of every `test` of every compiled pattern, summed: for tests and benchmarks that bound a whole validation. */
export const patternWork = { steps: 0 }

/** Compiles `source` as `new RegExp(source, 'u')` would read it, or throws PatternError. */
export function compilePattern (source: string, options: PatternOptions = {}): LinearPattern {
  const limit = options.maxStates ?? MAX_STATES
  const { ast, code } = compile(source, limit, options.counting === true)
  const bits = options.bits ?? true
  // copies that fit keep the lazy DFA; where it gives up on them, the same pattern counted may
  // need a set of one word where the copies need three (src/form/pattern/bits.ts)
  const counted = bits && code.countMin.length === 0 && positions(code.op) > NARROW_POSITIONS ? ast : null
  return new Program(source, code, options.dfaCells ?? DFA_CACHE_CELLS, bits, limit, counted)
}

/** The engine for Ajv's `code.regExp` option; Ajv passes the flags `u` when `unicodeRegExp` is on. */
export const linearRegExp: RegExpEngine = Object.assign(
  (source: string, flags: string): LinearPattern => {
    if (flags !== 'u') {
      throw new PatternError(source, 0, `the flags "${flags}" are not supported: this engine matches with the u flag only (Ajv's unicodeRegExp option)`)
    }
    return compilePattern(source)
  },
  { code: 'linearRegExp /* fastify-gpt src/form/pattern/pattern.ts */' }
)

/**
 * A compiled pattern and its matchers: the lazy DFA answers first; the bit-parallel simulation,
 * or else the simulation of all paths, takes over where its cache thrashes or where it has none.
 */
class Program implements LinearPattern {
  readonly flags = 'u'
  readonly states: number
  steps = 0
  private readonly lazy: LazyDfa | null
  private readonly bits: BitSimulation | null
  private readonly pike: PikeVm | null
  // after the DFA gave up, the tests that go straight to the bit-parallel simulation, and how
  // many the next give-up skips: a pattern whose cache thrashes on the texts it gets pays the
  // cache's filling once in a while, not on every test
  private skipDfa = 0
  // the same pattern counted, built the first time a test skips the DFA, for those tests: null
  // when it is not narrower, or there is nothing to count
  private narrow: Program | null | undefined
  private countedTests = 0
  private backoff = 1

  constructor (readonly source: string, code: Code, dfaCells: number, bits: boolean, private readonly limit = 0, private readonly counted: AST.Pattern | null = null) {
    const m = automaton(code)
    this.states = m.states
    // a DFA state is a set of instructions: it cannot hold a counter's queue
    this.lazy = dfaCells > 0 && m.countMin.length === 0 ? LazyDfa.for(m, dfaCells) : null
    // without room for the positions in a set, the simulation of all paths runs in its place
    this.bits = bits ? BitSimulation.for(m) : null
    this.pike = this.bits === null ? new PikeVm(m) : null
  }

  get bitParallel (): boolean {
    return this.bits !== null
  }

  get dfa (): DfaStatistics | null {
    const { lazy } = this
    return lazy === null ? null : { states: lazy.cached, flushes: lazy.flushes, bails: lazy.bails, counted: this.countedTests }
  }

  toString (): string {
    return `/${this.source}/u`
  }

  test (text: string): boolean {
    const found = this.run(text)
    patternWork.steps += this.steps
    return found
  }

  private run (text: string): boolean {
    const { lazy, bits } = this
    this.steps = 0
    let from = 0
    let seeds: Int32Array | null = null
    if (lazy !== null && bits !== null && this.skipDfa > 0) {
      this.skipDfa--
      const narrow = this.narrower()
      if (narrow !== null) {
        this.countedTests++
        const found = narrow.run(text)
        this.steps = narrow.steps
        return found
      }
    } else if (lazy !== null) {
      const found = lazy.run(text)
      this.steps = lazy.steps
      if (found !== BAIL) {
        this.backoff = 1
        return found === 1
      }
      from = lazy.bailAt
      seeds = lazy.bailSet()
      this.skipDfa = this.backoff
      this.backoff = Math.min(2 * this.backoff, MAX_DFA_SKIP)
    }
    if (bits !== null) {
      const found = bits.run(text, from, seeds)
      this.steps += bits.steps
      return found
    }
    const pike = this.pike as PikeVm
    const found = pike.run(text, from, seeds)
    this.steps += pike.steps
    return found
  }

  /** The pattern counted, when its bit-parallel set is one word where this one's is wider (built once). */
  private narrower (): Program | null {
    if (this.narrow === undefined) {
      const code = this.counted === null ? null : recount(this.source, this.counted, this.limit)
      this.narrow = code !== null && code.countMin.length > 0 && positions(code.op) <= NARROW_POSITIONS
        ? new Program(this.source, code, 0, true)
        : null
    }
    return this.narrow
  }
}
