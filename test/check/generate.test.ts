// The checker's own reading of a form's local `$ref`s (src/check/generate.ts): a JSON Pointer read
// as every room reads one (src/json/pointer.ts), or a `$anchor`, and nothing for what is not there.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { generate, random, resolve } from '../../src/check/generate.ts'

const form = {
  $defs: {
    'a/b': { type: 'integer', minimum: 3 },
    'c%d': { type: 'string', maxLength: 1 },
    list: [{ type: 'null' }],
    named: { $anchor: 'here', const: 'anchored' }
  },
  type: 'object'
}

describe('resolve: the subschema a local $ref names', () => {
  it('follows "#", escaped and percent-encoded pointers, array indexes and $anchor', () => {
    assert.equal(resolve(form, '#'), form)
    assert.equal(resolve(form, '#/$defs/a~1b'), form.$defs['a/b'])
    assert.equal(resolve(form, '#/$defs/c%25d'), form.$defs['c%d'])
    assert.equal(resolve(form, '#/$defs/list/0'), form.$defs.list[0])
    assert.equal(resolve(form, '#here'), form.$defs.named)
  })

  it('finds nothing for an inherited member, an index written "00", a malformed escape, another document, an unknown anchor', () => {
    for (const ref of ['#/$defs/constructor', '#/$defs/__proto__', '#/$defs/list/00', '#/$defs/%zz', 'other.json#/$defs/named', '#nowhere', '#/type']) {
      assert.equal(resolve(form, ref), undefined, ref)
    }
  })

  it('generates through a $ref to an anchor and to an escaped name', () => {
    const generated = generate({ ...form, type: 'array', prefixItems: [{ $ref: '#here' }, { $ref: '#/$defs/a~1b' }], minItems: 2, maxItems: 2 }, random(1), true)
    assert.ok(generated !== undefined)
    const [anchored, number] = generated.value as [unknown, number]
    assert.equal(anchored, 'anchored')
    assert.ok(Number.isInteger(number) && number >= 3, String(number))
  })
})
