import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import fc from 'fast-check'
import { lint } from '../../src/lint/index.ts'
import { refCycles } from '../../src/lint/recursion.ts'

type Json = null | boolean | number | string | Json[] | { [key: string]: Json }
type Obj = Record<string, Json>
const isObj = (value: unknown): value is Obj => value !== null && typeof value === 'object' && !Array.isArray(value)

// ---- The expected answer, written apart from src/lint: a graph over every subschema pointer ------
// An edge from each schema to each subschema it applies, and from each `$ref` to its target; a
// `$ref` recurses when its target leads back to the schema holding it. `$defs` apply nowhere by
// themselves, so a definition is a node but not a child of the schema holding it.
const ONE = ['items', 'additionalProperties', 'not', 'contains', 'propertyNames', 'if', 'then', 'else', 'unevaluatedItems', 'unevaluatedProperties']
const LIST = ['prefixItems', 'allOf', 'anyOf', 'oneOf']
const MAP = ['properties', 'patternProperties', 'dependentSchemas']
const DEFS = ['$defs', 'definitions']
const token = (key: string): string => key.split('~').join('~0').split('/').join('~1')

interface Oracle {
  /** Every subschema pointer. */
  readonly pointers: string[]
  /** Pointer → subschemas it applies. */
  readonly contains: Map<string, string[]>
  /** `$ref` pointer (ending "/$ref") → the holder's and the target's pointers. */
  readonly refs: Map<string, { holder: string, target: string }>
}

function oracle (form: Json): Oracle {
  const pointers: string[] = []
  const contains = new Map<string, string[]>()
  const raw: Array<[string, string]> = []
  const visit = (schema: Json, at: string): void => {
    pointers.push(at)
    const kids: string[] = []
    contains.set(at, kids)
    if (!isObj(schema)) return
    if (typeof schema['$ref'] === 'string') raw.push([at, schema['$ref']])
    for (const [key, value] of Object.entries(schema)) {
      const here = `${at}/${token(key)}`
      const subs: Array<[string, Json]> = ONE.includes(key)
        ? [[here, value]]
        : LIST.includes(key) && Array.isArray(value)
          ? value.map((item, i) => [`${here}/${i}`, item])
          : (MAP.includes(key) || DEFS.includes(key)) && isObj(value)
              ? Object.entries(value).map(([name, item]) => [`${here}/${token(name)}`, item])
              : []
      for (const [pointer, sub] of subs) {
        if (!DEFS.includes(key)) kids.push(pointer)
        visit(sub, pointer)
      }
    }
  }
  visit(form, '')
  const refs = new Map<string, { holder: string, target: string }>()
  for (const [holder, ref] of raw) {
    const target = decodeURIComponent(ref.slice(1))
    if (contains.has(target)) refs.set(`${holder}/$ref`, { holder, target })
  }
  return { pointers, contains, refs }
}

/** Whether `to` is reached from `from`, through containment and (unless `refs` is false) `$ref`s. */
function reaches (o: Oracle, from: string, to: string, refs = true): boolean {
  const seen = new Set([from])
  const queue = [from]
  for (let here = queue.shift(); here !== undefined; here = queue.shift()) {
    if (here === to) return true
    const next = [...(o.contains.get(here) ?? []), ...(refs ? [...o.refs.values()].filter((r) => r.holder === here).map((r) => r.target) : [])]
    for (const n of next) if (!seen.has(n)) { seen.add(n); queue.push(n) }
  }
  return false
}

const onCycle = (o: Oracle): Set<string> =>
  new Set([...o.refs].filter(([, { holder, target }]) => reaches(o, target, holder)).map(([at]) => at))

// ---- Random forms built to find cycles ---------------------------------------------------------
// `$ref: <number>` is a slot, filled once the form is built with a pointer to one of its own
// subschemas (or to its `$defs` map, which is no schema): ancestors, the holder itself, a
// definition nested in another, the `items` of a member of another definition...
const name = fc.constantFrom('a', 'b', 'x/y', 'm~n', '~01', 'p%q', 'items', 'é')
const { schema } = fc.letrec<{ schema: Json }>((tie) => ({
  schema: fc.oneof({ depthSize: 'small', withCrossShrink: true },
    fc.constant<Json>({ type: 'string' }),
    { arbitrary: fc.record({ $ref: fc.nat() }), weight: 3 },
    { arbitrary: fc.record({ $ref: fc.nat(), items: tie('schema') }), weight: 2 },
    fc.record({ type: fc.constant('array'), items: tie('schema') }),
    fc.record({ prefixItems: fc.array(tie('schema'), { minLength: 1, maxLength: 2 }) }),
    fc.record({ properties: fc.dictionary(name, tie('schema'), { minKeys: 1, maxKeys: 3 }) }),
    fc.record({ additionalProperties: tie('schema') }),
    fc.record({ anyOf: fc.array(tie('schema'), { minLength: 1, maxLength: 3 }) }),
    fc.record({ allOf: fc.array(tie('schema'), { minLength: 1, maxLength: 2 }) }),
    fc.record({ not: tie('schema') }),
    fc.record({ $defs: fc.dictionary(name, tie('schema'), { minKeys: 1, maxKeys: 3 }), rest: tie('schema') })
      .map(({ $defs, rest }): Json => (isObj(rest) ? { ...(rest as Obj), $defs: $defs as Obj } : { $defs: $defs as Obj })))
}))

const form: fc.Arbitrary<Json> = fc.record({
  $defs: fc.dictionary(name, schema, { maxKeys: 4 }),
  body: schema,
  encode: fc.array(fc.boolean(), { minLength: 1, maxLength: 8 })
}).map(({ $defs, body, encode }) => {
  const defs = $defs as Obj
  const out = structuredClone(isObj(body) ? { ...(body as Obj), $defs: { ...defs, ...(isObj(body['$defs']) ? body['$defs'] : {}) } } : { $defs: defs }) as Json
  const targets = [...oracle(out).pointers, '/$defs']
  let n = 0
  // Percent-encode the whole token, or only what must be ("%"): both name the same schema.
  const fragment = (pointer: string): string => '#' + pointer.split('/').slice(1)
    .map((t) => `/${encode[n++ % encode.length] === true ? encodeURIComponent(t) : t.replaceAll('%', '%25')}`).join('')
  const fill = (value: Json): void => {
    if (Array.isArray(value)) value.forEach(fill)
    else if (isObj(value)) {
      if (typeof value['$ref'] === 'number') value['$ref'] = fragment(targets[value['$ref'] % targets.length] as string)
      Object.values(value).forEach(fill)
    }
  }
  fill(out)
  return out
})

const recursionFindings = (f: Json): string[] =>
  lint(f, { decoders: [] }).filter((finding) => finding.rule === 'recursion-unbounded').map((finding) => finding.pointer)

describe('§4.2 recursion, against a graph over every subschema', () => {
  it('reports a finding exactly when the form recurses, each at a $ref on a cycle', () => {
    fc.assert(fc.property(form, (f) => {
      const o = oracle(f)
      const cyclic = onCycle(o)
      const found = recursionFindings(f)
      assert.equal(found.length > 0, cyclic.size > 0)
      for (const pointer of found) assert.ok(cyclic.has(pointer), `${pointer} is on no cycle`)
      assert.deepEqual([...refCycles(f).cyclic].sort(), [...cyclic].sort())
    }), { numRuns: 400 })
  })

  it('lists each cycle\'s $refs in order: from each target, the next $ref is met without another', () => {
    fc.assert(fc.property(form, (f) => {
      const o = oracle(f)
      for (const cycle of refCycles(f).cycles) {
        assert.equal(cycle.pointer, cycle.refs.at(-1))
        assert.ok(cycle.refs.length <= cycle.length)
        const round = cycle.refs.map((at) => o.refs.get(at) as { holder: string, target: string })
        // The list may keep only the last $refs of a long cycle: then it does not wrap round.
        const pairs = round.length === cycle.length ? round.length : round.length - 1
        for (let i = 0; i < pairs; i++) {
          const next = round[(i + 1) % round.length] as { holder: string }
          assert.ok(reaches(o, (round[i] as { target: string }).target, next.holder, false), `${cycle.refs.join(' → ')}`)
        }
      }
    }), { numRuns: 300 })
  })

  it('finds a cycle through a schema that contains another $ref target', () => {
    // #/$defs/a/items is a target too; the $ref inside it still leads back round a.
    const f = { $ref: '#/$defs/a/items', $defs: { a: { type: 'array', items: { anyOf: [{ type: 'string' }, { $ref: '#/$defs/a' }] } } } }
    assert.deepEqual(recursionFindings(f), ['/$defs/a/items/anyOf/1/$ref'])
  })

  it('does not count a definition as applied by the schema holding it', () => {
    assert.deepEqual(recursionFindings({ type: 'string', $defs: { a: { $ref: '#' } } }), [])
    assert.deepEqual(recursionFindings({ $defs: { a: { items: { $ref: '#/$defs/a' } } } }), ['/$defs/a/items/$ref'])
  })

  it('follows a chain of 20,000 definitions round, and shortens the list it prints', () => {
    const count = 20_000
    const $defs = Object.fromEntries(Array.from({ length: count }, (_, i) => [`d${i}`, { type: 'array', items: { $ref: `#/$defs/d${(i + 1) % count}` } }]))
    const { cycles, cyclic } = refCycles({ $ref: '#/$defs/d0', $defs })
    assert.equal(cycles.length, 1)
    assert.equal(cyclic.size, count)
    assert.equal(cycles[0]?.length, count)
    assert.ok((cycles[0]?.refs.length ?? Infinity) < 20)
  })
})
