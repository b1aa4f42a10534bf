import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { Validator } from '@cfworker/json-schema'
import fc from 'fast-check'
import { compileForm, freezeJson } from '../../src/form/compile.ts'
import { parse } from '../../src/parse/parse.ts'

// Values drawn from a small pool, so that equal ones recur, written with their members in any
// order: equality in draft 2020-12 ignores member order and compares numbers by value.
const scalar = fc.constantFrom<unknown>(0, 1, 1.5, -0, 'a', 'b', '1', true, false, null)
const { value } = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof({ depthSize: 'small' }, scalar,
    fc.array(tie('value'), { maxLength: 3 }),
    fc.dictionary(fc.constantFrom('a', 'b', 'c'), tie('value'), { maxKeys: 3 }))
}))

/** The same value written with its members in reverse order, at every depth. */
const reversed = (item: unknown): unknown => {
  if (Array.isArray(item)) return item.map(reversed)
  if (item !== null && typeof item === 'object') return Object.fromEntries(Object.entries(item).reverse().map(([k, v]) => [k, reversed(v)]))
  return item
}

describe('uniqueItems in near-linear time', () => {
  const form = { type: 'array', uniqueItems: true } as const
  const validate = compileForm(freezeJson(form, '/'), '/')
  const independent = new Validator({ ...form }, '2020-12', true)

  it('agrees with an independent validator on arrays with recurring, reordered values', () => {
    fc.assert(fc.property(fc.array(value, { maxLength: 8 }), fc.array(fc.boolean(), { maxLength: 8 }), (items, flips) => {
      const written = items.map((item, i) => (flips[i] === true ? reversed(item) : item))
      // The body as the address receives it: parsed from its text (1.0 and 1 are one number).
      const body = parse(Buffer.from(JSON.stringify(written)))
      assert.equal(validate(body), independent.validate(body).valid, JSON.stringify(written))
    }), { numRuns: 2000 })
  })

  it('tells apart values that only look alike', () => {
    const cases: Array<[string, boolean]> = [
      ['[1, 1.0]', false],
      ['[{"a":1,"b":2},{"b":2,"a":1}]', false],
      ['[[1,2],[2,1]]', true],
      ['["1", 1]', true],
      ['[{"a":"1"},{"a":1}]', true],
      ['[null, false, 0, ""]', true],
      ['[{"a":[{}]},{"a":[{}]}]', false],
      ['[{"a\\"":1},{"a":"\\":1"}]', true]
    ]
    for (const [text, unique] of cases) assert.equal(validate(parse(Buffer.from(text))), unique, text)
    assert.equal(compileForm(freezeJson({ type: 'array', uniqueItems: false }, '/'), '/')(parse(Buffer.from('[1,1]'))), true)
  })
})
