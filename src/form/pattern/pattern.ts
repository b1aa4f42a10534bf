// A matcher for the form's `pattern` and `patternProperties` that runs in time linear in the text.
// The form's author writes the pattern but the act's sender writes the text, so a backtracking
// engine would let one body stall the host (draft §5.2: every act is verified against the form).
// Semantics are ECMA-262's with the `u` flag; what needs backtracking is refused: docs/patterns.md.
import { RegExpParser, RegExpSyntaxError, type AST } from '@eslint-community/regexpp'
import type { RegExpEngine } from 'ajv/dist/types/index.js'
import { ASSERT, CHAR, COUNT, END, JMP, MATCH, NOT_WORD, SET, SPLIT, START, WORD, isWordUnit, type Automaton } from './code.ts'
import { BitSimulation } from './bits.ts'
import { BAIL, DFA_CACHE_CELLS, LazyDfa } from './dfa.ts'

/**
 * Most instructions a compiled pattern may have. Every character of the text may visit each of
 * them, so this bounds the work per character (STEPS_PER_CHAR). A counted repetition of one
 * character or class, `[^<>]{1,4000}`, is one instruction with a counter; any other is copied once
 * per count, so `(ab){40}` needs 81.
 */
export const MAX_STATES = 80

/** The bound on the work of one `test`, per UTF-16 code unit of the text (plus one): 16 × (MAX_STATES + 1). */
export const STEPS_PER_CHAR = 16 * (MAX_STATES + 1)

/** The 128 ASCII characters in order, each at its own code as offset. */
const ASCII = String.fromCharCode(...Array.from({ length: 128 }, (_, c) => c))

/** Most tests in a row that skip a DFA which gave up (src/form/pattern/pattern.ts Program.run). */
const MAX_DFA_SKIP = 256

/** A pattern this engine does not compile: invalid under `u`, not matchable in linear time, or too large. */
export class PatternError extends Error {
  override name = 'PatternError'
  /** The pattern as written in the form. */
  readonly pattern: string
  /** Offset in `pattern` of the construct at fault. */
  readonly index: number

  constructor (pattern: string, index: number, message: string) {
    super(message)
    this.pattern = pattern
    this.index = index
  }
}

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
  let code: Code
  let ast: AST.Pattern
  try {
    ast = parse(source)
    refuseNonRegular(source, ast)
    agreeWithNode(source)
    code = build(source, ast, options.maxStates ?? MAX_STATES, options.counting === true)
  } catch (error) {
    // the parser, the checks and the builder each descend once per nested group
    if (error instanceof RangeError) throw new PatternError(source, 0, 'the pattern nests groups too deeply to be compiled')
    throw error
  }
  const bits = options.bits ?? true
  // copies that fit keep the lazy DFA; where it gives up on them, the same pattern counted may
  // need a set of one word where the copies need three (src/form/pattern/bits.ts)
  const counted = bits && code.countMin.length === 0 && positions(code) > NARROW_POSITIONS
    ? (): Code | null => {
        try {
          return new Builder(source, options.maxStates ?? MAX_STATES, true).build(ast)
        } catch {
          // counting can cost more instructions than copying (`a{2,}`): then the copies stay
          return null
        }
      }
    : null
  return new Program(source, code, options.dfaCells ?? DFA_CACHE_CELLS, bits, counted)
}

/** Positions of the bit-parallel simulation that one 32-bit word holds, read by its fastest loop. */
const NARROW_POSITIONS = 32

/** The positions of the bit-parallel simulation: the consuming instructions, the counters and MATCH. */
function positions (code: Code): number {
  return code.op.reduce((count, op) => count + (op === CHAR || op === SET || op === COUNT || op === MATCH ? 1 : 0), 0)
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
 * How to write, under the u flag (which JSON Schema validators use), what older regular
 * expressions allow without it: the two forms authors meet most.
 */
function unicodeHint (source: string, index: number): string {
  // `[\w-.]`: without u, `-` beside a class escape is a literal; with u, the range is an error.
  const range = /\\[dDsSwW]-|-\\[dDsSwW]/.exec(source.slice(Math.max(0, index - 4), index + 4))
  if (range !== null) return '. Under the u flag a range cannot start or end with a class escape such as \\w: put the "-" first or last in the class, or escape it as \\-'
  // `\-`, `\_`, `\@` outside a class: without u, an escape of any character is that character.
  const escaped = /^\\([^$^\\.*+?()[\]{}|/dDsSwWbBtrnvf0-9cxukpP])/.exec(source.slice(source[index] === '\\' ? index : index - 1))
  if (escaped !== null) return `. Under the u flag only syntax characters may be escaped outside a class: write "${escaped[1] as string}" for "\\${escaped[1] as string}"`
  return ''
}

function parse (source: string): AST.Pattern {
  try {
    return new RegExpParser({ ecmaVersion: 2025 }).parsePattern(source, 0, source.length, { unicode: true, unicodeSets: false })
  } catch (error) {
    if (error instanceof RegExpSyntaxError) {
      const prefix = `Invalid regular expression: /${source}/u: `
      const what = error.message.startsWith(prefix) ? error.message.slice(prefix.length) : error.message
      throw new PatternError(source, error.index, `the pattern is not a valid ECMA-262 regular expression with the u flag: ${what} (at offset ${error.index})${unicodeHint(source, error.index)}`)
    }
    throw error
  }
}

function agreeWithNode (source: string): void {
  try {
    // what this Node's RegExp refuses is refused too, so that the form's `regex` format and the
    // pattern agree (a feature newer than this Node, such as duplicate group names)
    RegExp(source, 'u')
  } catch (error) {
    throw new PatternError(source, 0, `the pattern is not a regular expression this Node.js accepts with the u flag: ${(error as Error).message}`)
  }
}

/** Throws on the first construct that needs more than a finite automaton. */
function refuseNonRegular (source: string, pattern: AST.Pattern): void {
  const refuse = (node: AST.Node, what: string, why: string): never => {
    const raw = node.raw.length > 40 ? `${node.raw.slice(0, 37)}...` : node.raw
    throw new PatternError(source, node.start, `${what} "${raw}" at offset ${node.start} ${why}`)
  }
  const walk = (node: AST.Node): void => {
    switch (node.type) {
      case 'Backreference':
        return refuse(node, 'the backreference', 'cannot be matched in linear time: it must repeat the text a group matched. ' +
          "Repeat the group's pattern instead if the text need not be identical")
      case 'Assertion':
        if (node.kind === 'lookahead' || node.kind === 'lookbehind') {
          const keyword = node.negate ? '"not": { "pattern": ... }' : '"allOf": [{ "pattern": ... }]'
          return refuse(node, `the ${node.negate ? 'negative ' : ''}${node.kind}`, 'cannot be matched in linear time. ' +
            `Write the condition as its own pattern in the form, e.g. ${keyword}`)
        }
        return
      case 'Group':
        if (node.modifiers !== null) {
          refuse(node, 'the modifier group', 'is not supported: write the cases out, e.g. [aA] for (?i:a)')
        }
        return node.alternatives.forEach(walk)
      case 'Pattern':
      case 'CapturingGroup':
        return node.alternatives.forEach(walk)
      case 'Alternative':
        return node.elements.forEach(walk)
      case 'Quantifier':
        return walk(node.element)
    }
  }
  walk(pattern)
}

interface Code {
  op: number[]
  a: number[]
  b: number[]
  classes: string[]
  countMin: number[]
  countMax: number[]
}

/** Thrown by a Builder that copies every repetition, when the copies exceed its limit. */
class Copied extends Error {}

/**
 * The automaton with every repetition copied, which both matchers run, the lazy DFA fast; when
 * that exceeds the limit, with each counted repetition of one character or class as a counter,
 * which only the simulation runs, at a cost per character that does not grow with the count.
 */
function build (source: string, ast: AST.Pattern, limit: number, counting: boolean): Code {
  try {
    if (!counting) return new Builder(source, limit, false).build(ast)
  } catch (error) {
    if (!(error instanceof Copied)) throw error
  }
  return new Builder(source, limit, true).build(ast)
}

/** Whether the element always reads exactly one code point: a character, a class, or a group of alternatives that each are one. */
function oneCodePoint (node: AST.Element): boolean {
  switch (node.type) {
    case 'Character':
    case 'CharacterClass':
    case 'CharacterSet':
      return true
    case 'Group':
    case 'CapturingGroup':
      return (node.type === 'CapturingGroup' || node.modifiers === null) &&
        node.alternatives.every(alternative => alternative.elements.length === 1 && oneCodePoint(alternative.elements[0] as AST.Element))
  }
  return false
}

/** Thompson's construction, one instruction at a time, refusing past the limit. */
class Builder implements Code {
  op: number[] = []
  a: number[] = []
  b: number[] = []
  classes: string[] = []
  countMin: number[] = []
  countMax: number[] = []
  private readonly classIndex = new Map<string, number>()
  // the quantifiers being expanded: the outermost counted one is what made the automaton large
  private readonly open: AST.Quantifier[] = []

  constructor (private readonly source: string, private readonly limit: number, private readonly counting: boolean) {}

  build (pattern: AST.Pattern): Code {
    this.alternatives(pattern.alternatives)
    this.emit(MATCH)
    return this
  }

  private get pc (): number {
    return this.op.length
  }

  private emit (op: number, a = 0, b = 0): number {
    if (this.op.length === this.limit) {
      if (!this.counting) throw new Copied()
      this.tooLarge()
    }
    this.op.push(op)
    this.a.push(a)
    this.b.push(b)
    return this.op.length - 1
  }

  // The work per character of the text grows with the states (docs/patterns.md): say so, and how to
  // write the same with fewer.
  private tooLarge (): never {
    const why = `compiles to more than ${this.limit} states, and every character of the text may visit each of them ` +
      `(the work per character is bounded by ${16 * (this.limit + 1)} steps)`
    const counted = this.open.find(q => q.min > 1 || (q.max > 1 && q.max !== Infinity))
    if (counted === undefined) {
      throw new PatternError(this.source, 0, `the pattern is too long: it ${why}. Shorten it, or split it into several patterns ` +
        '(for a list of words, "enum" does the same without a pattern, or "properties" for member names)')
    }
    const raw = counted.raw.length > 40 ? `...${counted.raw.slice(-37)}` : counted.raw
    throw new PatternError(this.source, counted.start, `the pattern ${why}: the repetition "${raw}" at offset ${counted.start} ` +
      'copies what it repeats once per count. Use smaller counts, or * or + where any number will do ' +
      '(a repetition of one character or class, such as [a-z]{1,4000}, is counted, not copied)')
  }

  private alternatives (alternatives: AST.Alternative[]): void {
    const exits: number[] = []
    alternatives.forEach((alternative, i) => {
      const last = i === alternatives.length - 1
      const split = last ? -1 : this.emit(SPLIT, this.pc + 1)
      this.sequence(alternative.elements)
      if (!last) {
        exits.push(this.emit(JMP))
        this.b[split] = this.pc
      }
    })
    for (const exit of exits) this.a[exit] = this.pc
  }

  // Counting, a run of the same one-code-point element written out (`[ab][ab][ab]`) is its count
  // (`[ab]{3}`): one counter, not one instruction per copy.
  private sequence (elements: AST.Element[]): void {
    for (let i = 0; i < elements.length;) {
      const element = elements[i] as AST.Element
      let run = 1
      if (this.counting && oneCodePoint(element)) {
        while (i + run < elements.length && (elements[i + run] as AST.Element).raw === element.raw && oneCodePoint(elements[i + run] as AST.Element)) run++
      }
      if (run > 1) this.counter({ min: run, max: run, element })
      else this.element(element)
      i += run
    }
  }

  private element (node: AST.Element): void {
    switch (node.type) {
      case 'Character':
        this.emit(CHAR, node.value)
        return
      case 'CharacterClass':
      case 'CharacterSet':
        this.emit(SET, this.classOf(node.raw))
        return
      case 'Group':
      case 'CapturingGroup':
        this.alternatives(node.alternatives)
        return
      case 'Quantifier':
        if (this.counting && (node.min > 1 || (node.max > 1 && node.max !== Infinity)) && oneCodePoint(node.element)) {
          this.counter(node)
          return
        }
        this.open.push(node)
        this.quantifier(node)
        this.open.pop()
        return
      case 'Assertion':
        if (node.kind === 'start' || node.kind === 'end') this.emit(ASSERT, node.kind === 'start' ? START : END)
        else if (node.kind === 'word') this.emit(ASSERT, node.negate ? NOT_WORD : WORD)
        return
    }
    /* c8 ignore next: refuseNonRegular has refused every other node type before compiling, so no pattern reaches this */
    throw new Error(`unreachable: ${node.type} passed refuseNonRegular`)
  }

  // Greedy and lazy repeat alike: only whether some path matches is asked, not which. ECMA-262
  // ends a repetition whose iteration matched empty; such a path can skip that iteration, so the
  // set of matched texts is the same.
  private quantifier ({ min, max, element }: AST.Quantifier): void {
    if (max === Infinity) {
      if (min === 0) {
        const loop = this.emit(SPLIT, this.pc + 1)
        this.element(element)
        this.emit(JMP, loop)
        this.b[loop] = this.pc
        return
      }
      for (let i = 1; i < min; i++) this.element(element)
      const body = this.pc
      this.element(element)
      this.emit(SPLIT, body, this.pc + 1)
      return
    }
    for (let i = 0; i < min; i++) this.element(element)
    const skips: number[] = []
    for (let i = min; i < max; i++) {
      skips.push(this.emit(SPLIT, this.pc + 1))
      this.element(element)
    }
    for (const skip of skips) this.b[skip] = this.pc
  }

  // `C{n,m}` as one COUNT of the class C; `C{n,}` as `C{n}C*`. The class is the element's own
  // source, so V8 decides its membership as for any class (a group such as `(a|b)` included).
  private counter ({ min, max, element }: { min: number, max: number, element: AST.Element }): void {
    const cls = this.classOf(element.raw)
    this.emit(COUNT, cls, this.countMin.length)
    this.countMin.push(min)
    this.countMax.push(max === Infinity ? min : max)
    if (max === Infinity) {
      const loop = this.emit(SPLIT, this.pc + 1)
      this.emit(SET, cls)
      this.emit(JMP, loop)
      this.b[loop] = this.pc
    }
  }

  private classOf (raw: string): number {
    let index = this.classIndex.get(raw)
    if (index === undefined) {
      index = this.classes.length
      this.classes.push(raw)
      this.classIndex.set(raw, index)
    }
    return index
  }
}

/**
 * The automaton and the simulation of all its paths at once (a Pike VM without captures). Each
 * instruction enters the set of live states at most once per position of the text: hence the bound.
 * The lazy DFA answers first; the simulation takes over where its cache thrashes.
 */
class Program implements LinearPattern, Automaton {
  readonly flags = 'u'
  readonly states: number
  steps = 0
  readonly op: Uint8Array
  readonly a: Int32Array
  readonly b: Int32Array
  readonly anchored: boolean
  // class membership as V8 decides it: a table for ASCII, a sticky RegExp at the offset otherwise
  readonly ascii: Uint8Array
  readonly sticky: RegExp[]
  readonly countMin: Float64Array
  readonly countMax: Float64Array
  private readonly lazy: LazyDfa | null
  private readonly bits: BitSimulation | null
  // after the DFA gave up, the tests that go straight to the bit-parallel simulation, and how
  // many the next give-up skips: a pattern whose cache thrashes on the texts it gets pays the
  // cache's filling once in a while, not on every test
  private skipDfa = 0
  // the same pattern counted, built the first time a test skips the DFA, for those tests: null
  // when it is not narrower, or there is nothing to count
  private narrow: Program | null | undefined
  private countedTests = 0
  private backoff = 1
  private readonly seenAt: Float64Array
  private readonly seen: Uint8Array
  private tick = 0
  // scratch for one test: two sparse sets of states and the stack of the closure
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

  constructor (readonly source: string, code: Code, dfaCells: number, bits: boolean, private readonly counted: (() => Code | null) | null = null) {
    const n = code.op.length
    this.states = n
    this.op = Uint8Array.from(code.op)
    this.a = Int32Array.from(code.a)
    this.b = Int32Array.from(code.b)
    this.sticky = code.classes.map(raw => new RegExp(raw, 'uy'))
    this.ascii = new Uint8Array(code.classes.length * 128)
    // one scan of the 128 ASCII characters per class, not 128 tests: a class reads one code
    // point, so its matches in that text are exactly its members
    code.classes.forEach((raw, id) => {
      for (const match of ASCII.matchAll(new RegExp(raw, 'gu'))) this.ascii[id * 128 + (match.index as number)] = 1
    })
    this.seenAt = new Float64Array(code.classes.length).fill(-1)
    this.seen = new Uint8Array(code.classes.length)
    this.dense = [new Int32Array(n), new Int32Array(n)]
    this.sparse = [new Int32Array(n), new Int32Array(n)]
    this.stack = new Int32Array(2 * n + 1)
    this.countMin = Float64Array.from(code.countMin)
    this.countMax = Float64Array.from(code.countMax)
    const counters = code.countMin.length
    this.queue = Array.from({ length: counters }, () => new Int32Array(0))
    this.head = new Int32Array(counters)
    this.queued = new Int32Array(counters)
    this.alive = new Uint8Array(counters)
    this.anchored = this.startsAnchored()
    // a DFA state is a set of instructions: it cannot hold a counter's queue
    this.lazy = dfaCells > 0 && counters === 0 ? LazyDfa.for(this, dfaCells) : null
    // a set of positions cannot hold a counter's queue either: those run on the simulation of all paths
    this.bits = bits ? BitSimulation.for(this) : null
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
    if (bits === null) return this.simulate(text, from, seeds)
    const found = bits.run(text, from, seeds)
    this.steps += bits.steps
    return found
  }

  /** The pattern counted, when its bit-parallel set is one word where this one's is wider (built once). */
  private narrower (): Program | null {
    if (this.narrow === undefined) {
      const code = this.counted === null ? null : this.counted()
      this.narrow = code !== null && code.countMin.length > 0 && positions(code) <= NARROW_POSITIONS
        ? new Program(this.source, code, 0, true)
        : null
    }
    return this.narrow
  }

  /** The simulation from offset `from`, where the instructions `seeds` are live (all of them from 0 when null). */
  private simulate (text: string, from: number, seeds: Int32Array | null): boolean {
    const { op, a, b, ascii, alive, head, queue, countMin } = this
    const length = text.length
    let [now, next] = this.dense
    let [nowIndex, nextIndex] = this.sparse
    let size = 0
    let steps = 0
    let at = from
    // counters count code points; seeds come from the DFA, which runs only programs without them
    let index = 0
    const counters = this.queue.length
    if (counters > 0) this.resetCounters(length)
    this.entryAt = 0
    if (seeds !== null) {
      for (const pc of seeds) {
        size = this.close(now, nowIndex, size, pc, at, text)
        if (size < 0) return this.done(steps, true)
      }
    }
    for (;;) {
      if (at === 0 || !this.anchored) {
        size = this.close(now, nowIndex, size, 0, at, text)
        if (size < 0) return this.done(steps, true)
      }
      if (at >= length || (size === 0 && this.anchored)) return this.done(steps, false)
      // a surrogate pair is one code point (the `u` flag); a lone surrogate stands for itself
      const c = text.codePointAt(at) as number
      const width = c > 0xffff ? 2 : 1
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
        nextSize = this.close(next, nextIndex, nextSize, pc + 1, at + width, text)
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

  /** Adds to the set the states reachable from `start` at offset `at` without reading; -1 on MATCH. */
  private close (dense: Int32Array, sparse: Int32Array, size: number, start: number, at: number, text: string): number {
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
      switch (o) {
        case JMP:
          stack[top++] = a[pc] as number
          break
        case SPLIT:
          stack[top++] = b[pc] as number
          stack[top++] = a[pc] as number
          break
        case ASSERT:
          if (holds(a[pc] as number, text, at)) stack[top++] = pc + 1
          break
        case MATCH:
          this.steps += steps
          return -1
      }
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

  private startsAnchored (): boolean {
    const seen = new Uint8Array(this.states)
    const todo = [0]
    while (todo.length > 0) {
      const pc = todo.pop() as number
      if (seen[pc] === 1) continue
      seen[pc] = 1
      const o = this.op[pc]
      if (o === JMP) todo.push(this.a[pc] as number)
      else if (o === SPLIT) todo.push(this.a[pc] as number, this.b[pc] as number)
      else if (o === ASSERT) {
        if (this.a[pc] !== START) todo.push(pc + 1)
      } else return false
    }
    return true
  }
}

function holds (kind: number, text: string, at: number): boolean {
  if (kind === START) return at === 0
  if (kind === END) return at === text.length
  // ECMA-262 IsWordChar: with u and without i, \w is [A-Za-z0-9_], so code units suffice
  const before = at > 0 && isWordUnit(text.charCodeAt(at - 1))
  const after = at < text.length && isWordUnit(text.charCodeAt(at))
  return (before !== after) === (kind === WORD)
}
