// Strict JSON parsing of an act's body: draft-ferguson-gpt-00 §5.2 (2).
// Policy, algorithm and figures: docs/parsing.md.
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
    // a rejected body is routine, not a bug: skip capturing a stack trace (draft §7.4)
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
const SAFE_DIGITS = 16 // digits of Number.MAX_SAFE_INTEGER
const MAX_SAFE = String(Number.MAX_SAFE_INTEGER)
const SAFE_FRACTION = 324 // fewer fraction digits cannot underflow to 0 without an exponent
const LONG_STRING = 32 // strings this long on average are skipped four bytes at a time

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
  // RFC 8259 §8.1: a BOM MUST NOT be sent, and the body is exactly the actor's (draft §5.1)
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) throw new ParseError('bom')
  // RFC 8259 §8.1: UTF-8 only; never a U+FFFD in place of what was sent (draft §5.1)
  if (!isUtf8(bytes)) throw new ParseError('utf8')

  const body = bytes instanceof Buffer ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length)
  const { members, numbers, lone } = scan(body, maxDepth)

  let text: string
  try {
    text = body.toString('utf8')
  } catch {
    // longer than the engine's longest string: the body limit (draft §5.2 (1)) should stop it first
    throw new ParseError('syntax')
  }
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    throw new ParseError(isBlank(body) ? 'empty' : 'syntax')
  }

  if (members > 0) checkMembers(value as object, members)
  // RFC 7493 §2.1: a lone surrogate cannot be re-encoded as the UTF-8 the actor could have sent
  if (lone) throw new ParseError('surrogate')
  if (numbers) checkNumbers(body)
  return value
}

interface Scan {
  /** Members in the text: each has exactly one colon outside strings. */
  members: number
  /** Whether a number has an exponent or many digits, so may not keep its value. */
  numbers: boolean
  /** Whether a \u escape is half a surrogate pair without its other half. */
  lone: boolean
}

/**
 * One pass over the bytes that never recurses: rejects excess depth before anything costly
 * (draft §7.4), counts members, and spots lone surrogates and numbers worth a closer look.
 * Exact for valid JSON; on invalid JSON its findings do not matter, as JSON.parse rejects it.
 */
function scan (b: Buffer, maxDepth: number): Scan {
  const length = b.length
  let depth = 0
  let members = 0
  let numbers = false
  let lone = false
  let stringBytes = 0 // bytes in strings so far, less LONG_STRING for each
  let words: Words | undefined
  for (let i = 0; i < length; i++) {
    const c = b[i] as number
    if (c === QUOTE) {
      const open = i
      if (stringBytes > 0) {
        // strings run long here: skip four bytes at a time where none is a quote or backslash
        words ??= alignedWords(b)
        const { view, head } = words
        for (i++; i < length; i++) {
          if (((i - head) & 3) === 0 && i >= head) {
            let w = (i - head) >>> 2
            while (w < view.length && isPlain(view[w] as number)) w++
            i = head + w * 4
            if (i >= length) break
          }
          const d = b[i]
          if (d === QUOTE) break
          if (d === BACKSLASH) {
            const end = escapeEnd(b, i)
            if (end === -1) lone = true
            i = end === -1 ? i + 5 : end
          }
        }
      } else {
        for (i++; i < length; i++) {
          const d = b[i]
          if (d === QUOTE) break
          if (d === BACKSLASH) {
            const end = escapeEnd(b, i)
            if (end === -1) lone = true
            i = end === -1 ? i + 5 : end
          }
        }
      }
      stringBytes += i - open - LONG_STRING
    } else if (c === 0x3a) {
      members++
    } else if (c <= 0x39 && c >= 0x30) {
      // a number's digits, then maybe a fraction and an exponent
      const start = i
      while (isDigit(b[i + 1])) i++
      if (i + 1 - start >= SAFE_DIGITS) numbers = true
      if (b[i + 1] === 0x2e) {
        const point = ++i
        while (isDigit(b[i + 1])) i++
        if (i - point >= SAFE_FRACTION) numbers = true
      }
      if (b[i + 1] === 0x65 || b[i + 1] === 0x45) numbers = true
    } else if (c === 0x7b || c === 0x5b) {
      if (++depth > maxDepth) throw new ParseError('depth')
    } else if (c === 0x7d || c === 0x5d) {
      depth--
    }
  }
  return { members, numbers, lone }
}

interface Words {
  /** The body's bytes from `head` on, four at a time. */
  view: Uint32Array
  head: number
}

function alignedWords (b: Buffer): Words {
  const head = Math.min((4 - (b.byteOffset & 3)) & 3, b.length)
  return { view: new Uint32Array(b.buffer, b.byteOffset + head, Math.floor((b.length - head) / 4)), head }
}

/** Whether none of the four bytes in a word is a quote or a backslash (a SWAR zero-byte test). */
function isPlain (word: number): boolean {
  const q = word ^ 0x22222222
  const s = word ^ 0x5c5c5c5c
  return (((((q - 0x01010101) | 0) & ~q) | (((s - 0x01010101) | 0) & ~s)) & 0x80808080) === 0
}

/**
 * Index of the last byte of the escape whose backslash is at i, taking a surrogate pair as
 * one; -1 for a \u escape of half a pair without the other half (raw UTF-8 holds none).
 */
function escapeEnd (b: Uint8Array, i: number): number {
  if (b[i + 1] !== 0x75) return i + 1
  const unit = hex4(b, i + 2)
  if (unit < 0xd800 || unit > 0xdfff) return i + 5
  if (unit <= 0xdbff && b[i + 6] === BACKSLASH && b[i + 7] === 0x75) {
    const low = hex4(b, i + 8)
    if (low >= 0xdc00 && low <= 0xdfff) return i + 11
  }
  return -1
}

/** The code unit spelled by the four hex digits at i, or -1. */
function hex4 (b: Uint8Array, i: number): number {
  let unit = 0
  for (let k = i; k < i + 4; k++) {
    const c = b[k] ?? 0
    const lower = c | 0x20
    const digit = c >= 0x30 && c <= 0x39 ? c - 0x30 : lower >= 0x61 && lower <= 0x66 ? lower - 0x57 : -1
    if (digit === -1) return -1
    unit = unit * 16 + digit
  }
  return unit
}

function isDigit (c: number | undefined): boolean {
  return c !== undefined && c <= 0x39 && c >= 0x30
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
 * (draft §5.2 (2)), without building or comparing a single name.
 */
function checkMembers (root: object, members: number): void {
  // for-in is the fastest way to visit keys, but also visits inherited enumerable ones,
  // which only a polluted Object.prototype has
  const inherited = Object.keys(Object.prototype).length !== 0
  const stack: object[] = [root]
  let keys = 0
  let proto = false
  while (stack.length > 0) {
    const container = stack.pop() as Record<string, unknown>
    if (Array.isArray(container)) {
      for (let i = 0; i < container.length; i++) {
        const v: unknown = container[i]
        if (typeof v === 'object' && v !== null) stack.push(v)
      }
    } else {
      for (const name in container) {
        if (inherited && !Object.hasOwn(container, name)) continue
        keys++
        if (name === '__proto__') proto = true
        const v = container[name]
        if (typeof v === 'object' && v !== null) stack.push(v)
      }
    }
  }
  if (keys !== members) throw new ParseError('duplicate')
  // draft §7: a member named __proto__ makes spreading or merging the body pollute a prototype
  if (proto) throw new ParseError('proto')
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
