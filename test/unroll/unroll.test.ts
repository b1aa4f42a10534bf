import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { Validator, type Schema } from '@cfworker/json-schema'
import fc from 'fast-check'
import { GPT_ERR_UNROLL } from '../../src/errors.ts'
import { compileForm, type Json, type JsonObject } from '../../src/form/compile.ts'
import { lint } from '../../src/lint/index.ts'
import { unroll } from '../../src/unroll/unroll.ts'

// Expected verdicts come from @cfworker/json-schema on the original form, never from the address's Ajv.
const admits = (form: object, value: unknown): boolean => new Validator(form as Schema, '2020-12').validate(value).valid

// ---- Random recursive forms whose values say which definition they went through ----------------
// Definition i admits the leaf i (an integer) or an object tagged "d<i>" whose members are slots;
// a slot leads to other definitions through $ref, items, prefixItems, anyOf or additionalProperties.
// So a valid value's recursion depth can be read off the value alone.
type Slot =
  | { kind: 'ref' | 'array' | 'tuple' | 'map', to: number, required: boolean }
  | { kind: 'union', to: number, or: number, required: boolean }
  | { kind: 'string', required: boolean }
interface Model { readonly defs: ReadonlyArray<{ slots: Slot[], extra: number | undefined }>, readonly root: 'ref' | 'self' | 'wrap' }

const model: fc.Arbitrary<Model> = fc.integer({ min: 1, max: 3 }).chain((count) => {
  const to = fc.integer({ min: 0, max: count - 1 })
  const slot: fc.Arbitrary<Slot> = fc.oneof(
    fc.record({ kind: fc.constantFrom('ref' as const, 'array' as const, 'tuple' as const, 'map' as const), to, required: fc.boolean() }),
    fc.record({ kind: fc.constant('union' as const), to, or: to, required: fc.boolean() }),
    fc.record({ kind: fc.constant('string' as const), required: fc.boolean() }))
  const def = fc.record({ slots: fc.array(slot, { minLength: 1, maxLength: 3 }), extra: fc.option(to, { nil: undefined }) })
  return fc.record({ defs: fc.array(def, { minLength: count, maxLength: count }), root: fc.constantFrom('ref' as const, 'self' as const, 'wrap' as const) })
})

function formOf (m: Model): JsonObject {
  const ref = (i: number): JsonObject => ({ $ref: m.root === 'self' && i === 0 ? '#' : `#/$defs/d${i}` })
  const slotSchema = (slot: Slot): JsonObject => {
    switch (slot.kind) {
      case 'ref': return ref(slot.to)
      case 'array': return { type: 'array', items: ref(slot.to), maxItems: 2 }
      case 'tuple': return { type: 'array', prefixItems: [ref(slot.to), { type: 'string' }], items: false }
      case 'map': return { type: 'object', additionalProperties: ref(slot.to), maxProperties: 2 }
      case 'union': return { anyOf: [ref(slot.to), ref(slot.or)] }
      case 'string': return { type: 'string' }
    }
  }
  const defSchema = (i: number): JsonObject => {
    const { slots, extra } = m.defs[i] as Model['defs'][number]
    return {
      anyOf: [{ const: i }, {
        type: 'object',
        properties: { tag: { const: `d${i}` }, ...Object.fromEntries(slots.map((slot, s) => [`s${s}`, slotSchema(slot)])) },
        required: ['tag', ...slots.flatMap((slot, s) => slot.required ? [`s${s}`] : [])],
        additionalProperties: extra === undefined ? false : ref(extra)
      }]
    }
  }
  const defs = Object.fromEntries(m.defs.map((_, i) => [`d${i}`, defSchema(i)]).filter(([name]) => m.root !== 'self' || name !== 'd0'))
  const $defs = Object.keys(defs).length === 0 ? {} : { $defs: defs }
  if (m.root === 'self') return { ...defSchema(0), ...$defs }
  if (m.root === 'ref') return { $ref: '#/$defs/d0', ...$defs }
  return { type: 'object', properties: { top: { $ref: '#/$defs/d0' } }, required: ['top'], additionalProperties: false, ...$defs }
}

/** Which definitions reach each other (Floyd–Warshall): the cycle a definition is on is the set it shares. */
function cycles (m: Model): number[] {
  const n = m.defs.length
  const reach = m.defs.map((def) => {
    const row: boolean[] = Array.from({ length: n }, () => false)
    for (const slot of def.slots) {
      if (slot.kind !== 'string') row[slot.to] = true
      if (slot.kind === 'union') row[slot.or] = true
    }
    if (def.extra !== undefined) row[def.extra] = true
    return row
  })
  for (let k = 0; k < n; k++) for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) if (reach[i]?.[k] === true && reach[k]?.[j] === true) (reach[i] as boolean[])[j] = true
  return m.defs.map((_, i) => Math.min(i, ...m.defs.map((__, j) => j).filter((j) => reach[i]?.[j] === true && reach[j]?.[i] === true)))
}

/** The most instances of one cycle's definitions nested along any path of the value. */
function recursionDepth (value: unknown, cycleOf: readonly number[]): number {
  const walk = (v: unknown, counts: ReadonlyMap<number, number>): number => {
    let def: number | undefined
    if (typeof v === 'number' && Number.isInteger(v) && v >= 0 && v < cycleOf.length) def = v
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
      const tag = (v as Record<string, unknown>)['tag']
      if (typeof tag === 'string' && /^d\d$/.test(tag) && Number(tag[1]) < cycleOf.length) def = Number(tag[1])
    }
    let here = counts
    let deepest = 0
    if (def !== undefined) {
      const cycle = cycleOf[def] as number
      here = new Map(counts).set(cycle, (counts.get(cycle) ?? 0) + 1)
      deepest = here.get(cycle) as number
    }
    const children = Array.isArray(v) ? v : v !== null && typeof v === 'object' ? Object.values(v) : []
    for (const child of children) deepest = Math.max(deepest, walk(child, here))
    return deepest
  }
  return walk(value, new Map())
}

/** A value built from the model, nesting up to `budget` deep, now and then wrong on purpose. */
function valueOf (m: Model, g: fc.GeneratorValue, budget: number): unknown {
  const def = (i: number, left: number): unknown => {
    const roll = g(fc.integer, { min: 0, max: 19 })
    if (roll === 0) return g(fc.constantFrom, i + 1, 'x', null, { tag: `d${(i + 1) % 3}` }) // wrong
    if (left <= 0 || roll < 7) return i
    const { slots, extra } = m.defs[i] as Model['defs'][number]
    const out: Record<string, unknown> = { tag: `d${i}` }
    slots.forEach((slot, s) => {
      if (slot.required ? roll !== 1 : g(fc.boolean)) out[`s${s}`] = slotValue(slot, left - 1)
    })
    if (extra !== undefined && g(fc.boolean)) out['x'] = def(extra, left - 1)
    return out
  }
  const slotValue = (slot: Slot, left: number): unknown => {
    switch (slot.kind) {
      case 'ref': return def(slot.to, left)
      case 'array': return Array.from({ length: g(fc.integer, { min: 0, max: 2 }) }, () => def(slot.to, left))
      case 'tuple': return [def(slot.to, left), 's']
      case 'map': return { k: def(slot.to, left) }
      case 'union': return def(g(fc.boolean) ? slot.to : slot.or, left)
      case 'string': return 's'
    }
  }
  const top = def(0, budget)
  return m.root === 'wrap' ? { top } : top
}

function countObjects (value: Json): number {
  if (Array.isArray(value)) return value.reduce<number>((sum, item) => sum + countObjects(item), 0)
  if (value !== null && typeof value === 'object') return 1 + Object.values(value).reduce<number>((sum, item) => sum + countObjects(item), 0)
  return 0
}

describe('unroll (draft §4.2)', () => {
  it('turns the draft\'s node into node1 ... nodeN, the last without a way back', () => {
    const leaf = { type: 'string', maxLength: 10 }
    const form = { $defs: { node: { anyOf: [leaf, { type: 'object', properties: { content: { type: 'array', items: { $ref: '#/$defs/node' } } } }] } }, $ref: '#/$defs/node' }
    const level = (items: Json): JsonObject => ({ anyOf: [leaf, { type: 'object', properties: { content: { type: 'array', items } } }] })
    assert.deepEqual(unroll(form, { depth: 3 }), {
      $ref: '#/$defs/node1',
      $defs: { node1: level({ $ref: '#/$defs/node2' }), node2: level({ $ref: '#/$defs/node3' }), node3: level(false) }
    })
  })

  it('drops the recursive alternative of a union at the last level, as the draft writes it', () => {
    const form = { $defs: { node: { anyOf: [{ const: 'leaf' }, { $ref: '#/$defs/pair' }] }, pair: { type: 'array', prefixItems: [{ $ref: '#/$defs/node' }, { $ref: '#/$defs/node' }], items: false, minItems: 2 } }, $ref: '#/$defs/node' }
    const out = unroll(form, { depth: 3 })
    assert.deepEqual(out, {
      $ref: '#/$defs/node1',
      $defs: {
        node1: { anyOf: [{ const: 'leaf' }, { $ref: '#/$defs/pair2' }] },
        pair2: { type: 'array', prefixItems: [{ $ref: '#/$defs/node3' }, { $ref: '#/$defs/node3' }], items: false, minItems: 2 },
        node3: { anyOf: [{ const: 'leaf' }] }
      }
    })
  })

  it('admits a value exactly when the form does and its recursion is at most depth deep (checked by @cfworker/json-schema)', () => {
    const seen = { deeper: 0, within: 0, refused: 0 }
    fc.assert(fc.property(model, fc.integer({ min: 1, max: 4 }), fc.gen(), (m, depth, g) => {
      const form = formOf(m)
      const unrolled = unroll(form, { depth })
      const validate = compileForm(unrolled as Json, '/unrolled')
      assert.deepEqual(lint(unrolled).filter((f) => f.rule === 'recursion-unbounded'), [])
      assert.ok(countObjects(unrolled) <= (depth + 1) * countObjects(form), 'grows as depth × the form')
      const cycleOf = cycles(m)
      for (let i = 0; i < 12; i++) {
        const value = valueOf(m, g, g(fc.integer, { min: 0, max: depth + 2 }))
        const original = admits(form, value)
        const deep = recursionDepth(value, cycleOf)
        const expected = original && deep <= depth
        if (original) seen[expected ? 'within' : 'deeper']++
        else seen.refused++
        assert.equal(admits(unrolled, value), expected, JSON.stringify({ value, deep }))
        assert.equal(validate(value), expected, 'the address enforces the unrolled form the same way')
      }
    }), { numRuns: 150 })
    // The search met every case: accepted, cut by the depth, refused by the form itself.
    for (const [what, count] of Object.entries(seen)) assert.ok(count > 50, `${what}: ${count}`)
  })

  it('unrolls root recursion ($ref "#") into root2 ... rootN, keeping $schema and $id at the root', () => {
    const form = {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      $id: 'https://example.com/tree',
      type: 'object',
      properties: { name: { type: 'string', maxLength: 9 }, children: { type: 'array', items: { $ref: '#' }, maxItems: 4 } },
      required: ['name'],
      additionalProperties: false
    }
    const out = unroll(form, { depth: 3 })
    assert.deepEqual(Object.keys(out.$defs as object), ['root2', 'root3'])
    assert.equal(out.$id, form.$id)
    assert.equal((out.$defs as Record<string, JsonObject>)['root2']?.['$id'], undefined)
    const tree = (levels: number): unknown => levels === 1 ? { name: 'a' } : { name: 'a', children: [tree(levels - 1)] }
    const validate = compileForm(out, '/tree')
    for (const levels of [1, 2, 3, 4]) assert.equal(validate(tree(levels)), levels <= 3 && admits(form, tree(levels)), `${levels} levels`)
  })

  it('counts every $ref of a cycle as a level, in place or not, and follows a $ref into the middle of a schema on it', () => {
    // alias → node in place; node's kids → alias; "#/$defs/node/properties/kids" is named by a $ref of its own.
    const form = {
      $defs: {
        alias: { $ref: '#/$defs/node' },
        node: { type: 'object', properties: { kids: { type: 'array', items: { $ref: '#/$defs/alias' } } }, additionalProperties: false }
      },
      type: 'object',
      properties: { tree: { $ref: '#/$defs/alias' }, kids: { $ref: '#/$defs/node/properties/kids' } },
      additionalProperties: false
    }
    const out = unroll(form, { depth: 4 })
    assert.deepEqual(lint(out).filter((f) => f.rule === 'recursion-unbounded'), [])
    const validate = compileForm(out, '/')
    const nest = (n: number): unknown => n === 0 ? {} : { kids: [nest(n - 1)] }
    // tree: alias (1), node (2), alias (3), node (4): two objects deep.
    assert.equal(validate({ tree: nest(1) }), true)
    assert.equal(validate({ tree: nest(2) }), false)
    assert.equal(admits(form, { tree: nest(2) }), true)
    // kids enters the cycle inside node: kids (1), alias (2), node (3), alias (4), and no node after.
    assert.equal(validate({ kids: [nest(0)] }), true)
    assert.equal(validate({ kids: [nest(1)] }), false)
    assert.equal(admits(form, { kids: [nest(1)] }), true)
  })

  it('with depth 1 leaves no $ref cycle and no recursion at all', () => {
    const form = { type: 'object', properties: { next: { $ref: '#' } }, additionalProperties: false }
    const out = unroll(form, { depth: 1 })
    // The closed object's "next" is refused either way: it is left out rather than written `false`.
    assert.deepEqual(out, { type: 'object', properties: {}, additionalProperties: false })
  })

  it('gives a form whose every value recurses without end a form that admits nothing', () => {
    const out = unroll({ type: 'object', properties: { next: { $ref: '#' } }, required: ['next'] }, { depth: 5 })
    assert.deepEqual(out, { not: {} })
    assert.equal(compileForm(out, '/')({}), false)
  })

  it('returns a form without recursion as a copy, and never changes its argument', () => {
    const form = { $defs: { name: { type: 'string' } }, type: 'object', properties: { a: { $ref: '#/$defs/name' } } }
    const before = structuredClone(form)
    const out = unroll(form, { depth: 2 })
    assert.deepEqual(out, form)
    assert.notEqual(out, form)
    unroll({ $defs: { n: { items: { $ref: '#/$defs/n' } } }, $ref: '#/$defs/n' }, { depth: 2 })
    assert.deepEqual(form, before)
  })

  it('keeps names apart: a definition off the cycle keeps its own, the levels take free ones', () => {
    const form = {
      $defs: { node: { type: 'array', items: { anyOf: [{ $ref: '#/$defs/node1' }, { $ref: '#/$defs/node' }] } }, node1: { type: 'integer' } },
      $ref: '#/$defs/node'
    }
    const out = unroll(form, { depth: 2 })
    assert.deepEqual(Object.keys(out.$defs as object), ['node1', 'node_1', 'node_2'])
    assert.equal(compileForm(out, '/')([[1], 2]), true)
    assert.equal(compileForm(out, '/')([[[1]]]), false)
  })

  it('refuses what it cannot unroll, saying why and where', () => {
    const cases: Array<[object, RegExp]> = [
      [{ $ref: 'https://example.com/other' }, /\$ref at \/\$ref \("https:\/\/example.com\/other"\) leaves the form/],
      [{ $defs: { a: { $anchor: 'a' } }, $ref: '#a' }, /names an \$anchor/],
      [{ properties: { a: { $ref: '#/$defs/missing' } } }, /the \$ref at \/properties\/a\/\$ref .* does not resolve/],
      [{ properties: { a: { $ref: '#/items/01' } }, items: [] }, /does not resolve/],
      [{ properties: { a: { $ref: '#/%E0%A4%A' } } }, /not a valid URI fragment/],
      [{ properties: { a: { $ref: '#/required' } }, required: ['a'] }, /names a value that is not a schema/],
      [{ $defs: { a: { $dynamicRef: '#node' } } }, /"\$dynamicRef" at \/\$defs\/a resolves at run time/],
      [{ $dynamicAnchor: 'node' }, /"\$dynamicAnchor" at the root/],
      [{ $defs: { a: { $id: 'a.json', $ref: '#' } } }, /"\$id" at \/\$defs\/a starts a resource of its own/],
      [{ $ref: 3 }, /is not a string/]
    ]
    for (const [form, message] of cases) {
      assert.throws(() => unroll(form, { depth: 2 }), (error: Error & { code?: string }) => error.code === 'GPT_ERR_UNROLL' && message.test(error.message), JSON.stringify(form))
    }
    for (const depth of [0, -1, 1.5, Number.NaN, '3']) {
      assert.throws(() => unroll({}, { depth: depth as number }), GPT_ERR_UNROLL)
    }
    assert.throws(() => unroll([] as object, { depth: 1 }), /must be a JSON Schema object/)
  })

  it('follows a $ref to a schema that stands outside every applicator', () => {
    const form = { $ref: '#/default', default: { type: 'array', items: { $ref: '#/default' } } }
    const out = unroll(form, { depth: 2 })
    const validate = compileForm(out, '/')
    assert.equal(validate([[]]), true)
    assert.equal(validate([[[]]]), false)
  })
})
