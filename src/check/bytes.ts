import type { Admits } from './judge.ts'
import { replace, valueAt } from './near-miss.ts'

// Bodies that no strict parser takes (draft §5.2 (2)), each built around a value the form admits,
// so that an address acting on one has read it as that value: leniently.

const encoder = new TextEncoder()

export const bytes = (text: string): Uint8Array => encoder.encode(text)

export type Spelling = 'same' | 'escaped'

/**
 * JSON text of `value` with the first member of the first object found (depth first, the top
 * first) written twice: `"a":1,"a":1`, or `"a":1,"\u0061":1` (the same name once unescaped).
 * `nested` looks only below the top. Undefined when there is no such object.
 */
export function duplicated (value: unknown, spelling: Spelling, nested: boolean): string | undefined {
  let done = false
  const write = (node: unknown, depth: number): string => {
    if (Array.isArray(node)) return `[${node.map((item) => write(item, depth + 1)).join(',')}]`
    if (node === null || typeof node !== 'object') return JSON.stringify(node)
    const entries = Object.entries(node)
    const here = !done && entries.length > 0 && (!nested || depth > 0)
    if (here) done = true
    const members = entries.map(([key, member]) => `${JSON.stringify(key)}:${write(member, depth + 1)}`)
    if (here) {
      const [key, member] = entries[0] as [string, unknown]
      members.unshift(`${spelling === 'same' ? JSON.stringify(key) : escapeFirst(key)}:${JSON.stringify(member)}`)
    }
    return `{${members.join(',')}}`
  }
  const text = write(value, 0)
  return done ? text : undefined
}

/** `"a"` as `"\u0061"`: a name spelt differently that reads the same. */
function escapeFirst (key: string): string {
  if (key === '') return '""'
  const code = key.charCodeAt(0).toString(16).padStart(4, '0')
  return `"\\u${code}${JSON.stringify(key.slice(1)).slice(1)}`
}

const REPLACEMENT = '\uFFFD'
const REPLACEMENT_BYTES = [0xef, 0xbf, 0xbd]

/**
 * `value` with one string's first character replaced by an invalid UTF-8 byte (0xFF), where the
 * value a lenient decoder makes of it (U+FFFD in its place) is still admitted. Undefined if no
 * string allows it.
 */
export function invalidUtf8 (value: unknown, admits: Admits): Uint8Array | undefined {
  for (const path of stringPaths(value, [])) {
    const changed = replace(value, path, REPLACEMENT + [...(valueAt(value, path) as string)].slice(1).join(''))
    const text = JSON.stringify(changed)
    if (text.split(REPLACEMENT).length !== 2 || admits(changed)?.valid !== true) continue
    const encoded = bytes(text)
    const at = indexOf(encoded, REPLACEMENT_BYTES)
    return Uint8Array.from([...encoded.subarray(0, at), 0xff, ...encoded.subarray(at + 3)])
  }
  return undefined
}

function stringPaths (node: unknown, path: (string | number)[]): (string | number)[][] {
  if (typeof node === 'string') return [path]
  if (node === null || typeof node !== 'object') return []
  return Object.entries(node).flatMap(([key, member]) => stringPaths(member, [...path, Array.isArray(node) ? Number(key) : key]))
}

function indexOf (haystack: Uint8Array, needle: readonly number[]): number {
  for (let i = 0; i <= haystack.length - needle.length; i++) {
    if (needle.every((b, j) => haystack[i + j] === b)) return i
  }
  return -1
}

/** `value`'s text followed by whitespace, up to `size` bytes: valid JSON, only too large. */
export function padded (value: unknown, size: number): Uint8Array {
  const text = bytes(JSON.stringify(value))
  const out = new Uint8Array(Math.max(size, text.length)).fill(0x20)
  out.set(text)
  return out
}
