// A form or a content as the package keeps it: a frozen copy of plain JSON data, made once, within
// the form's limits. Every room reads such copies; only this module makes them.
import {
  GPT_ERR_FORM_NOT_JSON,
  GPT_ERR_FORM_PROPERTY_NAME,
  GPT_ERR_FORM_TOO_DEEP,
  GPT_ERR_FORM_TOO_LARGE
} from '../errors.ts'
import { shorten } from '../limits.ts'
import { escape, pointer } from './pointer.ts'
import type { Json } from './value.ts'

/** How large a value freezeJson copies: bytes of its compact JSON, and nesting of its objects and arrays. */
export interface JsonBound {
  readonly bytes: number
  readonly depth: number
}

/** An object or array being copied: the members still to read, and the copy so far. */
interface Frame {
  readonly source: object
  readonly keys: readonly string[] | undefined // undefined: an array
  readonly out: Json[] | Record<string, Json>
  readonly path: string
  next: number
}

/**
 * A deep, frozen copy of `value` made of plain JSON data only. The copy, not the caller's object,
 * is what is published and compiled: a getter, a proxy or a later mutation cannot make the two
 * differ (draft §5.2 (3): the same value of s, not a copy that can drift).
 *
 * It iterates rather than recurses, and with a `bound` (the form's limits) it stops where the
 * copy passes it: whatever the value, this costs no more than the bound, and nothing recurses
 * through a form before its depth is known (GPT_ERR_FORM_TOO_LARGE, GPT_ERR_FORM_TOO_DEEP).
 */
export function freezeJson (value: unknown, address: string, path = '', bound?: JsonBound): Json {
  const most = bound?.bytes ?? Infinity
  const deepest = bound?.depth ?? Infinity
  let bytes = 0
  const count = (n: number, at: string): void => {
    bytes += n
    if (bytes > most) throw new GPT_ERR_FORM_TOO_LARGE(address, `its JSON is more than ${most} bytes (limits.formBytes): the limit is passed at ${shorten(at)}`)
  }
  const open = new Set<object>()
  const stack: Frame[] = []
  let result: Json | undefined

  // A scalar's copy, or undefined after pushing the frame of an object or array.
  const enter = (item: unknown, at: string): Json | undefined => {
    if (item === null || typeof item === 'boolean') {
      count(String(item).length, at)
      return item
    }
    if (typeof item === 'string') {
      if (item.length > most) count(item.length, at) // refused before it is encoded
      count(Buffer.byteLength(JSON.stringify(item)), at)
      return item
    }
    if (typeof item === 'number') {
      if (!Number.isFinite(item)) throw new GPT_ERR_FORM_NOT_JSON(address, `${pointer(at)} is ${item}`)
      count(String(item).length, at)
      return item
    }
    if (typeof item !== 'object') throw new GPT_ERR_FORM_NOT_JSON(address, `${pointer(at)} is a ${typeof item}`)
    if (open.has(item)) throw new GPT_ERR_FORM_NOT_JSON(address, `${pointer(at)} refers to itself`)
    if (stack.length + 1 > deepest) {
      throw new GPT_ERR_FORM_TOO_DEEP(address, `it nests objects and arrays more than ${deepest} deep (limits.formDepth), at ${shorten(at)}`)
    }
    let keys: string[] | undefined
    if (!Array.isArray(item)) {
      const proto: unknown = Object.getPrototypeOf(item)
      if (proto !== Object.prototype && proto !== null) throw new GPT_ERR_FORM_NOT_JSON(address, `${pointer(at)} is not a plain object`)
      if (Object.getOwnPropertySymbols(item).length > 0) throw new GPT_ERR_FORM_NOT_JSON(address, `${pointer(at)} has symbol keys`)
      keys = Object.keys(item)
    }
    const length = keys?.length ?? (item as unknown[]).length
    count(2 + Math.max(0, length - 1), at) // brackets and commas
    open.add(item)
    stack.push({ source: item, keys, out: keys === undefined ? [] : {}, path: at, next: 0 })
    return undefined
  }

  result = enter(value, path)
  while (stack.length > 0) {
    const frame = stack[stack.length - 1] as Frame
    const { source, keys, out, path: at } = frame
    const length = keys?.length ?? (source as unknown[]).length
    if (frame.next === length) {
      stack.pop()
      open.delete(source)
      const done = Object.freeze(out) as Json
      const parent = stack[stack.length - 1]
      if (parent === undefined) result = done
      else put(parent, done)
      continue
    }
    const i = frame.next++
    let item: unknown
    let here: string
    if (keys === undefined) {
      if (!(i in source)) throw new GPT_ERR_FORM_NOT_JSON(address, `${pointer(at)} has a hole at ${i}`)
      item = (source as unknown[])[i]
      here = `${at}/${i}`
    } else {
      const key = keys[i] as string
      // A body can never carry "__proto__" (see parse.ts), so a form naming it publishes
      // something no act can satisfy; and a plain object cannot hold it safely.
      if (key === '__proto__') throw new GPT_ERR_FORM_PROPERTY_NAME(address, `${pointer(at)} has a member "__proto__"`)
      count(Buffer.byteLength(JSON.stringify(key)) + 1, at)
      item = (source as Record<string, unknown>)[key]
      here = `${at}/${escape(key)}`
    }
    const copied = enter(item, here)
    if (copied !== undefined) put(frame, copied)
  }
  return result as Json
}

/** Puts a finished copy in its parent, in the place the parent is reading. */
function put (frame: Frame, value: Json): void {
  if (frame.keys === undefined) (frame.out as Json[]).push(value)
  else (frame.out as Record<string, Json>)[frame.keys[frame.next - 1] as string] = value
}
