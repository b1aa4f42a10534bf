// The 2020-12 meta-schema validator, compiled ahead of time (scripts/build-meta-schema.ts): it must
// be the code Ajv generates today, and judge every value as the validator Ajv compiles at run time.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { Ajv2020 } from 'ajv/dist/2020.js'
import fc from 'fast-check'
import { validateMeta } from '../../src/form/meta-schema.ts'
import { generate } from '../../scripts/build-meta-schema.ts'
import { randomForm } from '../fixtures/lint-forms.ts'

const KEYWORDS = ['type', 'enum', 'const', 'minLength', 'maxLength', 'pattern', 'format', 'minimum', 'exclusiveMaximum',
  'multipleOf', 'items', 'prefixItems', 'minItems', 'uniqueItems', 'contains', 'properties', 'required', 'additionalProperties',
  'patternProperties', 'propertyNames', 'dependentRequired', 'dependentSchemas', 'allOf', 'anyOf', 'oneOf', 'not', 'if',
  'then', '$ref', '$defs', '$id', '$anchor', '$dynamicRef', '$comment', 'title', 'deprecated', 'examples', 'contentSchema']

/** Schemas whose keywords hold any JSON: most are invalid somewhere, some deep inside. */
const wild: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  schema: fc.oneof({ depthSize: 'small' }, fc.boolean(), fc.dictionary(fc.constantFrom(...KEYWORDS), fc.oneof(
    fc.jsonValue({ maxDepth: 2 }), tie('schema'), fc.array(tie('schema'), { maxLength: 3 }),
    fc.dictionary(fc.string({ maxLength: 3 }), tie('schema'), { maxKeys: 3 })), { maxKeys: 4 }))
})).schema

describe('the 2020-12 meta-schema validator', () => {
  it('is the code Ajv generates from its meta-schema', () => {
    assert.equal(readFileSync(new URL('../../src/form/meta-schema.ts', import.meta.url), 'utf8'), generate())
  })

  it('judges every schema as the validator Ajv compiles at run time', () => {
    const ajv = new Ajv2020({ logger: false })
    let invalid = 0
    fc.assert(fc.property(fc.oneof(wild, randomForm), (schema) => {
      const expected = ajv.validateSchema(schema as object)
      if (!expected) invalid++
      assert.equal(validateMeta(schema), expected)
    }), { numRuns: 2000, seed: 20261201 })
    assert.ok(invalid > 200, `only ${invalid} invalid schemas tried`)
  })
})
