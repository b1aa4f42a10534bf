// The bound on the work of a form's patterns (docs/patterns.md): every pattern an address accepts
// costs at most STEPS_PER_CHAR steps per character of the text it is tested on, and so per byte of
// the body. Counted, never timed.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'
import { compilePattern, MAX_STATES, patternWork, PatternError, STEPS_PER_CHAR, type LinearPattern } from '../../../src/form/pattern/pattern.ts'
import { BIT_STEPS_PER_CHAR } from '../../../src/form/pattern/bits.ts'
import { compileForm, freezeJson, type Json } from '../../../src/form/compile.ts'
import { host, registrationError } from '../../helpers/host.ts'
import { ab } from '../../helpers/texts.ts'
import { patternOf } from './arbitraries.ts'

const SEED = 20261202
const BODY = 65_536

/** The address's bound for one test of m on text. */
function assertBound (m: LinearPattern, text: string, what: string): void {
  assert.ok(m.states <= MAX_STATES, `${what}: ${m.states} states`)
  assert.ok(m.steps <= STEPS_PER_CHAR * (text.length + 1), `${what}: ${m.steps} steps on ${text.length} characters`)
}

// each with an independent answer: none of these texts has a surrogate, so offsets are code points
const worst: Array<[string, string, boolean]> = [
  ['[^<>]{1,4000}$', `${'x'.repeat(BODY - 1)}<`, false],
  ['[^<>]{1,4000}$', 'x'.repeat(BODY), true],
  ['(a|b)*a(a|b){1660}$', `${ab(BODY - 1, 1)}c`, false],
  ['(a|b)*a(a|b){1660}$', `${ab(BODY - 1661, 2)}a${'b'.repeat(1660)}`, true],
  ['^[\\s\\S]*x[\\s\\S]{9990}$', 'y'.repeat(BODY), false],
  ['^[\\s\\S]*x[\\s\\S]{9990}$', 'x'.repeat(BODY), true],
  ['^[\\s\\S]*x[\\s\\S]{9990}$', `${'x'.repeat(BODY - 9991)}y${'x'.repeat(9990)}`, false]
]

// patterns with counts up to 5,000, groups, alternations and anchors, and what costs a matcher
// most: long runs of the pattern's own characters, ending where it fails
const bigUnit = fc.constantFrom('a', 'b', 'x', '<', '[^<>]', '[ab]', '(a|b)', '.', '[\\s\\S]', '\\w', '(?:a|x)')
const big = fc.oneof(fc.nat(12), fc.integer({ min: 0, max: 5000 }))
const quantifier = fc.oneof(
  fc.constantFrom('', '*', '+', '?', '*?'),
  fc.tuple(big, big, fc.nat(2)).map(([x, y, kind]) => kind === 0 ? `{${x}}` : kind === 1 ? `{${x},}` : `{${Math.min(x, y)},${Math.max(x, y)}}`))
const bigPattern = patternOf(bigUnit, quantifier, ['^', '$', '\\b'], 4)
const repetitive = fc.tuple(fc.array(fc.constantFrom('a', 'b', 'x', '<', 'y'), { minLength: 1, maxLength: 4 }),
  fc.integer({ min: 1, max: 6000 }), fc.constantFrom('', '<', 'c', 'a')).map(([unit, k, end]) => unit.join('').repeat(k) + end)

describe('patterns with many states', () => {
  it('are compiled, and answer a 64 KB text within the bound, with work that does not grow with the count', () => {
    for (const [source, text, expected] of worst) {
      const m = compilePattern(source)
      assert.equal(m.test(text), expected, `/${source}/u`)
      assertBound(m, text, `/${source}/u`)
      // the same shape with a count of 10, on the same matcher, costs about as much: the count is
      // a number, not copies
      const small = compilePattern(source.replace(/\d{4}/, '10'), { counting: true })
      small.test(text)
      assert.ok(m.steps <= 2 * small.steps + 100, `/${source}/u: ${m.steps} steps, ${small.steps} with a count of 10`)
      assert.ok(m.steps <= 16 * (text.length + 1), `/${source}/u: ${m.steps} steps on ${text.length}`)
    }
  })

  it('stop reading when no thread is left: an anchored count ends with its most', () => {
    for (const source of ['^[a-z]{1,100}$', '^(?:a|b){3,200}x']) {
      const m = compilePattern(source)
      assert.equal(m.dfa, null, `/${source}/u runs on the simulation, with a counter`)
      assert.equal(m.test('a'.repeat(BODY)), false)
      assert.ok(m.steps < 20 * 200, `/${source}/u: ${m.steps} steps on ${BODY} characters`)
    }
  })

  it('hold a pattern near the limit, whose DFA would need 2^18 states, to the bound on its worst text', () => {
    // copied, not counted: the lazy DFA thrashes and hands over to the simulation
    const m = compilePattern('(a|b)*a(a|b){17}$')
    assert.ok(m.states > MAX_STATES - 10 && m.dfa !== null, `${m.states} states`)
    const worstText = `${ab(BODY - 1, 3)}c`
    assert.equal(m.test(worstText), false)
    assertBound(m, worstText, '(a|b)*a(a|b){17}$')
    assert.ok((m.dfa?.bails ?? 0) > 0, JSON.stringify(m.dfa))
    const accepted = `${ab(BODY - 18, 4)}a${'b'.repeat(17)}`
    assert.equal(m.test(accepted), true)
    assertBound(m, accepted, '(a|b)*a(a|b){17}$')
  })

  it('after the DFA gives up on copies too wide for one word, run the pattern counted, as V8 answers', () => {
    // the copies of `{k}` need more than 32 positions and fit within 80 instructions: the lazy DFA
    // runs them, thrashes on a text, and the tests it then skips run the counted pattern
    // a class is one position and one instruction a copy, `(a|b)` two positions and four instructions
    const repeated = fc.oneof(fc.tuple(fc.constantFrom('[ab]', '.', '\\w', '[^c]'), fc.integer({ min: 32, max: 70 })),
      fc.tuple(fc.constant('(a|b)'), fc.integer({ min: 16, max: 17 })))
    const pattern = fc.tuple(fc.constantFrom('', '^', '\\b', 'x'), repeated, fc.constantFrom('$', '', 'b', '\\b'))
      .map(([before, [u, k], after]) => `${before}(?:a|b)*a${u}{${k}}${after}`)
    // random runs of a and b long enough to thrash the DFA, and short texts of other characters too
    const text = fc.oneof(
      fc.tuple(fc.integer({ min: 100, max: 1500 }), fc.nat(), fc.constantFrom('', 'c', ' x', 'a'.repeat(80))).map(([n, seed, end]) => ab(n, seed) + end),
      fc.array(fc.constantFrom('a', 'b', 'x', 'c', ' ', 'é'), { maxLength: 80 }).map(cs => cs.join('')))
    let narrow = 0
    fc.assert(fc.property(pattern, fc.array(text, { minLength: 2, maxLength: 6 }), (source, texts) => {
      const m = compilePattern(source, { dfaCells: 1 })
      const counted = compilePattern(source, { counting: true })
      const oracle = new RegExp(source, 'u')
      assert.ok(m.states > 32 && m.states <= MAX_STATES && m.dfa !== null && counted.states < 16, `/${source}/u: ${m.states} and ${counted.states} states`)
      for (const t of texts) {
        assert.equal(m.test(t), oracle.test(t), `/${source}/u on ${JSON.stringify(t)}`)
        assertBound(m, t, `/${source}/u`)
      }
      narrow += m.dfa?.counted ?? 0
    }), { seed: SEED + 4, numRuns: 200 })
    assert.ok(narrow > 100, `${narrow} tests ran on the pattern counted`)
  })

  it('count as V8 does, on random texts and counts around their edges', () => {
    // one-code-point elements, counted at every kind of quantifier, beside what can make them ambiguous
    const unit = fc.constantFrom('a', '[ab]', '(a|b)', '(?:a|\\u{1F600})', '.', '[^a]', '\\w', '\\p{L}', 'é')
    const count = fc.tuple(fc.nat(9), fc.nat(6), fc.constantFrom('', 'max', 'open')).map(([n, extra, kind]) =>
      kind === 'max' ? `{${n},${n + extra}}` : kind === 'open' ? `{${n},}` : `{${n}}`)
    const piece = fc.oneof(
      fc.tuple(unit, count, fc.boolean()).map(([u, c, lazy]) => `${u}${c}${lazy ? '?' : ''}`),
      fc.tuple(unit, fc.constantFrom('', '*', '+', '?')).map(([u, q]) => u + q),
      fc.constantFrom('^', '$', '\\b', 'b', '-'))
    const pattern = fc.array(fc.array(piece, { minLength: 1, maxLength: 4 }).map(ps => ps.join('')), { minLength: 1, maxLength: 2 }).map(xs => xs.join('|'))
    const text = fc.array(fc.constantFrom('a', 'b', 'é', '-', ' ', '😀', '\ud83d', 'a'), { maxLength: 24 }).map(cs => cs.join(''))
    let counters = 0
    fc.assert(fc.property(pattern, fc.array(text, { minLength: 1, maxLength: 5 }), (source, texts) => {
      const oracle = new RegExp(source, 'u')
      // counted on the bit-parallel simulation, on the simulation of all paths, and as usual
      const ms = [compilePattern(source, { counting: true }), compilePattern(source, { counting: true, bits: false }), compilePattern(source)]
      if ((ms[0] as LinearPattern).states < (ms[2] as LinearPattern).states) counters++
      for (const t of texts) {
        for (const m of ms) {
          assert.equal(m.test(t), oracle.test(t), `/${source}/u on ${JSON.stringify(t)}`)
          assertBound(m, t, `/${source}/u`)
        }
      }
    }), { seed: SEED, numRuns: 1500 })
    assert.ok(counters > 500, `${counters} patterns had a counter`)
  })

  it('a search over patterns with large counts and repetitive texts finds none over the bound', () => {
    let accepted = 0
    let refused = 0
    let most = 0
    fc.assert(fc.property(bigPattern, fc.array(repetitive, { minLength: 1, maxLength: 3 }), (source, texts) => {
      let m: LinearPattern
      try {
        m = compilePattern(source)
      } catch (error) {
        assert.ok(error instanceof PatternError, String(error))
        refused++
        return
      }
      accepted++
      for (const t of texts) {
        m.test(t)
        assertBound(m, t, `/${source}/u`)
        most = Math.max(most, m.steps / (t.length + 1))
      }
    }), { seed: SEED + 1, numRuns: 400 })
    // the search must meet both outcomes, and report how close it came
    assert.ok(accepted > 100 && refused > 20, `${accepted} accepted, ${refused} refused`)
    assert.ok(most < STEPS_PER_CHAR, `at most ${most} steps per character`)
  })
})

describe('the bit-parallel simulation', () => {
  /** Its bound for one test of m on text, run alone (no DFA): a constant per character, whatever the states. */
  function assertBitBound (m: LinearPattern, text: string, what: string): void {
    assert.ok(m.bitParallel && m.dfa === null, `${what}: runs on the bit-parallel simulation alone`)
    assert.ok(m.steps <= BIT_STEPS_PER_CHAR * (text.length + 1), `${what}: ${m.steps} steps on ${text.length} characters`)
  }

  it('answers the worst pattern near the limit in a few steps per character, however many states', () => {
    // independent answers (V8 backtracks on these for minutes): the text ends with c, so no `$`
    // pattern matches; a random run of a and b has an a with 17 more after it
    for (const [source, expected] of [['(a|b)*a(a|b){17}$', false], ['\\b(a|b)*a(a|b){15}\\b$', false], ['^(a|b)*a(a|b){17}', true], ['(a|b)*a(a|b){3}$', false]] as const) {
      const m = compilePattern(source, { dfaCells: 0 })
      const worstText = `${ab(BODY - 1, 3)}c`
      assert.equal(m.test(worstText), expected, source)
      assertBitBound(m, worstText, source)
      // one look-up per chunk of 8 positions, the start, the character: at most 80/8 + 3
      assert.ok(m.steps <= (Math.ceil(m.states / 8) + 3) * (worstText.length + 1), `/${source}/u: ${m.steps} steps`)
      // and the DFA, which thrashes on it, hands over to it within the address's bound
      const usual = compilePattern(source)
      for (let i = 0; i < 3; i++) {
        assert.equal(usual.test(worstText), expected, source)
        assertBound(usual, worstText, source)
      }
    }
  })

  it('a search over patterns near the limit, with assertions and classes outside ASCII, finds none over its bound', () => {
    const unit = fc.constantFrom('a', 'b', 'é', '😀', '[ab]', '(a|b)', '.', '[\\s\\S]', '\\w', '\\p{L}', '[^a]', '(?:a|😀)')
    const quantifier = fc.constantFrom('', '*', '+', '?', '{2}', '{0,3}', '{5}', '{8,9}', '{2,}')
    const alternatives = patternOf(unit, quantifier, ['^', '$', '\\b', '\\B'], 5)
    const piece = fc.constantFrom('a', 'b', 'é', '😀', '\ud83d', ' ', '-', 'ab', 'ba', 'aaaa')
    const texts = fc.array(fc.tuple(fc.array(piece, { minLength: 1, maxLength: 4 }), fc.integer({ min: 1, max: 400 }), fc.constantFrom('', 'c', '😀'))
      .map(([unit, k, end]) => unit.join('').repeat(k) + end), { minLength: 1, maxLength: 3 })
    let ran = 0
    let most = 0
    fc.assert(fc.property(alternatives, texts, (source, ts) => {
      let m: LinearPattern
      try {
        m = compilePattern(source, { dfaCells: 0 })
      } catch (error) {
        assert.ok(error instanceof PatternError, String(error))
        return
      }
      if (!m.bitParallel) return
      ran++
      // V8 backtracks: it is the oracle on the texts' short prefixes only
      const oracle = new RegExp(source, 'u')
      for (const t of ts) {
        const short = t.slice(0, 12)
        assert.equal(m.test(short), oracle.test(short), `/${source}/u on ${JSON.stringify(short)}`)
        assertBitBound(m, short, `/${source}/u`)
        m.test(t)
        assertBitBound(m, t, `/${source}/u`)
        most = Math.max(most, m.steps / (t.length + 1))
      }
    }), { seed: SEED + 2, numRuns: 400 })
    assert.ok(ran > 150, `${ran} patterns ran on the bit-parallel simulation`)
    assert.ok(most < BIT_STEPS_PER_CHAR, `at most ${most} steps per character`)
  })

  it('runs a pattern with counters, each a position with its queue, within its bound and a few steps per character', () => {
    const cases: Array<[string, string, boolean]> = [
      ...worst,
      // two counters, the first emptied at every third character, the second never entered but at the end
      ['\\b[a-z]{3,400}[0-9]{2,90}\\b', `${'ab1'.repeat(BODY / 3)}`, false],
      ['\\b[a-z]{3,400}[0-9]{2,90}\\b', `${'ab1'.repeat(BODY / 3)} abc12`, true]
    ]
    for (const [source, text, expected] of cases) {
      const m = compilePattern(source)
      assert.ok(m.states < 16, `/${source}/u: ${m.states} states, counted`)
      assert.equal(m.test(text), expected, `/${source}/u`)
      assertBitBound(m, text, `/${source}/u`)
      // a look-up per chunk, the start, the character; per counter an entry, a read, a run of entries leaving
      const counters = (source.match(/\{\d/g) ?? []).length
      assert.ok(m.steps <= (Math.ceil(m.states / 8) + 3 + 3 * counters) * (text.length + 1), `/${source}/u: ${m.steps} steps`)
    }
  })

  it('runs patterns with counters on it, the simulation of all paths only when asked', () => {
    assert.equal(compilePattern('[^<>]{1,4000}$').bitParallel, true)
    assert.equal(compilePattern('[^<>]{1,4000}$', { bits: false }).bitParallel, false)
    assert.equal(compilePattern('(a|b)*a(a|b){17}$').bitParallel, true)
    assert.equal(compilePattern('(a|b)*a(a|b){17}$', { bits: false }).bitParallel, false)
  })
})

describe('at the address', () => {
  const form = (pattern: string) => ({
    type: 'object',
    properties: { text: { type: 'string', pattern } },
    patternProperties: { [pattern]: { type: 'string' } }
  })

  it('accepts the patterns with many states and holds a 64 KB act to the bound per byte of body', async () => {
    for (const [source, text] of [['[^<>]{1,4000}$', 'x'], ['(a|b)*a(a|b){1660}$', 'a'], ['^[\\s\\S]*x[\\s\\S]{9990}$', 'y']] as const) {
      const { app } = await host({ form: form(source) })
      // the string and a member name, both matched, both as long as the body allows
      const fill = (length: number) => `${text.repeat(length - 1)}<`
      const body = JSON.stringify({ text: fill(BODY / 2 - 20), [fill(BODY / 2 - 20)]: 'v' })
      const before = patternWork.steps
      const response = await app.inject({ method: 'POST', url: '/', payload: body, headers: { 'content-type': 'application/json' } })
      const steps = patternWork.steps - before
      assert.equal(response.statusCode, 204, source)
      assert.ok(steps > BODY / 2, `/${source}/u: ${steps} steps: the patterns ran`)
      assert.ok(steps <= STEPS_PER_CHAR * body.length, `/${source}/u: ${steps} steps for ${body.length} bytes`)
      await app.close()
    }
  })

  it('a search over patterns and bodies finds no body over the bound per byte, and V8 agrees on the small ones', () => {
    // every member name is matched by patternProperties, and every string of its array by pattern:
    // a body is valid when each name the pattern matches holds only strings it matches too
    const form = (pattern: string): Json => freezeJson({
      type: 'object',
      patternProperties: { [pattern]: { type: 'array', items: { type: 'string', pattern } } }
    }, '/')
    const small = fc.array(fc.constantFrom('a', 'b', 'x', '<', 'y', ' ', 'é', '😀'), { maxLength: 10 }).map(cs => cs.join(''))
    const body = (text: fc.Arbitrary<string>) => fc.dictionary(text, fc.array(text, { maxLength: 3 }), { minKeys: 1, maxKeys: 3 })
    let compiled = 0
    let valid = 0
    let most = 0
    fc.assert(fc.property(bigPattern, body(repetitive), body(small), (source, large, short) => {
      let validate: (value: unknown) => unknown
      try {
        validate = compileForm(form(source), '/')
      } catch (error) {
        assert.equal((error as { code?: string }).code, 'GPT_ERR_FORM_PATTERN', String(error))
        return
      }
      compiled++
      // the independent oracle: V8's own RegExp with the u flag, on texts too short to make it backtrack long
      const oracle = new RegExp(source, 'u')
      const expected = Object.entries(short).every(([name, texts]) => !oracle.test(name) || texts.every(t => oracle.test(t)))
      assert.equal(validate(short), expected, `/${source}/u on ${JSON.stringify(short)}`)
      if (expected) valid++
      for (const value of [short, large]) {
        const before = patternWork.steps
        validate(value)
        const bytes = JSON.stringify(value).length
        const steps = patternWork.steps - before
        assert.ok(steps <= STEPS_PER_CHAR * bytes, `/${source}/u: ${steps} steps for ${bytes} bytes`)
        most = Math.max(most, steps / bytes)
      }
    }), { seed: SEED + 3, numRuns: 300 })
    assert.ok(compiled > 100 && valid > 20 && compiled - valid > 20, `${compiled} forms compiled, ${valid} small bodies valid`)
    assert.ok(most < STEPS_PER_CHAR, `at most ${most} steps per byte`)
  })

  it('refuses a pattern over the bound with GPT_ERR_FORM_PATTERN, its JSON Pointer, why and how to rewrite it', async () => {
    for (const [form, at, advice] of [
      [{ type: 'string', pattern: '^(?:ab){1,4000}$' }, '/pattern', /the repetition "\(\?:ab\)\{1,4000\}" at offset 1 copies what it repeats once per count\. Use smaller counts/],
      [{ properties: { a: { pattern: 'x(a|bc){100}' } } }, '/properties/a/pattern', /more than 80 states, and every character of the text may visit each of them/],
      [{ patternProperties: { [`^(?:${Array.from({ length: 40 }, (_, i) => `w${i}`).join('|')})$`]: {} } }, '/patternProperties/^(?:w0|w1', /the pattern is too long: .*"enum" does the same/]
    ] as const) {
      const error = await registrationError({ form }, '/poll')
      assert.ok(error instanceof Error, 'registration must fail')
      assert.equal((error as Error & { code: string }).code, 'GPT_ERR_FORM_PATTERN')
      assert.ok(error.message.includes(` at ${at}`), error.message)
      assert.match(error.message, advice)
      assert.ok(error.message.includes(`bounded by ${STEPS_PER_CHAR} steps`), error.message)
    }
  })
})
