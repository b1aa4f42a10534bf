// The structural scan behind src/parse/parse.ts: one pass over the bytes that never recurses; and
// the decoding of the bytes into the text JSON.parse reads. Both run as WebAssembly SIMD
// (src/parse/scan.wat), sixteen bytes at a time; where WebAssembly is unavailable (node --jitless,
// or a CPU without SIMD) the same scan runs in JavaScript, and V8 decodes.
import { Buffer, isAscii } from 'node:buffer'
import { SCAN_WASM } from './scan-wasm.ts'

/** What `scan` returns when brackets nest deeper than maxDepth. */
export const TOO_DEEP = -1
/** Flag: some number may not keep its value (it has an exponent, or very many digits). */
export const NUMBERS = 1
/** Flag: a \u escape is half a surrogate pair without its other half. */
export const LONE = 2

/**
 * Scans a JSON text: TOO_DEEP as soon as brackets nest deeper than maxDepth (draft §7.4), else
 * `members << 2 | flags`, where members counts the colons outside strings (each member has
 * exactly one). NUMBERS is set whenever a number has an exponent or 47 or more digits in a row
 * (and maybe from 32 on). Exact for valid JSON; on invalid JSON its findings do not matter, as
 * JSON.parse rejects it.
 */
export type Scan = (body: Uint8Array, maxDepth: number) => number

/** Decodes a body of valid UTF-8 (isUtf8 said so) into the string `toString('utf8')` gives. */
export type Decode = (body: Buffer) => string

// Only the few WebAssembly members used here: the project's lib has no DOM types.
declare const WebAssembly: {
  Module: new (bytes: Uint8Array) => object
  Instance: new (module: object) => { exports: Record<string, unknown> }
} | undefined
interface Memory { buffer: ArrayBuffer, grow: (pages: number) => number }

const PAGE = 65536
const PADDING = 32 // zero bytes after the body: the last block and any \u lookahead read into them
const MAX_DEPTH = 0x7fffffff // Infinity, as the i32 the module takes
const RETAINED = 64 * PAGE // memory kept between calls: 4 MiB
/**
 * Shorter bodies are decoded by V8: copying them in and the text out costs more than V8's
 * byte-at-a-time decoding of so few (docs/parsing.md).
 */
export const DECODED_FROM = 128

const decodeJs: Decode = (body) => body.toString('utf8')

function loadWasm (): { scan: Scan, decode: Decode } | undefined {
  let module: object
  try {
    if (WebAssembly === undefined) return undefined
    module = new WebAssembly.Module(Buffer.from(SCAN_WASM, 'base64'))
  } catch {
    return undefined // no SIMD on this machine
  }
  const wasm = WebAssembly
  let memory: Memory
  let exports: { scan: (length: number, maxDepth: number) => number, decode: (length: number, out: number) => number }
  let bytes: Uint8Array
  let units: Buffer // the same memory, for Node's UTF-16 decoding
  const instantiate = (): void => {
    const instance = new wasm.Instance(module)
    memory = instance.exports.memory as Memory
    exports = instance.exports as typeof exports
    bytes = new Uint8Array(memory.buffer)
    units = Buffer.from(memory.buffer)
  }
  instantiate()
  /** Copies the body in, with its zero bytes after it, in a memory of at least `size` bytes. */
  const hold = (body: Uint8Array, size: number): boolean => {
    if (size > bytes.length) {
      try {
        memory.grow(Math.ceil((size - bytes.length) / PAGE))
      /* c8 ignore next 3: memory.grow fails only when the process cannot have the memory (or past WebAssembly's 4 GiB), which no test can arrange */
      } catch {
        return false
      }
      bytes = new Uint8Array(memory.buffer)
      units = Buffer.from(memory.buffer)
    }
    bytes.set(body)
    bytes.fill(0, body.length, body.length + PADDING)
    return true
  }
  // a memory can only grow: let a large one go once it has served
  const release = (): void => { if (bytes.length > RETAINED) instantiate() }
  return {
    scan: (body, maxDepth) => {
      if (!hold(body, body.length + PADDING)) return scanJs(body, maxDepth) // no memory for a copy: scan in place
      const found = exports.scan(body.length, Math.min(maxDepth, MAX_DEPTH))
      release()
      return found
    },
    // V8 decodes UTF-8 that is not all ASCII a byte at a time, about 2 ns a byte here; this takes
    // ASCII sixteen bytes at a time, and UTF-16 comes out of Node at the speed of a copy.
    decode: (body) => {
      const length = body.length
      if (length < DECODED_FROM) return decodeJs(body)
      if (isAscii(body)) return body.toString('latin1') // its own Latin-1, which V8 copies fastest
      const out = (length + PADDING + 15) & ~15
      if (!hold(body, out + 2 * length + PADDING)) return decodeJs(body)
      const text = units.toString('utf16le', out, out + 2 * exports.decode(length, out))
      release()
      return text
    }
  }
}

const QUOTE = 0x22
const BACKSLASH = 0x5c

/** The same scan in JavaScript, a byte at a time. */
export const scanJs: Scan = (b, maxDepth) => {
  const length = b.length
  let depth = 0
  let members = 0
  let flags = 0
  let run = 0 // digits in a row
  for (let i = 0; i < length; i++) {
    const c = b[i] as number
    if (c <= 0x39 && c >= 0x30) {
      if (++run === 32) flags |= NUMBERS
      continue
    }
    if ((c | 0x20) === 0x65 && run > 0) flags |= NUMBERS // an exponent follows a digit
    run = 0
    if (c === QUOTE) {
      for (i++; i < length; i++) {
        const d = b[i]
        if (d === QUOTE) break
        if (d === BACKSLASH) {
          const end = escapeEnd(b, i)
          if (end === -1) flags |= LONE
          i = end === -1 ? i + 5 : end
        }
      }
    } else if (c === 0x3a) {
      members++
    } else if (c === 0x7b || c === 0x5b) {
      if (++depth > maxDepth) return TOO_DEEP
    } else if (c === 0x7d || c === 0x5d) {
      depth--
    }
  }
  return members * 4 + flags
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

const loaded = loadWasm()
/** The WebAssembly scan where it can run, else the JavaScript one. */
export const scanWasm: Scan | undefined = loaded?.scan
export const scan: Scan = scanWasm ?? scanJs
/** The WebAssembly decoder where it can run, else V8's. */
export const decodeWasm: Decode | undefined = loaded?.decode
export const decode: Decode = decodeWasm ?? decodeJs
