// A property-based search for forms that keep the checker from a verdict: hostile bounds
// (1e9 items, 1e5 members), patterns that backtrack, unions of recursive $refs, huge enums, deep
// nesting. Whatever the form, the generator and near-misses stay within their bounds and `check`
// resolves to a report in which every skip says why.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import fc from 'fast-check'
import { check } from '../../src/check/run.ts'
import { generate, random, MAX_ITEMS, MAX_LENGTH, MAX_MEMBERS } from '../../src/check/generate.ts'
import { nearMisses, NEAR_BYTES, NEAR_MAX } from '../../src/check/near-miss.ts'
import { values } from '../../src/check/extent.ts'
import type { Response, Send } from '../../src/check/types.ts'

const huge = fc.constantFrom(0, 1, 3, 1000, 100_000, 1_000_000, 1e9, 2 ** 31)
const PATTERNS = ['^([a-z]+)+[0-9]$', '^(a|a)*$', '^(a+)+b$', '[a-z]{3}', '^$', '(x+x+)+y']

/** Schemas built from hostile pieces; `$ref`s point at `#/$defs/n`, which the form defines recursively. */
const { schema } = fc.letrec<{ schema: object }>((tie) => ({
  schema: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.record({ type: fc.constantFrom('string', 'integer', 'array', 'object', 'number') }),
    fc.record({ type: fc.constant('string'), minLength: huge, maxLength: huge, pattern: fc.constantFrom(...PATTERNS) }, { requiredKeys: ['type'] }),
    fc.record({ type: fc.constant('array'), minItems: huge, maxItems: huge, items: tie('schema'), uniqueItems: fc.boolean() }, { requiredKeys: ['type'] }),
    fc.record({ type: fc.constant('object'), minProperties: huge, maxProperties: huge, required: fc.array(fc.string(), { maxLength: 3 }), additionalProperties: tie('schema') }, { requiredKeys: ['type'] }),
    fc.record({ anyOf: fc.array(tie('schema'), { minLength: 1, maxLength: 4 }) }),
    fc.record({ oneOf: fc.array(fc.oneof(tie('schema'), fc.constant({ $ref: '#/$defs/n' })), { minLength: 1, maxLength: 4 }) }),
    fc.record({ allOf: fc.array(tie('schema'), { minLength: 1, maxLength: 3 }) }),
    fc.record({ not: tie('schema') }),
    fc.constant({ $ref: '#/$defs/n' }),
    fc.integer({ min: 1, max: 50_000 }).map((n) => ({ enum: Array.from({ length: n }, (_, i) => `v${i}`) })),
    fc.integer({ min: 1, max: 3000 }).map((depth) => {
      let s: object = { type: 'integer' }
      for (let i = 0; i < depth; i++) s = { items: s }
      return s
    })
  )
}))

const hostileForm = fc.tuple(schema, schema).map(([top, n]) => ({ ...top, $defs: { n: { anyOf: [n, { $ref: '#/$defs/n' }] } } }))

describe('hostile forms, searched', () => {
  it('the generator and the near-misses never build past their bounds, nor throw', () => {
    fc.assert(fc.property(hostileForm, fc.integer(), (form, seed) => {
      const rng = random(seed)
      for (let i = 0; i < 5; i++) {
        const failure: { why?: string } = {}
        const generated = generate(form, rng, i === 0, failure)
        if (generated === undefined) continue
        const text = JSON.stringify(generated.value)
        // a value holds at most the steps it took, each within the length bound
        assert.ok(values(Buffer.from(text)) <= 3 * 10_000 + 1 && text.length <= 10_000 * (MAX_LENGTH + 16), `${text.length} bytes`)
        // every change proposed is judged refused for its keyword, so all are built
        const { found } = nearMisses(generated, (value) => ({ valid: false, keywords: new Set([String(JSON.stringify(value)).length > 0 ? 'x' : 'y']), locations: [] }))
        assert.equal(found.length, 0)
        const seen = nearMisses(generated, () => ({ valid: false, keywords: new Set(['maxLength', 'maxItems', 'maxProperties']), locations: [] }))
        for (const miss of seen.found) assert.ok(JSON.stringify(miss.value).length <= text.length + Math.max(NEAR_BYTES, 4 * NEAR_MAX) + 64)
      }
    }), { numRuns: 60, seed: 20261201 })
    assert.ok(MAX_ITEMS <= NEAR_MAX && MAX_MEMBERS <= NEAR_MAX)
  })

  it('check resolves to a report on every form, each skip saying why', async () => {
    await fc.assert(fc.asyncProperty(hostileForm, async (form) => {
      const arrival = Buffer.from(JSON.stringify({ p: 'hostile', m: [], s: form }))
      const send: Send = async (request) => request.method === 'GET'
        ? { status: 200, headers: { 'content-type': 'application/json' }, body: arrival } satisfies Response
        : { status: 204, headers: {}, body: new Uint8Array(0) }
      const report = await check(send, 'hostile', { acts: 1, judgeTimeout: 400, timeLimit: 60, bodySize: 1024 })
      assert.ok(report.results.length > 10)
      for (const result of report.results) if (result.outcome === 'skip') assert.ok((result.detail ?? '') !== '', result.id)
      // a form past a bound makes the run unfinished, and says which
      if (report.results.some((r) => r.outcome === 'skip' && /more than the checker builds|no verdict within|could not judge|too (deep|large) to check/.test(r.detail ?? ''))) {
        assert.ok(report.unfinished !== undefined)
      }
    }), { numRuns: 20, seed: 20261201 })
  })
})
