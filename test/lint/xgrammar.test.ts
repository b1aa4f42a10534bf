// lint's xgrammar profile against XGrammar's own converter: test/helpers/lint-check.ts says how.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import fc from 'fast-check'
import { check, tally } from '../helpers/lint-check.ts'
import { corpus, corpusBodies, randomForm } from '../fixtures/lint-forms.ts'
import { XGRAMMAR } from '../helpers/xgrammar.ts'

describe('lint\'s xgrammar profile, against XGrammar\'s converter', () => {
  it('agrees on the corpus: README, example and hand-written forms', async () => {
    const t = tally()
    for (const [label, form] of Object.entries(corpus)) await check(XGRAMMAR, form, t, label, corpusBodies[label])
    assert.deepEqual(t.refusedDisagreed, [])
    assert.deepEqual(t.loosenedUnshown, [])
    assert.deepEqual(t.exactBroken, [])
    assert.ok(t.exact > 0 && t.loosenedShown > 0 && t.forms > 20, JSON.stringify(t))
  })

  it('agrees on random forms', async () => {
    const t = tally()
    for (const form of fc.sample(randomForm, { numRuns: 150, seed: 20261201 })) await check(XGRAMMAR, form, t, 'random')
    assert.deepEqual(t.refusedDisagreed, [])
    assert.deepEqual(t.loosenedUnshown, [])
    assert.deepEqual(t.exactBroken, [])
    assert.ok(t.forms > 100 && t.exact > 10 && t.loosenedShown > 50, JSON.stringify(t))
  })
})
