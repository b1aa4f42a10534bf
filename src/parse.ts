// Strict JSON parsing of an act's body: draft-ferguson-gpt-00 §5.2 (2).
// Policy and algorithm: docs/parsing.md.
import { Buffer, isUtf8 } from 'node:buffer'

/** Containers (objects and arrays) that may be nested; `[[1]]` has depth 2. */
export const DEFAULT_MAX_DEPTH = 64

export interface ParseOptions {
  /** Deepest nesting of objects and arrays accepted; defaults to DEFAULT_MAX_DEPTH. */
  maxDepth?: number
}

export type ParseFailure =
  | 'empty' | 'bom' | 'utf8' | 'syntax' | 'depth' | 'duplicate' | 'proto' | 'surrogate' | 'number'

export class ParseError extends Error {
  readonly reason: ParseFailure

  constructor (reason: ParseFailure) {
    // a rejected body is an expected event, not a bug: skip the stack trace (draft §7.4)
    const limit = Error.stackTraceLimit
    Error.stackTraceLimit = 0
    super(`JSON body rejected: ${reason}`)
    Error.stackTraceLimit = limit
    this.name = 'ParseError'
    this.reason = reason
  }
}

const QUOTE = 0x22
const BACKSLASH = 0x5c
/** Digits in Number.MAX_SAFE_INTEGER. */
const SAFE_DIGITS = 16
const MAX_SAFE = String(Number.MAX_SAFE_INTEGER)

// String.prototype.isWellFormed is ES2024 (V8 11.3, Node 20); the project's lib is ES2023.
const isWellFormed = (String.prototype as unknown as { isWellFormed: (this: string) => boolean }).isWellFormed

/**
 * Parses a request body strictly, or throws ParseError.
 * Only programming errors (a non-Uint8Array, a bad maxDepth) throw a TypeError.
 */
export function parse (bytes: Uint8Array, options?: ParseOptions): unknown {
  if (!(bytes instanceof Uint8Array)) throw new TypeError('parse expects a Uint8Array')
  const maxDepth = options?.maxDepth ?? DEFAULT_MAX_DEPTH
  if (!(maxDepth >= 0) || (maxDepth !== Infinity && !Number.isInteger(maxDepth))) {
    throw new TypeError('maxDepth must be a non-negative integer or Infinity')
  }
  const size = bytes.length
  // draft §5.2 (2): no value at all is not a value, whatever a form admits
  if (size === 0) throw new ParseError('empty')
  // RFC 8259 §8.1: a BOM MUST NOT be added; a strict parser refuses it
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) throw new ParseError('bom')
  // RFC 8259 §8.1: UTF-8 only; never substitute U+FFFD for what the actor sent (draft §5.1)
  if (!isUtf8(bytes)) throw new ParseError('utf8')
  let text: string
  try {
    text = Buffer.from(bytes.buffer, bytes.byteOffset, size).toString('utf8')
  } catch {
    // longer than the engine's largest string: the body limit (draft §5.2 (1)) should stop this first
    throw new ParseError('syntax')
  }

  // One pass over the text outside strings, never recursing: depth first (draft §7.4),
  // and the members, counted by their colons, for duplicate detection below.
  const length = text.length
  let depth = 0
  let colons = 0
  let run = 0 // digits in the current integer part; negative after a '.'
  let numbers = false // a number that could be inexact: an exponent or 16+ integer digits
  let i = 0
  while (i < length) {
    let quote = text.indexOf('"', i)
    if (quote === -1) quote = length
    for (; i < quote; i++) {
      const c = text.charCodeAt(i)
      if (c <= 0x39 && c >= 0x30) {
        if (++run >= SAFE_DIGITS) numbers = true
        continue
      }
      if ((c | 0x20) === 0x65 && run !== 0) numbers = true // e or E after a digit
      run = c === 0x2e ? -length : 0
      if (c === 0x3a) {
        colons++
      } else if (c === 0x5b || c === 0x7b) {
        if (++depth > maxDepth) throw new ParseError('depth')
      } else if (c === 0x5d || c === 0x7d) {
        depth--
      }
    }
    i = quote < length ? skipString(text, quote) : length
  }

  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    throw new ParseError(isBlank(text) ? 'empty' : 'syntax')
  }
  if (typeof value !== 'object' || value === null) {
    if (numbers) checkNumbers(text)
    return value
  }

  // An escape can spell __proto__ or a lone surrogate; without one, neither can occur.
  const escapes = text.includes('\\u')
  const proto = escapes || text.includes('__proto__')
  if (colons > 0 || escapes) walk(value, colons, proto, escapes)
  if (numbers) checkNumbers(text)
  return value
}

/** Index just past the string whose opening quote is at `open`, or the text's length. */
function skipString (text: string, open: number): number {
  let j = open
  for (;;) {
    j = text.indexOf('"', j + 1)
    if (j === -1) return text.length
    // a quote is escaped iff an odd run of backslashes precedes it
    let b = j - 1
    while (text.charCodeAt(b) === BACKSLASH) b--
    if (((j - 1 - b) & 1) === 0) return j + 1
  }
}

function isBlank (text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) return false
  }
  return true
}

/**
 * Visits every container of a parsed value with an explicit stack.
 * Every member of the text has exactly one colon outside strings. A duplicate name merges two
 * members into one key, and drops the earlier value with everything inside it; both only lower
 * the count of keys. So the keys equal the colons iff no object had a duplicate (draft §5.2 (2)).
 */
function walk (root: object, colons: number, proto: boolean, strings: boolean): void {
  const stack: object[] = [root]
  let keys = 0
  let hasProto = false
  let illFormed = false
  while (stack.length > 0) {
    const container = stack.pop() as object
    if (Array.isArray(container)) {
      for (let i = 0; i < container.length; i++) {
        const v: unknown = container[i]
        if (typeof v === 'object') {
          if (v !== null) stack.push(v)
        } else if (strings && typeof v === 'string' && !isWellFormed.call(v)) {
          illFormed = true
        }
      }
    } else {
      const record = container as Record<string, unknown>
      const names = Object.keys(record)
      keys += names.length
      if (proto && Object.hasOwn(record, '__proto__')) hasProto = true
      for (let i = 0; i < names.length; i++) {
        const name = names[i] as string
        const v = record[name]
        if (typeof v === 'object') {
          if (v !== null) stack.push(v)
        } else if (strings && typeof v === 'string' && !isWellFormed.call(v)) {
          illFormed = true
        }
        if (strings && !isWellFormed.call(name)) illFormed = true
      }
    }
  }
  if (keys !== colons) throw new ParseError('duplicate')
  // draft §7: a member named __proto__ poisons whoever spreads or merges the body
  if (hasProto) throw new ParseError('proto')
  // RFC 7493 §2.1: a lone surrogate cannot be re-encoded as the UTF-8 the actor could have sent
  if (illFormed) throw new ParseError('surrogate')
}

/**
 * Checks every number token exactly (the text is valid JSON here): a non-zero literal that
 * becomes 0, or a magnitude past 2^53 - 1, would reach the application as another value.
 */
function checkNumbers (text: string): void {
  const length = text.length
  let i = 0
  while (i < length) {
    let quote = text.indexOf('"', i)
    if (quote === -1) quote = length
    while (i < quote) {
      const c = text.charCodeAt(i)
      if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
        let end = i + 1
        while (end < quote && isNumberChar(text.charCodeAt(end))) end++
        if (!exact(text.slice(i, end))) throw new ParseError('number')
        i = end
      } else {
        i++
      }
    }
    i = quote < length ? skipString(text, quote) : length
  }
}

function isNumberChar (c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || c === 0x2e || c === 0x65 || c === 0x45 || c === 0x2b || c === 0x2d
}

/** Whether a valid JSON number token keeps its value as a safe double. */
function exact (token: string): boolean {
  const e = token.search(/[eE]/)
  const mantissa = e === -1 ? token : token.slice(0, e)
  const exponent = e === -1 ? 0 : Number(token.slice(e + 1))
  const unsigned = mantissa.charCodeAt(0) === 0x2d ? mantissa.slice(1) : mantissa
  const point = unsigned.indexOf('.')
  const integer = point === -1 ? unsigned : unsigned.slice(0, point)
  const digits = point === -1 ? unsigned : integer + unsigned.slice(point + 1)
  let first = 0
  while (first < digits.length && digits.charCodeAt(first) === 0x30) first++
  let last = digits.length
  while (last > first && digits.charCodeAt(last - 1) === 0x30) last--
  if (first === last) return true // zero, however written
  // the value is 0.<significant> x 10^scale
  const significant = digits.slice(first, last)
  const scale = integer.length - first + exponent
  if (scale > SAFE_DIGITS) return false
  if (scale === SAFE_DIGITS) {
    const head = significant.slice(0, SAFE_DIGITS).padEnd(SAFE_DIGITS, '0')
    if (head > MAX_SAFE || (head === MAX_SAFE && significant.length > SAFE_DIGITS)) return false
  }
  return Number(token) !== 0 // a non-zero literal that underflows
}
