import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { Validator } from '@cfworker/json-schema'
import fc from 'fast-check'
import { bounded, ERRORS_PER_CALL, work, wrapSource } from '../src/bounded.ts'
import { compileForm, freezeJson, type Json, type JsonObject } from '../src/form.ts'
import { DEFAULT_MAX_DEPTH, parse } from '../src/parse.ts'
import { host } from './helpers/host.ts'

// A block is a section or a list of blocks, or a text: each failing alternative validates the
// children again, so a plain validator does twice the work at each level of nesting.
const kids = { type: 'array', items: { $ref: '#/$defs/block' } }
const branch = (kind: string): JsonObject => ({
  type: 'object',
  properties: { children: kids, kind: { const: kind } },
  required: ['kind', 'children'],
  additionalProperties: false
})
const blocks = { $ref: '#/$defs/block', $defs: { block: { anyOf: [branch('section'), branch('list'), { type: 'string', maxLength: 100 }] } } }

/** The same form unrolled as draft §4.2 writes it: levels 1 to n, the last without recursion. */
function unrolled (levels: number): JsonObject {
  const $defs: Record<string, Json> = {}
  for (let i = 1; i <= levels; i++) {
    const next = { type: 'array', items: { $ref: `#/$defs/block${i + 1}` } }
    const alternative = (kind: string): Json => ({ ...branch(kind), properties: { children: next, kind: { const: kind } } })
    $defs[`block${i}`] = { anyOf: i < levels ? [alternative('section'), alternative('list'), { type: 'string' }] : [{ type: 'string' }] }
  }
  return { $ref: '#/$defs/block1', $defs }
}

// Alternatives that share one recursive subschema: each level tries it once per alternative.
const shared = (alternatives: number): JsonObject => ({
  $defs: { tree: { type: 'array', items: { $ref: '#' } } },
  anyOf: [...Array.from({ length: alternatives }, () => ({ $ref: '#/$defs/tree' })), { type: 'string' }]
})

const nested = (depth: number, leaf: Json, wrap: (inner: Json) => Json): Json => {
  let value = leaf
  for (let i = 0; i < depth; i++) value = wrap(value)
  return value
}
const list = (inner: Json): Json => ({ children: [inner], kind: 'list' })
const array = (inner: Json): Json => [inner]

/** The deepest nesting of `wrap` the address's parser takes at its default maxDepth. */
function deepest (wrap: (inner: Json) => Json): number {
  let depth = 1
  while (fits(nested(depth + 1, 'x', wrap))) depth++
  return depth
}
const fits = (value: Json): boolean => {
  try {
    parse(Buffer.from(JSON.stringify(value)), { maxDepth: DEFAULT_MAX_DEPTH })
    return true
  } catch {
    return false
  }
}

/** Every value and member name of a body: the nodes a subschema can be applied to. */
const nodes = (value: unknown): number => {
  if (Array.isArray(value)) return 1 + value.reduce((sum: number, item) => sum + nodes(item), 0)
  if (value !== null && typeof value === 'object') return 1 + Object.values(value).reduce((sum: number, item) => sum + 1 + nodes(item), 0)
  return 1
}

/** How many `$ref`s the form holds: each compiles to at most one function, and the root is one more. */
const refs = (value: unknown): number => {
  if (Array.isArray(value)) return value.reduce((sum: number, item) => sum + refs(item), 0)
  if (value !== null && typeof value === 'object') {
    return Object.entries(value).reduce((sum: number, [key, item]) => sum + (key === '$ref' ? 1 : refs(item)), 0)
  }
  return 0
}

/** Validates and reports the work done, checked against the bound of src/bounded.ts. */
function decide (form: JsonObject, body: Json, allErrors = false): { valid: boolean, evaluations: number, calls: number } {
  const validate = compileForm(freezeJson(form, '/'), '/', { allErrors })
  const before = { ...work }
  const valid = validate(body)
  const evaluations = work.evaluations - before.evaluations
  const calls = work.calls - before.calls
  // Each compiled function runs at most once per node of the body.
  assert.ok(evaluations <= (refs(form) + 1) * nodes(body), `${evaluations} evaluations for ${nodes(body)} nodes`)
  // And each run calls at most its own $refs, once per child of its node.
  assert.ok(calls <= 2 * refs(form) * nodes(body), `${calls} calls for ${nodes(body)} nodes`)
  return { valid, evaluations, calls }
}

/** The verdict of an independent implementation of draft 2020-12. */
const independent = (form: JsonObject, body: Json): boolean => new Validator(form as object, '2020-12', true).validate(body).valid

describe('§7.4 validation costs polynomial time, whatever the form', () => {
  const attacks: Array<[string, JsonObject, (inner: Json) => Json, Json, Json]> = [
    ['a recursive union of sections and lists', blocks, list, 1, 'text'],
    ['the same union unrolled (§4.2)', unrolled(40), list, 1, 'text'],
    ['two alternatives sharing a recursive subschema', shared(2), array, 1, 'text'],
    ['five alternatives sharing a recursive subschema', shared(5), array, 1, 'text']
  ]

  for (const [name, form, wrap, bad, good] of attacks) {
    it(`${name}: the deepest body the address takes is decided with bounded work`, async () => {
      const depth = deepest(wrap)
      assert.ok(depth >= 30, `depth ${depth}`)
      for (const allErrors of [false, true]) {
        assert.equal(decide(form, nested(depth, bad, wrap), allErrors).valid, false)
        assert.equal(decide(form, nested(depth, good, wrap), allErrors).valid, true)
      }
      // At a depth a plain validator still finishes, an independent one agrees.
      for (const depth of [1, 2, 5]) {
        assert.equal(independent(form, nested(depth, bad, wrap)), false)
        assert.equal(independent(form, nested(depth, good, wrap)), true)
      }
    })

    it(`${name}: the address answers the deepest rejected body with the bare 204, and explains it briefly`, async () => {
      const depth = deepest(wrap)
      const body = JSON.stringify(nested(depth, bad, wrap))
      const { app } = await host({ form })
      const rejected = await app.inject({ method: 'POST', url: '/', payload: body })
      assert.equal(rejected.statusCode, 204)
      assert.equal(rejected.body, '')
      assert.equal((await app.inject({ method: 'POST', url: '/', payload: JSON.stringify(nested(depth, good, wrap)) })).statusCode, 200)

      const explained = await host({ form, explain: true })
      const problem = await explained.app.inject({ method: 'POST', url: '/', payload: body })
      assert.equal(problem.statusCode, 422)
      assert.ok(problem.body.length < 16_384, `${problem.body.length} bytes of explanation`)
    })
  }

  it('passes on at most a few errors per $ref, and at least one for a failure', () => {
    const validate = compileForm(freezeJson(shared(5), '/'), '/', { allErrors: true })
    assert.equal(validate(nested(30, 1, array)), false)
    // The root's five $refs pass on their few each; the union and the string alternative add two.
    const count = validate.errors?.length ?? 0
    assert.ok(count >= 1 && count <= 5 * ERRORS_PER_CALL + 2, `${count} errors`)
  })
})

// Random forms made of unions, intersections, negations and conditionals over a few definitions
// that refer to each other through arrays and objects (and, without cycles, in place).
const DEFINITIONS = 4
function schema (index: number): fc.Arbitrary<Json> {
  // In place, a definition refers only to later ones: a cycle that consumes nothing is refused.
  const target = fc.integer({ min: index + 1, max: DEFINITIONS })
  const leaf = fc.oneof(
    fc.constant<Json>({ type: 'string', maxLength: 3 }),
    fc.constant<Json>({ type: 'integer' }),
    fc.constantFrom<Json>({ const: 'a' }, { enum: [1, 'b', null] }, { type: 'null' }, true, false, {}),
    target.map((i): Json => i < DEFINITIONS ? { $ref: `#/$defs/d${i}` } : { type: 'boolean' })
  )
  const { node } = fc.letrec<{ node: Json, inner: Json }>((tie) => ({
    node: fc.oneof({ depthSize: 'small', withCrossShrink: true }, leaf, tie('inner')),
    inner: fc.oneof(
      fc.array(tie('node'), { minLength: 1, maxLength: 3 }).map((all): Json => ({ anyOf: all })),
      fc.array(tie('node'), { minLength: 1, maxLength: 3 }).map((all): Json => ({ allOf: all })),
      fc.array(tie('node'), { minLength: 1, maxLength: 3 }).map((all): Json => ({ oneOf: all })),
      tie('node').map((not): Json => ({ not })),
      fc.tuple(tie('node'), tie('node'), tie('node')).map(([i, t, e]): Json => ({ if: i, then: t, else: e })),
      nestedSchema.map((items): Json => ({ type: 'array', items, maxItems: 3 })),
      fc.tuple(nestedSchema, nestedSchema, fc.boolean()).map(([a, b, closed]): Json => ({
        type: 'object',
        properties: { a, b },
        required: ['a'],
        ...(closed ? { additionalProperties: false } : {})
      }))
    )
  }))
  return node
}
// Inside an array or object the value is consumed, so any definition may be referred to.
const nestedSchema: fc.Arbitrary<Json> = fc.constantFrom(...Array.from({ length: DEFINITIONS }, (_, i): Json => ({ $ref: `#/$defs/d${i}` })), { type: 'string' })

const form = fc.tuple(...Array.from({ length: DEFINITIONS }, (_, i) => schema(i))).map((defs): JsonObject => ({
  $defs: Object.fromEntries(defs.map((definition, i) => [`d${i}`, definition])),
  $ref: '#/$defs/d0'
}))

const { body } = fc.letrec<{ body: Json }>((tie) => ({
  body: fc.oneof({ depthSize: 'small' },
    fc.constantFrom<Json>('a', 'b', 'abcd', 1, 2.5, null, true, false),
    fc.array(tie('body'), { maxLength: 3 }),
    fc.record({ a: tie('body'), b: tie('body') }, { requiredKeys: [] }))
}))

describe('§5.2 (3) the verdicts stay those of draft 2020-12', () => {
  it('agrees with an independent validator on random recursive union-heavy forms, within the bound', () => {
    fc.assert(fc.property(form, fc.array(body, { minLength: 1, maxLength: 8 }), (form, bodies) => {
      for (const body of bodies) {
        for (const allErrors of [false, true]) {
          assert.equal(decide(form, body, allErrors).valid, independent(form, body), JSON.stringify({ form, body }))
        }
      }
    }), { numRuns: 300 })
  })
})

describe('the memory of one validation', () => {
  it('fails closed when a subschema meets itself on the same value', () => {
    const again: Parameters<typeof bounded>[0] = (data) => outer(data, { instancePath: '' })
    const outer = bounded(again)
    assert.equal(outer({}), false)
  })

  it('is fresh for every validation', () => {
    let verdict = true
    const outer = bounded(() => verdict)
    const root = bounded((data) => outer(data, { instancePath: '' }))
    assert.equal(root({}), true)
    verdict = false
    assert.equal(root({}), false)
  })

  it('refuses generated code of a shape it does not know', () => {
    assert.throws(() => wrapSource('return 1', 'validate0'), /unexpected validator code/)
  })
})
