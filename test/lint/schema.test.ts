import assert from 'node:assert/strict'
import { isDeepStrictEqual } from 'node:util'
import { describe, it } from 'node:test'
import fc from 'fast-check'
import { equal, type Json, type JsonObject } from '../../src/lint/schema.ts'

/** The same JSON value with every object's members in one order, so that order cannot matter, and -0 as 0. */
function sorted (value: Json): Json {
  if (Array.isArray(value)) return value.map(sorted)
  if (value === 0) return 0 // JSON writes -0 as 0: one number
  if (value === null || typeof value !== 'object') return value
  const object = value as JsonObject
  return Object.fromEntries(Object.keys(object).sort().map((key) => [key, sorted(object[key] as Json)]))
}

// Two values from a small alphabet, so that equal pairs, near misses and reorderings all occur.
const small = fc.letrec<{ json: Json }>((tie) => ({
  json: fc.oneof(
    { depthSize: 'small' },
    fc.constantFrom<Json>(null, true, false, 0, 1, -0, 1.5, '', 'a'),
    fc.array(tie('json'), { maxLength: 3 }),
    fc.dictionary(fc.constantFrom('a', 'b', 'c', '__proto__'), tie('json'), { maxKeys: 3 })
  )
})).json

describe('equal: JSON equality of enum and const values', () => {
  it('fast-check: agrees with deep equality once member order is set aside', () => {
    fc.assert(fc.property(small, small, (a, b) => {
      assert.equal(equal(a, b), isDeepStrictEqual(sorted(a), sorted(b)))
    }), { numRuns: 5000 })
  })

  it('fast-check: a value equals itself with its members reordered, and differs once one member changes', () => {
    fc.assert(fc.property(fc.dictionary(fc.string({ maxLength: 3 }), small, { minKeys: 1, maxKeys: 5 }), (object) => {
      const reversed = Object.fromEntries(Object.entries(object).reverse())
      assert.ok(equal(object, reversed))
      const [key] = Object.keys(object)
      assert.ok(!equal(object, { ...object, [key!]: [object[key!]!] }), 'a member wrapped in an array')
      assert.ok(!equal(object, { ...object, [`${key!}....`]: null }), 'one member more (its name longer than any generated)')
    }))
  })
})
