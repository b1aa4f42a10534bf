// The one table of 2020-12 applicators (src/json/applicators.ts), against the meta-schemas that
// define the vocabularies (as Ajv ships them), and against the draft's own grouping.
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
import { describe, it } from 'node:test'
import { APPLICATORS, applicators } from '../../src/json/applicators.ts'

const require = createRequire(import.meta.url)
type Meta = { properties: Record<string, Record<string, unknown>>, $defs?: Record<string, unknown> }
const meta = (name: string): Meta => require(`ajv/dist/refs/json-schema-2020-12/meta/${name}.json`) as Meta

/** How a meta-schema property holds subschemas: one (`$dynamicRef`), a list (schemaArray) or a map. */
function shapeOf (property: Record<string, unknown>): string | undefined {
  if (property['$dynamicRef'] === '#meta') return 'one'
  if (property['$ref'] === '#/$defs/schemaArray') return 'list'
  const members = property['additionalProperties'] as Record<string, unknown> | undefined
  if (property['type'] === 'object' && members?.['$dynamicRef'] === '#meta') return 'map'
  return undefined
}

describe('the applicator table', () => {
  it('holds every keyword whose value the 2020-12 meta-schemas make a subschema, with its shape, and nothing else', () => {
    const expected = new Map<string, string>()
    for (const name of ['applicator', 'unevaluated', 'core']) {
      for (const [keyword, property] of Object.entries(meta(name).properties)) {
        const shape = shapeOf(property)
        if (shape !== undefined) expected.set(keyword, shape)
      }
    }
    const top = require('ajv/dist/refs/json-schema-2020-12/schema.json') as Meta
    const legacy = top.properties['definitions'] as Record<string, unknown>
    expected.set('definitions', shapeOf(legacy) as string)
    assert.deepEqual(new Map([...APPLICATORS].map(([key, kind]) => [key, kind.shape])), expected)
  })

  it('applies in place exactly the keywords of the draft\'s "Keywords for Applying Subschemas in Place", and only $defs/definitions are definitions', () => {
    assert.deepEqual(new Set([...applicators('one', 'in-place'), ...applicators('list', 'in-place'), ...applicators('map', 'in-place')]),
      new Set(['allOf', 'anyOf', 'oneOf', 'not', 'if', 'then', 'else', 'dependentSchemas']))
    assert.deepEqual(applicators('map', 'definition'), ['$defs', 'definitions'])
    assert.deepEqual(applicators('list', 'part'), ['prefixItems'])
  })

  it('selects by shape and target, in table order', () => {
    assert.deepEqual(applicators('one', 'part'), ['items', 'additionalProperties', 'contains', 'propertyNames', 'unevaluatedItems', 'unevaluatedProperties'])
    assert.deepEqual(applicators('map'), ['properties', 'patternProperties', 'dependentSchemas', '$defs', 'definitions'])
    assert.deepEqual(applicators('map', 'part', 'in-place'), ['properties', 'patternProperties', 'dependentSchemas'])
  })
})
