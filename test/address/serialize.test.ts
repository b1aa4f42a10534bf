// A result form's compiled serializer (src/address/serialize.ts): taken only for forms whose
// every node fast-json-stringify writes as JSON.stringify would, and for results that are data;
// its text is then the value judged. Validity is judged by @cfworker/json-schema, not our Ajv.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { Validator } from '@cfworker/json-schema'
import fc from 'fast-check'
import Fastify from 'fastify'
import { compileSerializer } from '../../src/address/serialize.ts'
import { resolveResult } from '../../src/address/result.ts'
import type { JsonObject } from '../../src/form/compile.ts'
import gpt from '../../src/index.ts'
import { DEFAULT_LIMITS } from '../../src/limits.ts'
import mcp from '../../src/mcp/index.ts'

type Schema = Record<string, unknown>
const SEED = 20261208

const NAMES = fc.oneof(fc.string({ minLength: 1, maxLength: 6 }), fc.constantFrom('toJSON', 'a"b', 'é\u0000')).filter((name) => !(name in Object.prototype))
const STRINGS = fc.oneof(fc.string({ unit: 'binary', maxLength: 60 }), fc.string({ unit: 'grapheme', minLength: 40, maxLength: 200 }), fc.date({ noInvalidDate: true }).map((d) => d.toISOString()))
const NUMBERS = fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.constantFrom(-0, 1e21, 2 ** 53 + 2, 5e-324))
const INTEGERS = fc.oneof(fc.integer(), fc.constantFrom(-0, 1e21, 2 ** 60, -(2 ** 53)))

/** Result forms in the subset, with the keywords that only judge or annotate. */
const { schema: SCHEMAS } = fc.letrec<{ schema: Schema, leaf: Schema }>((tie) => ({
  leaf: fc.oneof(
    fc.record({ type: fc.constant('string'), minLength: fc.nat(3), maxLength: fc.integer({ min: 3, max: 80 }), format: fc.constant('date-time'), title: fc.string() }, { requiredKeys: ['type'] }),
    fc.record({ type: fc.constant('number'), minimum: fc.integer({ min: -100, max: 0 }), exclusiveMaximum: fc.integer({ min: 1, max: 1000 }) }, { requiredKeys: ['type'] }),
    fc.record({ type: fc.constant('integer'), maximum: fc.integer(), description: fc.string() }, { requiredKeys: ['type'] }),
    fc.record({ type: fc.constantFrom('boolean', 'null') }),
    fc.record({ type: fc.constant('string'), enum: fc.uniqueArray(STRINGS, { minLength: 1, maxLength: 3 }) }),
    fc.record({ type: fc.constant('integer'), const: fc.integer() })
  ),
  schema: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    tie('leaf'),
    fc.record({ type: fc.constant('array'), items: tie('schema'), maxItems: fc.nat(6), uniqueItems: fc.boolean() }, { requiredKeys: ['type', 'items'] }),
    fc.dictionary(NAMES, tie('schema'), { maxKeys: 5 }).chain((properties) => fc.record({
      type: fc.constant('object'),
      properties: fc.constant(properties),
      required: fc.subarray(Object.keys(properties)),
      additionalProperties: fc.constant(false),
      minProperties: fc.nat(2)
    }, { requiredKeys: ['type', 'properties', 'additionalProperties'] }))
  )
}))

/** Values near `schema`: mostly what it admits, sometimes not (cfworker says which). */
function valuesOf (schema: Schema): fc.Arbitrary<unknown> {
  const other = fc.oneof(fc.constant(null), fc.boolean(), fc.string(), fc.integer())
  if (Array.isArray(schema['enum'])) return fc.oneof(fc.constantFrom(...schema['enum'] as unknown[]), other)
  if ('const' in schema) return fc.oneof({ weight: 3, arbitrary: fc.constant(schema['const']) }, { weight: 1, arbitrary: other })
  switch (schema['type']) {
    case 'string': return fc.oneof({ weight: 9, arbitrary: STRINGS }, { weight: 1, arbitrary: other })
    case 'number': return fc.oneof({ weight: 4, arbitrary: fc.double({ min: -100, max: 999, noNaN: true }) }, { weight: 4, arbitrary: NUMBERS }, { weight: 1, arbitrary: other })
    case 'integer': return fc.oneof({ weight: 9, arbitrary: INTEGERS }, { weight: 1, arbitrary: other })
    case 'boolean': return fc.oneof({ weight: 9, arbitrary: fc.boolean() }, { weight: 1, arbitrary: other })
    case 'null': return fc.oneof({ weight: 9, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: other })
    case 'array': return fc.array(valuesOf(schema['items'] as Schema), { maxLength: 7 })
    default: {
      const properties = schema['properties'] as Record<string, Schema>
      const members = Object.fromEntries(Object.entries(properties).map(([name, member]) => [name, valuesOf(member)]))
      const listed = fc.record(members, { requiredKeys: [] })
      return fc.oneof({ weight: 9, arbitrary: listed }, { weight: 1, arbitrary: listed.map((value) => ({ ...value, extra: 1 })) })
    }
  }
}

/** `value` as JSON writes it: -0 as 0, so that a deep equality reads meaning. */
const asWritten = (value: unknown): unknown => Object.is(value, -0)
  ? 0
  : Array.isArray(value) ? value.map(asWritten) : value !== null && typeof value === 'object' ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, asWritten(v)])) : value

describe('the result\'s compiled serializer', () => {
  it('writes every value a form of the subset admits as that value: JSON.parse of its text deep-equals it and JSON.stringify\'s; judge sends exactly that text, and refuses what cfworker refuses', () => {
    let written = 0
    fc.assert(fc.property(SCHEMAS.chain((schema) => fc.tuple(fc.constant(schema), valuesOf(schema))), ([schema, value]) => {
      const serializer = compileSerializer(schema as JsonObject)
      assert.ok(serializer !== undefined, 'a form of the subset takes the compiled serializer')
      const valid = new Validator(schema as never, '2020-12').validate(value).valid
      const judged = (resolveResult(schema, '/r', DEFAULT_LIMITS) as NonNullable<ReturnType<typeof resolveResult>>).judge(value)
      assert.equal(typeof judged === 'string', valid, `our judge and cfworker agree on ${JSON.stringify(value)}`)
      if (!valid) return
      assert.ok(serializer.takes(value), 'generated values are data')
      const text = serializer.write(value)
      assert.deepEqual(JSON.parse(text), asWritten(value))
      assert.deepEqual(JSON.parse(text), JSON.parse(JSON.stringify(value)))
      assert.equal(judged, text)
      written++
    }), { seed: SEED, numRuns: 600 })
    assert.ok(written >= 150, `a fair share of the generated values are admitted and written (${written})`)
  })

  const outside: Array<[string, Schema]> = [
    ['an object that may have members it does not list', { type: 'object', properties: { a: { type: 'string' } } }],
    ['a member with a default', { type: 'object', properties: { a: { type: 'string', default: 'x' } }, additionalProperties: false }],
    ['more than one type', { type: ['string', 'null'] }],
    ['no type', { minLength: 1 }],
    ['an applicator', { type: 'string', anyOf: [{ minLength: 1 }] }],
    ['a $ref', { $defs: { a: { type: 'string' } }, $ref: '#/$defs/a' }],
    ['patternProperties', { type: 'object', patternProperties: { '^a': { type: 'string' } }, additionalProperties: false }],
    ['prefixItems', { type: 'array', prefixItems: [{ type: 'string' }] }],
    ['items of a form outside', { type: 'array', items: { type: 'object' } }],
    ['format "unsafe"', { type: 'string', format: 'unsafe' }],
    ['a member Object.prototype has', { type: 'object', properties: { constructor: { type: 'integer' } }, additionalProperties: false }]
  ]
  for (const [what, schema] of outside) {
    it(`is not taken for a form with ${what}`, () => {
      assert.equal(compileSerializer(schema as JsonObject), undefined)
    })
  }

  it('takes only data: a Date, toJSON, an undefined member, a class instance, a proxy, a getter, a hole, NaN are written and judged as JSON.stringify does', () => {
    const schema = { type: 'object', properties: { at: { type: 'string' }, n: { type: 'number' }, list: { type: 'array', items: { type: 'integer' } } }, additionalProperties: false }
    const serializer = compileSerializer(schema as JsonObject)
    assert.ok(serializer !== undefined)
    const judge = (resolveResult(schema, '/r', DEFAULT_LIMITS) as NonNullable<ReturnType<typeof resolveResult>>).judge
    assert.ok(serializer.takes({ at: 'x', n: 1, list: [1, 2] }))
    assert.ok(serializer.takes(Object.assign(Object.create(null) as object, { n: 2 })))
    class Point { n = 1 }
    const cases: Array<[string, unknown, string | { refused: string }]> = [
      ['a Date', { at: new Date(0) }, '{"at":"1970-01-01T00:00:00.000Z"}'],
      ['toJSON', { n: 1, toJSON: () => ({ n: 2 }) }, '{"n":2}'],
      ['an undefined member', { at: undefined, n: 3 }, '{"n":3}'],
      ['a class instance', new Point(), '{"n":1}'],
      ['a proxy', new Proxy({ n: 4 }, {}), '{"n":4}'],
      ['a getter', { at: 'x', get n () { return 6 } }, '{"at":"x","n":6}'],
      ['an inherited member', Object.create({ n: 5 }) as object, '{}'],
      ['a hole', { list: [1, , 3] }, { refused: 'result/list/1 must be integer' }], // eslint-disable-line no-sparse-arrays
      ['NaN', { n: Number.NaN }, { refused: 'result/n must be number' }]
    ]
    for (const [what, value, sent] of cases) {
      assert.equal(serializer.takes(value), false, what)
      assert.deepEqual(judge(value), sent, what)
    }
  })
})

describe('the compiled serializer over POST and tools/call alike (one pipeline, a real socket)', () => {
  it('sends a result it writes as POST\'s body and as the call\'s structuredContent, and fails one the form does not admit both ways', async (t) => {
    const item = { type: 'object', properties: { id: { type: 'integer', minimum: 0 }, text: { type: 'string', maxLength: 12 } }, required: ['id', 'text'], additionalProperties: false }
    const result = { type: 'object', properties: { saved: { type: 'boolean' }, items: { type: 'array', items: item } }, required: ['saved', 'items'], additionalProperties: false }
    assert.ok(compileSerializer(result as JsonObject) !== undefined, 'the form is one the compiled serializer takes')
    const app = Fastify()
    t.after(() => app.close())
    // The act echoes its items: a text over 12 characters makes a result the form does not admit.
    await app.register(gpt, { prefix: '/list', form: { type: 'object', properties: { items: { type: 'array' } }, required: ['items'] }, result, act: (body: { items: unknown[] }) => ({ saved: true, items: body.items }), rateLimit: false, lint: false })
    await app.register(mcp, { rateLimit: false })
    const base = await app.listen({ host: '127.0.0.1', port: 0 })
    const body = '{"items":[{"id":1,"text":"Zoë \\"q\\"\\n"},{"id":2,"text":"\\ud83d\\ude00 ✓"}]}'
    const posted = await fetch(`${base}/list`, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
    assert.equal(posted.status, 200)
    const sent = await posted.text()
    assert.deepEqual(JSON.parse(sent), { saved: true, ...JSON.parse(body) as object })
    const call = async (args: string): Promise<{ isError?: boolean, structuredContent?: unknown }> => {
      const response = await fetch(`${base}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' }, body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list","arguments":${args}}}` })
      assert.equal(response.status, 200)
      return ((await response.json()) as { result: { isError?: boolean, structuredContent?: unknown } }).result
    }
    const called = await call(body)
    assert.notEqual(called.isError, true)
    assert.deepEqual(called.structuredContent, JSON.parse(sent), 'the call\'s structuredContent is the POST\'s body')
    const tooLong = '{"items":[{"id":1,"text":"thirteen chars"}]}'
    assert.deepEqual([(await fetch(`${base}/list`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: tooLong })).status], [500])
    const failed = await call(tooLong)
    assert.equal(failed.isError, true)
    assert.equal(failed.structuredContent, undefined)
  })
})
