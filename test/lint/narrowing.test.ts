// Values a form admits that a converter's grammar never writes (test/helpers/narrowing.ts), against
// lint's decoder-tightens findings, decided by XGrammar's own converter and matcher (llama.cpp's
// grammar is not asked yet: docs/decisions.md).
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import fc from 'fast-check'
import type { Json } from '../../src/form/compile.ts'
import { corpus, randomForm } from '../fixtures/lint-forms.ts'
import { narrowing, narrowsOn, type Accepts } from '../helpers/narrowing.ts'
import { accepts, compile, release } from '../helpers/xgrammar.ts'

const byXGrammar = (form: Json): Accepts => async (texts) => {
  const compiled = await compile(form)
  if (!('grammar' in compiled)) return undefined
  try {
    const out: boolean[] = []
    for (const text of texts) out.push(await accepts(compiled.grammar, text))
    return out
  } finally {
    release(compiled.grammar)
  }
}

describe('lint\'s xgrammar profile: what the form admits that XGrammar never writes', () => {
  it('on the corpus, each value XGrammar never writes is foreseen, and each narrowing said of a bound is shown', async (t) => {
    const n = narrowing()
    for (const form of Object.values(corpus)) await narrowsOn(form, 'xgrammar', byXGrammar(form), n)
    t.diagnostic(`${n.forms} forms, ${n.values} values, ${n.narrowed.length} never written`)
    assert.deepEqual(n.unforeseen, [])
    assert.deepEqual(n.unshown, [])
    assert.ok(n.narrowed.length > 0 && n.values > 200, JSON.stringify({ ...n, narrowed: n.narrowed.length }))
  })

  it('on a date-time: a T or Z in lower case is never written, and that is foreseen', async () => {
    const n = narrowing()
    const form: Json = { type: 'object', properties: { at: { type: 'string', format: 'date-time' } }, required: ['at'], additionalProperties: false }
    await narrowsOn(form, 'xgrammar', byXGrammar(form), n)
    assert.deepEqual(n.unforeseen, [])
    assert.ok(n.narrowed.some((label) => label.includes('2026-12-03t10:00:00z')), JSON.stringify(n))
    assert.ok(!n.narrowed.some((label) => label.includes('2026-12-03T10:00:00Z')), JSON.stringify(n))
  })

  it('on random forms, and on numbers with one bound, two or none', async (t) => {
    const n = narrowing()
    const numbers = fc.record({ type: fc.constantFrom('number', 'integer'), minimum: fc.constantFrom(-5, 0, 0.5, 3), maximum: fc.constantFrom(-2, 10), exclusiveMinimum: fc.constantFrom(-5, 0) }, { requiredKeys: ['type'] })
      .map((a): Json => ({ type: 'object', properties: { a }, required: ['a'], additionalProperties: false }))
    const forms = [...fc.sample(randomForm, { numRuns: 60, seed: 20261203 }), ...fc.sample(numbers, { numRuns: 40, seed: 20261203 })]
    for (const form of forms) await narrowsOn(form, 'xgrammar', byXGrammar(form), n, 8)
    t.diagnostic(`${n.forms} forms, ${n.values} values, ${n.narrowed.length} never written`)
    assert.deepEqual(n.unforeseen, [])
    assert.deepEqual(n.unshown, [])
    assert.ok(n.narrowed.length > 10 && n.forms > 40, JSON.stringify({ ...n, narrowed: n.narrowed.length }))
  })
})
