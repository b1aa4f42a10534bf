import { GPT_ERR_CONTENT_TOO_LARGE, GPT_ERR_FORM_TOO_DEEP, GPT_ERR_FORM_TOO_LARGE, GPT_ERR_OPTION_INVALID } from './errors.ts'
import { escape } from './json/pointer.ts'

/**
 * How large an edition may be: the form (bytes of its compact JSON, nesting of its objects and
 * arrays), the prompt and the messages. Every edition is checked against them first, in one pass
 * that stops where a limit is passed, before anything that costs more than reading it: so the
 * work of building an edition is bounded by these numbers, whatever the content says
 * (docs/validation.md, "The cost of an edition").
 */
export interface Limits {
  /** Bytes of the form's compact JSON (UTF-8). Default 262144 (256 KiB). */
  readonly formBytes: number
  /** Nesting of objects and arrays in the form (`{"type":"string"}` is 1). Default 256. */
  readonly formDepth: number
  /** Bytes of the prompt `p` (UTF-8). Default 262144 (256 KiB). */
  readonly promptBytes: number
  /** Messages in `m`. Default 1000. */
  readonly messages: number
  /** Bytes of every message's role and content together (UTF-8). Default 1048576 (1 MiB). */
  readonly messagesBytes: number
}

export type LimitsOption = Partial<Limits>

export const DEFAULT_LIMITS: Limits = Object.freeze({
  formBytes: 256 * 1024,
  formDepth: 256,
  promptBytes: 256 * 1024,
  messages: 1000,
  messagesBytes: 1024 * 1024
})

/**
 * The most `formDepth` may be raised to. The validator's compiler, the audit and lint recurse
 * through the form; past about 300 levels the compiler may run out of stack (a named error), and
 * past this the other walks could too.
 */
export const MAX_FORM_DEPTH = 1024

/** The `limits` option checked, with defaults for the members it leaves out. */
export function resolveLimits (value: unknown, path: string): Limits {
  if (value === undefined) return DEFAULT_LIMITS
  const invalid = (detail: string): Error => new GPT_ERR_OPTION_INVALID(path, detail)
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw invalid(`"limits" must be an object with any of ${Object.keys(DEFAULT_LIMITS).join(', ')}`)
  }
  const out: Record<string, number> = { ...DEFAULT_LIMITS }
  for (const [name, given] of Object.entries(value)) {
    if (!Object.hasOwn(DEFAULT_LIMITS, name)) throw invalid(`"limits" has an unknown member "${name}"`)
    if (typeof given !== 'number' || !Number.isSafeInteger(given) || given <= 0) throw invalid(`"limits.${name}" must be a positive integer`)
    if (name === 'formDepth' && given > MAX_FORM_DEPTH) throw invalid(`"limits.formDepth" must be at most ${MAX_FORM_DEPTH}: the validator's compiler recurses through the form`)
    out[name] = given
  }
  return Object.freeze(out as unknown as Limits)
}

/**
 * The most bytes the stored text of an edition within the limits can have: its members, their
 * names and the escapes JSON.stringify may add (at most 6 bytes for a character of 1). Checked
 * before the text is parsed, so a stored edition of any size costs no more than this to refuse.
 */
export function storedBytes (limits: Limits): number {
  return 64 + limits.formBytes + 6 * (limits.promptBytes + limits.messagesBytes) + 32 * limits.messages
}

/**
 * Refuses, before it is parsed, the stored text of an edition larger than any edition within the
 * limits (GPT_ERR_CONTENT_TOO_LARGE). For editions read from Redis: whoever can write the key is
 * not trusted to keep it small.
 */
export function checkStoredText (text: string, limits: Limits, address: string, version: number): void {
  const most = storedBytes(limits)
  // A string's length in UTF-16 units is at most its UTF-8 bytes: a cheap look before counting.
  if (text.length > most || Buffer.byteLength(text) > most) {
    throw new GPT_ERR_CONTENT_TOO_LARGE(address, `the stored edition ${version} is ${Buffer.byteLength(text)} bytes, more than an edition within the limits can be (${most})`)
  }
}

/** Refuses a prompt or messages past the limits, saying where (draft §3.2: `p`, `m`). */
export function checkText (prompt: string, messages: readonly unknown[], limits: Limits, address: string): void {
  if (prompt.length > limits.promptBytes || Buffer.byteLength(prompt) > limits.promptBytes) {
    throw new GPT_ERR_CONTENT_TOO_LARGE(address, `the prompt (/p) is ${Buffer.byteLength(prompt)} bytes, more than limits.promptBytes (${limits.promptBytes})`)
  }
  if (messages.length > limits.messages) {
    throw new GPT_ERR_CONTENT_TOO_LARGE(address, `the messages (/m) are ${messages.length}, more than limits.messages (${limits.messages})`)
  }
}

/** Refuses messages past limits.messagesBytes, saying at which one; called once they are known to be strings. */
export function checkMessages (messages: ReadonlyArray<{ readonly role: string, readonly content: string }>, limits: Limits, address: string): void {
  const most = limits.messagesBytes
  let bytes = 0
  for (const [i, { role, content }] of messages.entries()) {
    // The UTF-16 length first: it is at most the bytes, and costs nothing to read.
    bytes += role.length + content.length > most ? role.length + content.length : Buffer.byteLength(role) + Buffer.byteLength(content)
    if (bytes > most) {
      throw new GPT_ERR_CONTENT_TOO_LARGE(address, `the messages (/m) are more than limits.messagesBytes (${most}) bytes of role and content: the limit is passed at /m/${i}`)
    }
  }
}

/**
 * The bytes of a value's compact JSON, counted in one iterative pass that stops, with a named
 * error saying where, as soon as the value passes `formBytes` or nests deeper than `formDepth`.
 * Nothing that recurses through a form (the validator, lint, the page) should see one before
 * this, or freezeJson, has. Members that are not JSON count as nothing: other checks refuse them.
 */
export function measureForm (form: unknown, address: string, limits: Pick<Limits, 'formBytes' | 'formDepth'>): number {
  let bytes = 0
  const stack: Array<[unknown, string, number]> = [[form, '', 1]]
  for (let top = stack.pop(); top !== undefined; top = stack.pop()) {
    const [value, at, depth] = top
    if (typeof value === 'string') bytes += value.length > limits.formBytes ? value.length : Buffer.byteLength(JSON.stringify(value))
    else if (typeof value === 'number' || typeof value === 'boolean' || value === null) bytes += String(value).length
    else if (typeof value === 'object') {
      if (depth > limits.formDepth) {
        throw new GPT_ERR_FORM_TOO_DEEP(address, `it nests objects and arrays more than ${limits.formDepth} deep (limits.formDepth), at ${shorten(at)}`)
      }
      const keys = Object.keys(value)
      bytes += 2 + Math.max(0, keys.length - 1)
      for (const key of keys) {
        if (!Array.isArray(value)) bytes += Buffer.byteLength(JSON.stringify(key)) + 1
        stack.push([(value as Record<string, unknown>)[key], `${at}/${escape(key)}`, depth + 1])
      }
    }
    if (bytes > limits.formBytes) {
      throw new GPT_ERR_FORM_TOO_LARGE(address, `its JSON is more than ${limits.formBytes} bytes (limits.formBytes): the limit is passed at ${shorten(at)}`)
    }
  }
  return bytes
}

/** A JSON Pointer for a message: a very deep one by its ends and its length in tokens. */
export function shorten (pointer: string): string {
  if (pointer === '') return 'the form'
  if (pointer.length <= 160) return pointer
  const tokens = pointer.split('/').length - 1
  return `${pointer.slice(0, 80)}…${pointer.slice(-60)} (${tokens} tokens)`
}
