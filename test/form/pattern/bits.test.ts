// The bit-parallel simulation (src/form/pattern/bits.ts) keeps its hot loop whole for speed, twice:
// runNarrow for a set of one word, runWide for three. Both must answer alike, in the same steps.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'
import { BitSimulation } from '../../../src/form/pattern/bits.ts'
import { automaton, compile } from '../../../src/form/pattern/compiler.ts'
import { MAX_STATES, PatternError } from '../../../src/form/pattern/pattern.ts'
import { NARROW_POSITIONS, positions } from '../../../src/form/pattern/positions.ts'
import { patternOf } from './arbitraries.ts'

const SEED = 20261203

// patterns of one word of positions or less: classes outside ASCII, assertions, counts, which
// counted make one counter or several
const unit = fc.constantFrom('a', 'b', 'é', '😀', '[ab]', '(a|b)', '.', '\\w', '\\p{L}', '[^a]', '(?:a|😀)')
const quantifier = fc.constantFrom('', '', '*', '+', '?', '{2}', '{0,3}', '{3,7}', '{2,}', '{0,40}')
const alternatives = patternOf(unit, quantifier, ['^', '$', '\\b', '\\B'], 4)
const piece = fc.constantFrom('a', 'b', 'é', '😀', '\ud83d', ' ', '-', 'ab', 'aaaa')
const text = fc.tuple(fc.array(piece, { minLength: 1, maxLength: 4 }), fc.integer({ min: 1, max: 60 }), fc.constantFrom('', 'c', '😀'))
  .map(([u, k, end]) => u.join('').repeat(k) + end)
const short = fc.array(piece, { maxLength: 6 }).map(ps => ps.join(''))

describe('the twin loops of the bit-parallel simulation', () => {
  it('agree, answer and steps, on the same texts from the start and from an offset with live instructions', () => {
    const counted = { none: 0, one: 0, several: 0 }
    let matched = 0
    fc.assert(fc.property(alternatives, fc.boolean(), fc.array(fc.oneof(short, text), { minLength: 1, maxLength: 4 }),
      fc.array(fc.nat(), { maxLength: 4 }), fc.nat(), (source, counting, texts, picks, offset) => {
        let m
        try {
          m = automaton(compile(source, MAX_STATES, counting).code)
        } catch (error) {
          assert.ok(error instanceof PatternError, String(error))
          return
        }
        if (positions(m.op) > NARROW_POSITIONS) return
        // each twin on its own simulation, so that the tables each fills are its own
        const narrow = BitSimulation.for(m) as BitSimulation
        const wide = BitSimulation.for(m) as BitSimulation
        const counters = m.countMin.length
        counted[counters === 0 ? 'none' : counters === 1 ? 'one' : 'several']++
        const oracle = new RegExp(source, 'u')
        const seeds = Int32Array.from(picks, pick => pick % m.states)
        for (const t of texts) {
          const found = narrow.runNarrow(t, 0, null)
          assert.equal(wide.runWide(t, 0, null), found, `/${source}/u on ${JSON.stringify(t)}`)
          assert.equal(wide.steps, narrow.steps, `/${source}/u on ${JSON.stringify(t)}: steps`)
          // V8 backtracks: the oracle on short texts only
          if (t.length <= 12) assert.equal(found, oracle.test(t), `/${source}/u on ${JSON.stringify(t)}: V8`)
          if (found) matched++
          const from = offset % (t.length + 1)
          assert.equal(wide.runWide(t, from, seeds), narrow.runNarrow(t, from, seeds), `/${source}/u on ${JSON.stringify(t)} from ${from}, seeds ${seeds.join()}`)
          assert.equal(wide.steps, narrow.steps, `/${source}/u on ${JSON.stringify(t)} from ${from}, seeds ${seeds.join()}: steps`)
        }
      }), { seed: SEED, numRuns: 1500 })
    // both answers, and each way of counting, must be met
    assert.ok(counted.none > 200 && counted.one > 100 && counted.several > 100, JSON.stringify(counted))
    assert.ok(matched > 500, `${matched} matches`)
  })
})
