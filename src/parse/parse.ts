// Strict JSON parsing of an act's body: draft-ferguson-gpt-00 §5.2 (2).
// Policy, algorithm and figures: docs/parsing.md.
import { Buffer, constants, isUtf8 } from 'node:buffer'
import { findDuplicate } from './duplicate.ts'
import { LONE, NUMBERS, TOO_DEEP, decode, scan } from './scan.ts'
import { DEFAULT_MAX_DEPTH } from '../defaults.ts'

export { DEFAULT_MAX_DEPTH }

export interface ParseOptions {
  /** Deepest nesting of objects and arrays accepted; defaults to DEFAULT_MAX_DEPTH. */
  maxDepth?: number
}

export type ParseFailure =
  | 'empty' | 'bom' | 'utf8' | 'syntax' | 'depth' | 'duplicate' | 'proto' | 'surrogate' | 'number'

export class ParseError extends Error {
  readonly reason: ParseFailure
  readonly #text: string | undefined

  constructor (reason: ParseFailure, text?: string) {
    // a rejected body is routine, not a bug: skip capturing a stack trace (draft §7.4)
    const limit = Error.stackTraceLimit
    Error.stackTraceLimit = 0
    super(`JSON body rejected: ${reason}`)
    Error.stackTraceLimit = limit
    this.name = 'ParseError'
    this.reason = reason
    this.#text = text
  }

  /**
   * The message, and for a duplicate the member and the JSON Pointer of its object. Found on
   * demand (for the log or `explain`), since it takes a second pass over the body.
   */
  describe (): string {
    const duplicate = this.reason === 'duplicate' && this.#text !== undefined ? findDuplicate(this.#text) : undefined
    if (duplicate === undefined) return this.message
    return `${this.message} member ${JSON.stringify(duplicate.name)} in the object at ${duplicate.at === '' ? 'the root' : duplicate.at}`
  }
}

const QUOTE = 0x22
const BACKSLASH = 0x5c
const SAFE_DIGITS = 16 // digits of Number.MAX_SAFE_INTEGER
const MAX_SAFE = String(Number.MAX_SAFE_INTEGER)

/**
 * Parses a request body strictly, or throws ParseError.
 * Only programming errors (not a Uint8Array, a bad maxDepth) throw a TypeError instead.
 */
export function parse (bytes: Uint8Array, options?: ParseOptions): unknown {
  if (!(bytes instanceof Uint8Array)) throw new TypeError('parse expects a Uint8Array')
  const maxDepth = options?.maxDepth ?? DEFAULT_MAX_DEPTH
  if (!(maxDepth >= 0) || (maxDepth !== Infinity && !Number.isInteger(maxDepth))) {
    throw new TypeError('maxDepth must be a non-negative integer or Infinity')
  }
  // draft §5.2 (2): no value at all is no JSON text, whatever the form admits
  if (bytes.length === 0) throw new ParseError('empty')
  // longer than the engine's longest string: the body limit (draft §5.2 (1)) should stop it first
  if (bytes.length > constants.MAX_STRING_LENGTH) throw new ParseError('syntax')
  // RFC 8259 §8.1: a BOM MUST NOT be sent, and the body is exactly the actor's (draft §5.1)
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) throw new ParseError('bom')
  // RFC 8259 §8.1: UTF-8 only; never a U+FFFD in place of what was sent (draft §5.1)
  if (!isUtf8(bytes)) throw new ParseError('utf8')

  // draft §7.4: excess depth is refused before anything costly
  const found = scan(bytes, maxDepth)
  if (found === TOO_DEEP) throw new ParseError('depth')

  const body = bytes instanceof Buffer ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length)
  const text = decode(body)
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    throw new ParseError(isBlank(body) ? 'empty' : 'syntax')
  }

  const large = typeof value === 'object' && value !== null
    ? checkMembers(value, found >>> 2, text)
    : typeof value === 'number' && isLarge(value)
  // RFC 7493 §2.1: a lone surrogate cannot be re-encoded as the UTF-8 the actor could have sent
  if ((found & LONE) !== 0) throw new ParseError('surrogate')
  if (large || (found & NUMBERS) !== 0) checkNumbers(body)
  return value
}

function isBlank (b: Uint8Array): boolean {
  for (let i = 0; i < b.length; i++) {
    const c = b[i]
    if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) return false
  }
  return true
}

/**
 * Counts the keys of every object in the parsed value, with an explicit stack (no recursion).
 * A duplicate name merges two members into one key, and drops the earlier value with all
 * inside it; both only lower the count. So keys equal members iff no object had a duplicate
 * (draft §5.2 (2)), without building or comparing a single name. Returns whether a number is
 * large enough to have been written as an integer literal past 2^53 - 1.
 */
function checkMembers (root: object, members: number, text: string): boolean {
  // for-in is the fastest way to visit keys, but also visits inherited enumerable ones,
  // which only a polluted Object.prototype has
  const inherited = Object.keys(Object.prototype).length !== 0
  const stack: object[] = [root]
  let keys = 0
  let proto = false
  let large = false
  while (stack.length > 0) {
    const container = stack.pop() as Record<string, unknown>
    if (Array.isArray(container)) {
      for (let i = 0; i < container.length; i++) {
        const v: unknown = container[i]
        if (typeof v === 'object') {
          if (v !== null) stack.push(v)
        } else if (typeof v === 'number' && isLarge(v)) large = true
      }
    } else {
      for (const name in container) {
        if (inherited && !Object.hasOwn(container, name)) continue
        keys++
        if (name === '__proto__') proto = true
        const v = container[name]
        if (typeof v === 'object') {
          if (v !== null) stack.push(v)
        } else if (typeof v === 'number' && isLarge(v)) large = true
      }
    }
  }
  if (keys !== members) throw new ParseError('duplicate', text)
  // draft §7: a member named __proto__ makes spreading or merging the body pollute a prototype
  if (proto) throw new ParseError('proto')
  return large
}

/** Whether a parsed number is past 2^53 - 1 in magnitude (so maybe an unsafe integer literal). */
function isLarge (n: number): boolean {
  return n > Number.MAX_SAFE_INTEGER || n < -Number.MAX_SAFE_INTEGER
}

/**
 * Checks every number token exactly (the text is valid JSON by now): an integer literal past
 * 2^53 - 1, a literal that overflows to ±Infinity and a non-zero literal that becomes 0 would all
 * reach the application as another value than the actor sent (draft §5.1).
 */
function checkNumbers (body: Buffer): void {
  const length = body.length
  for (let i = 0; i < length; i++) {
    const c = body[i] as number
    if (c === QUOTE) {
      for (i++; i < length && body[i] !== QUOTE; i++) if (body[i] === BACKSLASH) i++
    } else if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
      let end = i + 1
      while (end < length && isNumberByte(body[end] as number)) end++
      if (!keepsValue(body.toString('latin1', i, end))) throw new ParseError('number')
      i = end - 1
    }
  }
}

function isNumberByte (c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || c === 0x2e || c === 0x65 || c === 0x45 || c === 0x2b || c === 0x2d
}

/**
 * Whether a valid JSON number token reaches the application as the value it writes. Decimals and
 * exponents take their nearest double, as in every JSON parser (0.1, 1e22); but an integer literal
 * past 2^53 - 1 collapses into a neighbour, and overflow or underflow to 0 is another value.
 */
function keepsValue (token: string): boolean {
  const value = Number(token)
  if (!Number.isFinite(value)) return false
  if (/[.eE]/.test(token)) return value !== 0 || !/[1-9]/.test(token.split(/[eE]/)[0] as string)
  const digits = token.charCodeAt(0) === 0x2d ? token.slice(1) : token // no leading zeros in JSON
  return digits.length < SAFE_DIGITS || (digits.length === SAFE_DIGITS && digits <= MAX_SAFE)
}
