// The Idempotency-Key field read as RFC 8941 reads it, decided by an independent implementation of
// Structured Field Values (structured-headers), over fields a search writes to break it.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import fc from 'fast-check'
import { parseItem } from 'structured-headers'
import { KEY_LENGTH, keyOf, MALFORMED } from '../../src/idempotency/key.ts'

/** What RFC 8941 says the field is: a String without parameters, or not one. */
function sfString (field: string): string | undefined {
  try {
    const [value, parameters] = parseItem(field)
    return typeof value === 'string' && parameters.size === 0 ? value : undefined
  } catch {
    return undefined
  }
}

/** The bare keys the payment APIs' clients send, character by character: visible ASCII but a quote, backslash, comma or semicolon. */
const isBare = (item: string): boolean => item.length > 0 && [...item].every((c) => c > ' ' && c <= '~' && !'"\\,;'.includes(c))

const pieces = fc.constantFrom('"', '\\', ' ', ';', '=', ',', 'a', 'Z', '0', '9', '-', ':', '/', '*', '\t', 'é', '~', '\x7f', '\\"', '\\\\', '\\a')
const fields = fc.oneof(
  fc.array(pieces, { maxLength: 12 }).map((parts) => parts.join('')),
  fc.array(pieces, { maxLength: 12 }).map((parts) => `"${parts.join('')}"`),
  fc.tuple(fc.array(pieces, { maxLength: 6 }), fc.constantFrom('', ';a=1', ';a', ' ', '  ')).map(([parts, tail]) => ` "${parts.join('')}"${tail}`),
  fc.integer({ min: KEY_LENGTH - 2, max: KEY_LENGTH + 2 }).map((n) => `"${'k'.repeat(n)}"`),
  fc.integer({ min: KEY_LENGTH - 2, max: KEY_LENGTH + 2 }).map((n) => 'k'.repeat(n))
)

describe('the Idempotency-Key field', () => {
  it('is the String RFC 8941 reads (or a bare key), 1 to 255 characters; anything else is malformed', () => {
    fc.assert(fc.property(fields, (field) => {
      const string = sfString(field)
      const item = field.replace(/^ +| +$/g, '')
      const expected = string !== undefined
        ? (string.length >= 1 && string.length <= KEY_LENGTH ? string : MALFORMED)
        : (isBare(item) && item.length <= KEY_LENGTH ? item : MALFORMED)
      assert.equal(keyOf(field), expected, JSON.stringify(field))
    }), { numRuns: 5000, seed: 20261203 })
  })

  it('is no key where the field is absent, and malformed where it came twice', () => {
    assert.equal(keyOf(undefined), undefined)
    assert.equal(keyOf(['"a"', '"b"']), MALFORMED)
  })
})
