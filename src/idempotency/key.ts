// The Idempotency-Key request header (draft-ietf-httpapi-idempotency-key-header, §2): a
// Structured Field Item whose value is a String (RFC 8941, §3.3.3). The bare keys the payment APIs
// made common (Stripe's, a UUID unquoted) are taken too, as the same key: docs/idempotency.md.

/** The longest key, in characters (the 255 of the APIs that made the header common). */
export const KEY_LENGTH = 255

/** What a request's header says: no key, a key, or a field that is not one. */
export const MALFORMED: unique symbol = Symbol('malformed')

// RFC 8941 §3.3.3: a String's characters are visible ASCII and space; `"` and `\` only escaped.
const QUOTED = /^"((?:[\x20\x21\x23-\x5b\x5d-\x7e]|\\["\\])*)"$/
// A bare key: visible ASCII but `"`, `\`, `;` and `,` (which would begin a parameter or a list).
const BARE = /^[\x21\x23-\x2b\x2d-\x3a\x3c-\x5b\x5d-\x7e]+$/

/**
 * The key a header field carries, `undefined` where there is none, MALFORMED for anything else:
 * an empty or over-long key, a list of them (a repeated header), parameters, a character outside
 * the String's.
 */
export function keyOf (field: string | string[] | undefined): string | undefined | typeof MALFORMED {
  if (field === undefined) return undefined
  if (typeof field !== 'string') return MALFORMED
  const item = spaceless(field)
  const quoted = QUOTED.exec(item)
  const key = quoted === null ? (BARE.test(item) ? item : undefined) : quoted[1]!.replace(/\\(["\\])/g, '$1')
  return key === undefined || key.length === 0 || key.length > KEY_LENGTH ? MALFORMED : key
}

/** RFC 8941 §4.2: leading and trailing spaces (SP only) are not part of the item. A loop: a regular expression for the end backtracks over each run of spaces. */
function spaceless (field: string): string {
  let start = 0
  let end = field.length
  while (start < end && field.charCodeAt(start) === 0x20) start++
  while (end > start && field.charCodeAt(end - 1) === 0x20) end--
  return field.slice(start, end)
}
