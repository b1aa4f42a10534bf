// The compiler of a pattern: reads it as `new RegExp(source, 'u')` would, refuses what needs more
// than a finite automaton, and builds the automaton the matchers run (Thompson's construction, with
// a counter for a counted repetition of one character where copies would be too many).
import { RegExpParser, RegExpSyntaxError, type AST } from '@eslint-community/regexpp'
import { ASSERT, CHAR, COUNT, END, JMP, MATCH, NOT_WORD, SET, SPLIT, START, WORD, type Automaton } from './code.ts'

/** The 128 ASCII characters in order, each at its own code as offset. */
const ASCII = String.fromCharCode(...Array.from({ length: 128 }, (_, c) => c))

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

/** The instructions as the compiler builds them, and the source of each class. */
export interface Code {
  op: number[]
  a: number[]
  b: number[]
  classes: string[]
  countMin: number[]
  countMax: number[]
}

/** A pattern read and checked, and its automaton of at most `limit` instructions; or PatternError. */
export function compile (source: string, limit: number, counting: boolean): { ast: AST.Pattern, code: Code } {
  try {
    const ast = parse(source)
    refuseNonRegular(source, ast)
    agreeWithNode(source)
    return { ast, code: build(source, ast, limit, counting) }
  } catch (error) {
    // the parser, the checks and the builder each descend once per nested group
    if (error instanceof RangeError) throw new PatternError(source, 0, 'the pattern nests groups too deeply to be compiled')
    throw error
  }
}

/** The pattern compiled with every repetition of one character or class counted; null when that needs more than `limit`. */
export function recount (source: string, ast: AST.Pattern, limit: number): Code | null {
  try {
    return new Builder(source, limit, true).build(ast)
  } catch {
    // counting can cost more instructions than copying (`a{2,}`): then the copies stay
    return null
  }
}

/** The instructions as typed arrays, with each class's membership as V8 decides it. */
export function automaton (code: Code): Automaton {
  const op = Uint8Array.from(code.op)
  const a = Int32Array.from(code.a)
  const b = Int32Array.from(code.b)
  const ascii = new Uint8Array(code.classes.length * 128)
  // one scan of the 128 ASCII characters per class, not 128 tests: a class reads one code
  // point, so its matches in that text are exactly its members
  code.classes.forEach((raw, id) => {
    for (const match of ASCII.matchAll(new RegExp(raw, 'gu'))) ascii[id * 128 + (match.index as number)] = 1
  })
  return {
    states: op.length,
    op,
    a,
    b,
    anchored: startsAnchored(op, a, b),
    ascii,
    countMin: Float64Array.from(code.countMin),
    countMax: Float64Array.from(code.countMax),
    sticky: code.classes.map(raw => new RegExp(raw, 'uy'))
  }
}

/** Whether every path from instruction 0 to one that reads or matches passes `^`. */
function startsAnchored (op: Uint8Array, a: Int32Array, b: Int32Array): boolean {
  const seen = new Uint8Array(op.length)
  const todo = [0]
  while (todo.length > 0) {
    const pc = todo.pop() as number
    if (seen[pc] === 1) continue
    seen[pc] = 1
    const o = op[pc]
    if (o === JMP) todo.push(a[pc] as number)
    else if (o === SPLIT) todo.push(a[pc] as number, b[pc] as number)
    else if (o === ASSERT) {
      if (a[pc] !== START) todo.push(pc + 1)
    } else return false
  }
  return true
}

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

/** Thrown by a Builder that copies every repetition, when the copies exceed its limit. */
class Copied extends Error {}

/**
 * The automaton with every repetition copied, which every matcher runs, the lazy DFA fastest; when
 * that exceeds the limit, with each counted repetition of one character or class as a counter,
 * which only the simulations run, at a cost per character that does not grow with the count.
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
