// The values near-misses are made of (src/check/near-miss.ts `proposals`), judged by a validator
// that is not ours (@cfworker/json-schema): for any bound of any keyword the checker builds
// near-misses for, and any value that bound admits, some proposal is refused for that keyword.
// The tests' near-miss generator (test/helpers/near-miss.ts) breaks keywords with the same list.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import fc from 'fast-check'
import { Validator } from '@cfworker/json-schema'
import { KEYWORDS, proposals } from '../../src/check/near-miss.ts'

const small = fc.integer({ min: 0, max: 12 })
const text = fc.string({ unit: fc.constantFrom('a', 'b', 'é', '\u{1F432}', '~', ' '), maxLength: 12 })
const scalar = fc.oneof(fc.integer({ min: -50, max: 50 }), fc.boolean(), fc.constant(null), text)
const members = fc.dictionary(fc.constantFrom('a', 'b', 'c', 'd'), scalar, { maxKeys: 4 })

/** A keyword, its bound, and a value to start from (kept only when the bound admits it). */
const cases: Record<(typeof KEYWORDS)[number], fc.Arbitrary<[Record<string, unknown>, unknown]>> = {
  type: fc.tuple(fc.constantFrom('string', 'number', 'integer', 'boolean', 'null', 'object', 'array').map((type) => ({ type })), scalar),
  required: fc.tuple(fc.uniqueArray(fc.constantFrom('a', 'b', 'c'), { minLength: 1 }).map((required) => ({ required })), members),
  additionalProperties: fc.tuple(fc.constantFrom(false, { type: 'string' }, { const: 1 })
    .map((extra) => ({ properties: { a: true, b: true }, additionalProperties: extra })), members),
  maxLength: fc.tuple(small.map((maxLength) => ({ maxLength })), text),
  minLength: fc.tuple(small.map((minLength) => ({ minLength: minLength + 1 })), text),
  enum: fc.tuple(fc.uniqueArray(scalar, { minLength: 1, maxLength: 4 }).map((values) => ({ enum: values })), scalar),
  const: fc.tuple(scalar.map((value) => ({ const: value })), scalar),
  pattern: fc.tuple(fc.constantFrom('^a+$', '^[ab]*$', 'b', '^.{2,}$', '^\\S+$').map((pattern) => ({ pattern })), text),
  format: fc.tuple(fc.constantFrom('date', 'email', 'ipv4', 'uuid', 'date-time').map((format) => ({ format })),
    fc.constantFrom('2021-01-01', 'a@example.com', '1.2.3.4', '00000000-0000-0000-0000-000000000000', '2021-01-01T00:00:00Z')),
  maximum: fc.tuple(fc.integer({ min: -50, max: 50 }).map((maximum) => ({ maximum })), fc.integer({ min: -60, max: 60 })),
  minimum: fc.tuple(fc.integer({ min: -50, max: 50 }).map((minimum) => ({ minimum })), fc.integer({ min: -60, max: 60 })),
  exclusiveMaximum: fc.tuple(fc.double({ min: -50, max: 50, noNaN: true }).map((exclusiveMaximum) => ({ exclusiveMaximum })), fc.integer({ min: -60, max: 60 })),
  exclusiveMinimum: fc.tuple(fc.double({ min: -50, max: 50, noNaN: true }).map((exclusiveMinimum) => ({ exclusiveMinimum })), fc.integer({ min: -60, max: 60 })),
  multipleOf: fc.tuple(fc.constantFrom(1, 2, 3, 0.5, 10).map((multipleOf) => ({ multipleOf })), fc.integer({ min: -20, max: 20 })),
  maxItems: fc.tuple(small.map((maxItems) => ({ maxItems })), fc.array(scalar, { minLength: 1, maxLength: 12 })),
  minItems: fc.tuple(small.map((minItems) => ({ minItems: minItems + 1 })), fc.array(scalar, { maxLength: 12 })),
  uniqueItems: fc.tuple(fc.constant({ uniqueItems: true }), fc.uniqueArray(fc.integer(), { minLength: 1, maxLength: 5 })),
  maxProperties: fc.tuple(fc.integer({ min: 0, max: 4 }).map((maxProperties) => ({ maxProperties })), members),
  minProperties: fc.tuple(fc.integer({ min: 1, max: 4 }).map((minProperties) => ({ minProperties })), members)
}

describe('near-miss proposals', () => {
  for (const keyword of KEYWORDS) {
    it(`break "${keyword}" wherever it admits the value they start from`, () => {
      fc.assert(fc.property(cases[keyword], ([schema, current]) => {
        const validator = new Validator(schema as object, '2020-12', false)
        fc.pre(validator.validate(current).valid)
        const refused = proposals(keyword, schema, current).filter((value) => validator.validate(value).errors.some((error) => error.keyword === keyword))
        assert.ok(refused.length > 0, `no proposal is refused for ${JSON.stringify(schema)} from ${JSON.stringify(current)}`)
      }), { numRuns: 200 })
    })
  }
})

describe('near-miss proposals for maxProperties beside a schema for other members', () => {
  it('fast-check: one is refused for maxProperties alone, its added members admitted by additionalProperties', () => {
    const extra = fc.oneof(
      fc.record({ type: fc.constant('integer'), minimum: fc.integer({ min: -5, max: 5 }), maximum: fc.integer({ min: 5, max: 9 }) }),
      fc.record({ type: fc.constant('string'), minLength: fc.integer({ min: 0, max: 3 }) }),
      fc.jsonValue().map((value) => ({ const: value })))
    fc.assert(fc.property(extra, fc.integer({ min: 1, max: 4 }), (additionalProperties, maxProperties) => {
      const schema = { type: 'object', properties: { a: { type: 'boolean' } }, additionalProperties, maxProperties }
      const validator = new Validator(schema as object, '2020-12', false)
      const alone = proposals('maxProperties', schema, { a: true }).filter((value) => {
        const errors = validator.validate(value).errors.filter((error) => error.keyword !== 'properties')
        return errors.length > 0 && errors.every((error) => error.keyword === 'maxProperties')
      })
      assert.ok(alone.length > 0, JSON.stringify(schema))
    }), { numRuns: 200 })
  })
})

describe('proposals for a keyword that does not apply to the value', () => {
  // A keyword of one type says nothing of a value of another: no value can break it there.
  const applies: Record<string, (value: unknown) => boolean> = {
    multipleOf: (value) => typeof value === 'number',
    maxItems: Array.isArray,
    minItems: Array.isArray,
    uniqueItems: Array.isArray,
    maxProperties: (value) => value !== null && typeof value === 'object' && !Array.isArray(value),
    minProperties: (value) => value !== null && typeof value === 'object' && !Array.isArray(value),
    maxLength: (value) => typeof value === 'string',
    minLength: (value) => typeof value === 'string'
  }
  const bounds: Record<string, unknown> = { multipleOf: 3, maxItems: 2, minItems: 2, uniqueItems: true, maxProperties: 2, minProperties: 2, maxLength: 3, minLength: 2 }

  it('fast-check: none, whatever the value of another type', () => {
    fc.assert(fc.property(fc.constantFrom(...Object.keys(applies)), fc.jsonValue(), (keyword, value) => {
      fc.pre(!applies[keyword]!(value))
      assert.deepEqual(proposals(keyword, { [keyword]: bounds[keyword] }, value), [])
    }), { numRuns: 2000 })
  })

  it('and some, each different from the value, where it does apply', () => {
    const values: Record<string, unknown> = { multipleOf: 6, maxItems: [1, 2], minItems: [1, 2], uniqueItems: [1], maxProperties: { a: 1 }, minProperties: { a: 1, b: 2 }, maxLength: 'abc', minLength: 'ab' }
    for (const [keyword, value] of Object.entries(values)) {
      const proposed = proposals(keyword, { [keyword]: bounds[keyword] }, value)
      assert.ok(proposed.length > 0, keyword)
      assert.ok(proposed.every((p) => JSON.stringify(p) !== JSON.stringify(value)), keyword)
    }
  })
})
