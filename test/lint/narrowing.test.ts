// Values a form admits that a converter's grammar never writes (test/helpers/narrowing.ts), against
// lint's decoder-tightens findings, decided by XGrammar's own converter and matcher, and by
// llama.cpp's own converter and grammar sampler (test/helpers/llama-cpp.ts).
import assert from 'node:assert/strict'
import { after, describe, it, type TestContext } from 'node:test'
import fc from 'fast-check'
import type { Json } from '../../src/form/compile.ts'
import { corpus, randomForm } from '../fixtures/lint-forms.ts'
import { narrowing, narrowsOn, type Accepts, type Narrowing } from '../helpers/narrowing.ts'
import type { DecoderName } from '../../src/lint/index.ts'
import { accepts, compile, release } from '../helpers/xgrammar.ts'
import * as llama from '../helpers/llama-cpp.ts'

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

// Asked 64 texts at a time, as the near-miss check asks; a text the made model cannot spell is
// counted as written, so that it is never blamed.
const byLlama = (form: Json): Accepts => async (texts) => {
  const compiled = await llama.compile(form)
  if (!('grammar' in compiled)) return undefined
  const out: boolean[] = []
  for (let i = 0; i < texts.length; i += 64) out.push(...(await llama.verdicts(compiled.grammar, texts.slice(i, i + 64))).map((v) => v !== false))
  return out
}

const numbers = fc.record({ type: fc.constantFrom('number', 'integer'), minimum: fc.constantFrom(-5, 0, 0.5, 3), maximum: fc.constantFrom(-2, 10), exclusiveMinimum: fc.constantFrom(-5, 0) }, { requiredKeys: ['type'] })
  .map((a): Json => ({ type: 'object', properties: { a }, required: ['a'], additionalProperties: false }))
const RANDOM = [...fc.sample(randomForm, { numRuns: 60, seed: 20261203 }), ...fc.sample(numbers, { numRuns: 40, seed: 20261203 })]
const field = (schema: Json): Json => ({ type: 'object', properties: { at: schema }, required: ['at'], additionalProperties: false })

/** Searches the forms; every value never written must be foreseen, and every narrowing said of a bound shown. */
async function search (t: TestContext, decoder: DecoderName, by: (form: Json) => Accepts, forms: readonly Json[], seeds?: number): Promise<Narrowing> {
  const n = narrowing()
  for (const form of forms) await narrowsOn(form, decoder, by(form), n, seeds)
  t.diagnostic(`${n.forms} forms, ${n.values} values, ${n.narrowed.length} never written`)
  assert.deepEqual(n.unforeseen, [])
  assert.deepEqual(n.unshown, [])
  return n
}
const summary = (n: Narrowing): string => JSON.stringify({ ...n, narrowed: n.narrowed.length })

describe('lint\'s xgrammar profile: what the form admits that XGrammar never writes', () => {
  it('on the corpus, each value XGrammar never writes is foreseen, and each narrowing said of a bound is shown', async (t) => {
    const n = await search(t, 'xgrammar', byXGrammar, Object.values(corpus))
    assert.ok(n.narrowed.length > 0 && n.values > 200, summary(n))
  })

  it('on a date-time and a time: a t or z in lower case is never written, nor a leap second in a date-time, and that is foreseen', async (t) => {
    const n = await search(t, 'xgrammar', byXGrammar, [field({ type: 'string', format: 'date-time' }), field({ type: 'string', format: 'time' })])
    const never = ['2026-12-03t10:00:00z', '2016-12-31T23:59:60Z', '10:00:00z']
    assert.deepEqual(never.filter((text) => !n.narrowed.includes(`["at"]: {"at":"${text}"}`)), [], JSON.stringify(n))
    assert.ok(!n.narrowed.some((label) => label.includes('2026-12-03T10:00:00Z') || label.includes('"10:00:00Z"')), JSON.stringify(n))
  })

  it('on random forms, and on numbers with one bound, two or none', async (t) => {
    const n = await search(t, 'xgrammar', byXGrammar, RANDOM, 8)
    assert.ok(n.narrowed.length > 10 && n.forms > 40, summary(n))
  })
})

describe('lint\'s llama-cpp profile: what the form admits that llama.cpp never writes', () => {
  after(llama.close)

  it('on the corpus, each value llama.cpp never writes is foreseen, and each narrowing said of a bound is shown', async (t) => {
    const n = await search(t, 'llama-cpp', byLlama, Object.values(corpus))
    // the strings of a block's children, behind a $ref the converter never resolves, among them
    assert.ok(n.narrowed.some((label) => label.startsWith('[]: {"children":["')) && n.values > 200, summary(n))
  })

  it('on a date-time and a time: a t or z in lower case, a fraction not of three digits, a leap second are never written, and that is foreseen', async (t) => {
    const n = await search(t, 'llama-cpp', byLlama, [field({ type: 'string', format: 'date-time' }), field({ type: 'string', format: 'time' })])
    const never = ['2026-12-03t10:00:00z', '2026-12-03T10:00:00.5Z', '2016-12-31T23:59:60Z', '10:00:00z', '10:00:00.5Z', '23:59:60Z']
    assert.deepEqual(never.filter((text) => !n.narrowed.includes(`["at"]: {"at":"${text}"}`)), [], JSON.stringify(n))
    assert.ok(!n.narrowed.some((label) => label.includes('2026-12-03T10:00:00Z') || label.includes('"10:00:00Z"')), JSON.stringify(n))
  })

  it('on an integer behind a $ref to a $ref: only an object is written, so no value the form admits is, and that is foreseen', async (t) => {
    const n = await search(t, 'llama-cpp', byLlama, [{ $ref: '#/$defs/a', $defs: { a: { $ref: '#/$defs/b' }, b: { type: 'integer', minimum: 0, maximum: 9 } } }])
    assert.ok(n.values > 0 && n.narrowed.length === n.values, JSON.stringify(n))
  })

  it('on random forms, and on numbers with one bound, two or none', async (t) => {
    const n = await search(t, 'llama-cpp', byLlama, RANDOM, 8)
    assert.ok(n.narrowed.length > 0 && n.forms > 40, summary(n))
  })
})
