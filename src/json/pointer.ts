// JSON Pointers (RFC 6901): how every room names a place in a form or a value.
import { isObject, type Json } from './value.ts'

/** A member name as a reference token: `~` and `/` escaped. */
export const escape = (key: string): string => key.replaceAll('~', '~0').replaceAll('/', '~1')

/** A reference token as the member name it stands for. */
export const unescape = (token: string): string => token.replaceAll('~1', '/').replaceAll('~0', '~')

/** The JSON Pointer of a path of member names and array indexes. */
export const pathPointer = (path: readonly (string | number)[]): string => path.map((step) => `/${escape(String(step))}`).join('')

/** A JSON Pointer for messages; '' (the whole form) reads as "the form". */
export const pointer = (path: string): string => (path === '' ? 'the form' : path)

/**
 * The value at `pointer` in `root` (RFC 6901; a pointer taken from a URI fragment is percent-decoded
 * first), or undefined: own members only, and array indexes as RFC 6901 writes them (no "01").
 */
export function valueAt (root: Json, pointer: string): Json | undefined {
  if (pointer === '') return root
  if (!pointer.startsWith('/')) return undefined
  let at: Json | undefined = root
  for (const token of pointer.slice(1).split('/')) {
    const key = unescape(token)
    if (Array.isArray(at) && /^(0|[1-9]\d*)$/.test(key)) at = at[Number(key)]
    else if (isObject(at) && Object.hasOwn(at, key)) at = at[key]
    else return undefined
  }
  return at
}

/**
 * The JSON Pointer a same-document `$ref` names (`#` or `#/...`), percent-decoded as RFC 6901 §6
 * reads a URI fragment; undefined for any other reference (an `$anchor`, another document) and for
 * a malformed percent-escape.
 */
export function refPointer (ref: string): string | undefined {
  if (ref !== '#' && !ref.startsWith('#/')) return undefined
  return fragmentOf(ref)
}

/**
 * The value a same-document reference names in `root`: a JSON Pointer (`#`, `#/$defs/name`, read
 * as refPointer reads it) or a plain name given by an `$anchor` of the root's own resource
 * (`#name`); undefined for anything else (another document, a malformed percent-escape).
 */
export function fragmentValue (root: Json, ref: string): Json | undefined {
  if (!ref.startsWith('#')) return undefined
  const fragment = fragmentOf(ref)
  if (fragment === undefined) return undefined
  return fragment === '' || fragment.startsWith('/') ? valueAt(root, fragment) : anchored(root, fragment)
}

/** The fragment of a reference that starts with `#`, percent-decoded (RFC 3986 §3.5), or undefined for a malformed escape. */
function fragmentOf (ref: string): string | undefined {
  try {
    return decodeURIComponent(ref.slice(1))
  } catch {
    return undefined
  }
}

// Keywords whose values are data, not schemas: an `$anchor` inside them names nothing.
const DATA = new Set(['const', 'enum', 'default', 'examples'])

const ANCHORS = new WeakMap<object, Map<string, Json>>()

/**
 * The schema whose `$anchor` is `name`, outside any nested `$id` (another resource). The anchors of
 * a root are found once, without recursion (a form's depth is its author's choice), and kept while
 * the root lives: a generator asks for the same anchors thousands of times.
 */
function anchored (root: Json, name: string): Json | undefined {
  if (!isObject(root) && !Array.isArray(root)) return undefined
  let found = ANCHORS.get(root)
  if (found === undefined) {
    found = new Map()
    const stack: Json[] = [root]
    while (stack.length > 0) {
      const s = stack.pop()
      if (Array.isArray(s)) {
        stack.push(...s)
      } else if (isObject(s)) {
        // the first met is the one named, as a search that stops there would find it
        if (typeof s['$anchor'] === 'string' && !found.has(s['$anchor'])) found.set(s['$anchor'], s)
        for (const [key, v] of Object.entries(s)) {
          if (!DATA.has(key) && !(isObject(v) && typeof v['$id'] === 'string')) stack.push(v)
        }
      }
    }
    ANCHORS.set(root, found)
  }
  return found.get(name)
}
