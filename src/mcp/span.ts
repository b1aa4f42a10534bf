// Where a member's value lies in JSON bytes the strict parser has accepted: the bytes of a call's
// arguments, exactly as the client sent them, go through the act pipeline as a POST body does.

const QUOTE = 0x22
const BACKSLASH = 0x5c

/**
 * The [start, end) of the value at `path` (member names from the root), or undefined where a
 * step is not an object or has no such member. For bytes `parse` accepted (one JSON text, no
 * duplicate members), so it only walks: each byte is looked at once, at most.
 */
export function spanAt (bytes: Uint8Array, path: readonly string[]): readonly [number, number] | undefined {
  let at = skipSpace(bytes, 0)
  for (const name of path) {
    if (bytes[at] !== 0x7b) return undefined // not an object
    at = skipSpace(bytes, at + 1)
    let found = false
    while (bytes[at] === QUOTE) {
      const keyEnd = skipString(bytes, at)
      const key = keyOf(bytes, at, keyEnd)
      at = skipSpace(bytes, skipSpace(bytes, keyEnd) + 1) // past the colon
      if (key === name) {
        found = true
        break
      }
      at = skipSpace(bytes, skipValue(bytes, at))
      if (bytes[at] === 0x2c) at = skipSpace(bytes, at + 1)
    }
    if (!found) return undefined
  }
  return [at, skipValue(bytes, at)]
}

/** Whether the JSON text in `bytes` is an array (a JSON-RPC batch). */
export const startsArray = (bytes: Uint8Array): boolean => bytes[skipSpace(bytes, 0)] === 0x5b

/** The [start, end) of each item of the array `bytes` holds, for bytes `parse` accepted. */
export function itemSpans (bytes: Uint8Array): Array<readonly [number, number]> {
  const spans: Array<readonly [number, number]> = []
  let at = skipSpace(bytes, skipSpace(bytes, 0) + 1)
  while (bytes[at] !== 0x5d) {
    const end = skipValue(bytes, at)
    spans.push([at, end])
    at = skipSpace(bytes, end)
    if (bytes[at] === 0x2c) at = skipSpace(bytes, at + 1)
  }
  return spans
}

function keyOf (bytes: Uint8Array, start: number, end: number): string {
  const raw = Buffer.from(bytes.buffer, bytes.byteOffset + start, end - start)
  return raw.includes(BACKSLASH) ? JSON.parse(raw.toString('utf8')) as string : raw.toString('utf8', 1, raw.length - 1)
}

function skipSpace (bytes: Uint8Array, at: number): number {
  while (at < bytes.length) {
    const c = bytes[at]
    if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) break
    at++
  }
  return at
}

/** Past the string whose opening quote is at `at`. */
function skipString (bytes: Uint8Array, at: number): number {
  for (let i = at + 1; i < bytes.length; i++) {
    const c = bytes[i]
    if (c === BACKSLASH) i++
    else if (c === QUOTE) return i + 1
  }
  return bytes.length
}

/** Past the value starting at `at`. */
function skipValue (bytes: Uint8Array, at: number): number {
  const first = bytes[at]
  if (first === QUOTE) return skipString(bytes, at)
  if (first !== 0x7b && first !== 0x5b) { // a number, true, false or null: up to a delimiter
    let i = at
    while (i < bytes.length) {
      const c = bytes[i] as number
      if (c === 0x2c || c === 0x7d || c === 0x5d || c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) break
      i++
    }
    return i
  }
  let depth = 0
  for (let i = at; i < bytes.length; i++) {
    const c = bytes[i]
    if (c === QUOTE) i = skipString(bytes, i) - 1
    else if (c === 0x7b || c === 0x5b) depth++
    else if ((c === 0x7d || c === 0x5d) && --depth === 0) return i + 1
  }
  return bytes.length
}
