// lint's llama-cpp profile against llama.cpp's own converter and grammar: test/helpers/lint-check.ts
// says how, test/helpers/llama-cpp.ts how llama.cpp is asked.
import assert from 'node:assert/strict'
import { after, describe, it } from 'node:test'
import fc from 'fast-check'
import { check, tally } from '../helpers/lint-check.ts'
import { corpus, corpusBodies, randomForm } from '../fixtures/lint-forms.ts'
import { close, compile, LLAMA_CPP, verdicts } from '../helpers/llama-cpp.ts'

describe('lint\'s llama-cpp profile, against llama.cpp\'s converter', () => {
  after(close)

  it('asks the grammar truly: a text it takes whole though it could go on is taken, one cut short or past its end is not', async () => {
    const compiled = await compile({ type: 'integer' })
    assert.ok('grammar' in compiled)
    assert.deepEqual(await verdicts(compiled.grammar, ['3', '30', '0', '-4', '3.5', '03', '']), [true, true, true, true, false, false, false])
    const object = await compile({ type: 'object', properties: { a: { type: 'integer' } } })
    assert.ok('grammar' in object)
    assert.deepEqual(await verdicts(object.grammar, ['{"a":3}', '{"a":3', '{}', '{"a":3}}']), [true, false, true, false])
  })

  it('writes an object for an allOf it cannot merge, never the integer the form admits (the profile\'s finding)', async () => {
    const compiled = await compile({ allOf: [{ type: 'integer', minimum: 0 }] })
    assert.ok('grammar' in compiled)
    assert.deepEqual(await verdicts(compiled.grammar, ['0', '3', '{}']), [false, false, true])
  })

  it('writes the empty string for a minLength beside maxLength 0 (the profile\'s finding)', async () => {
    const compiled = await compile({ type: 'string', minLength: 3, maxLength: 0 })
    assert.ok('grammar' in compiled)
    assert.deepEqual(await verdicts(compiled.grammar, ['""', '"abc"', '"a"']), [true, false, false])
  })

  it('writes a raw backslash in the name of an additional member that starts as a listed one (the profile\'s finding)', async () => {
    const compiled = await compile({ type: 'object', properties: { ab: { const: 1 } }, additionalProperties: { type: 'integer' } })
    assert.ok('grammar' in compiled)
    assert.deepEqual(await verdicts(compiled.grammar, ['{"a\\":1}', '{"ab":1}', '{"x\\":1}']), [true, true, false])
  })

  it('agrees on the corpus: README, example and hand-written forms', async (t) => {
    const n = tally()
    for (const [label, form] of Object.entries(corpus)) await check(LLAMA_CPP, form, n, label, corpusBodies[label])
    t.diagnostic(JSON.stringify(n))
    assert.deepEqual(n.refusedDisagreed, [])
    assert.deepEqual(n.loosenedUnshown, [])
    assert.deepEqual(n.exactBroken, [])
    assert.ok(n.exact > 0 && n.loosenedShown > 0 && n.forms > 20, JSON.stringify(n))
  })

  it('agrees on random forms', async (t) => {
    const n = tally()
    for (const form of fc.sample(randomForm, { numRuns: 60, seed: 20261204 })) await check(LLAMA_CPP, form, n, 'random')
    t.diagnostic(JSON.stringify(n))
    assert.deepEqual(n.refusedDisagreed, [])
    assert.deepEqual(n.loosenedUnshown, [])
    assert.deepEqual(n.exactBroken, [])
    assert.ok(n.forms > 40 && n.exact > 5 && n.loosenedShown > 20, JSON.stringify(n))
  })
})
