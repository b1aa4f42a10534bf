// The linear-time pattern matcher (src/form/pattern/pattern.ts), against V8's backtracking RegExp with the u flag
// as the oracle on short texts, and against its own step bound on long ones.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'
import { Ajv2020 } from 'ajv/dist/2020.js'
import { compilePattern, linearRegExp, MAX_STATES, PatternError, STEPS_PER_CHAR, type LinearPattern, type PatternOptions } from '../../../src/form/pattern/pattern.ts'

const SEED = 20261201

/** The documented bound on the work of one test (src/form/pattern/pattern.ts, docs/patterns.md). */
function withinBound (m: LinearPattern, text: string): boolean {
  return m.steps <= 16 * (m.states + 1) * (text.length + 1)
}

// the ways a pattern runs: the lazy DFA with its usual cache, the DFA with a cache of about two
// states (flushing at almost every new state, then handing over to the bit-parallel simulation),
// the bit-parallel simulation alone, every repetition of one character or class counted (on the
// bit-parallel simulation, then on the simulation of all paths), and the second and third again
// with the simulation of all paths instead
const CACHES = [{}, { dfaCells: 1 }, { dfaCells: 0 }, { counting: true }, { counting: true, bits: false }, { dfaCells: 1, bits: false }, { dfaCells: 0, bits: false }] as const
const compileEach = (source: string, extra: PatternOptions = {}): LinearPattern[] => CACHES.map(options => compilePattern(source, { ...options, ...extra }))

function agrees (pattern: string, text: string): void {
  const expected = new RegExp(pattern, 'u').test(text)
  for (const m of compileEach(pattern)) assert.equal(m.test(text), expected, `/${pattern}/u on ${JSON.stringify(text)}`)
}

// ---- random patterns, rendered to source, over a small alphabet with the awkward characters ----

// lone surrogates that form a pair when adjacent, a line terminator \n is not the only one, an
// astral character, a word character outside ASCII
const ALPHABET = ['a', 'b', 'A', '0', '_', '-', ' ', '\n', '\u2028', 'é', '😀', '\ud83d', '\ude00', '.', 'ſ']
const SYNTAX = new Set('^$\\.*+?()[]{}|/')

const codePoint = (c: string): number => c.codePointAt(0) as number
const hex = (c: string): string => codePoint(c).toString(16)

/** One character of ALPHABET as a pattern writes it: raw, escaped, or as a code point escape. */
const written = (inClass: boolean) => fc.tuple(fc.constantFrom(...ALPHABET), fc.nat(3)).map(([c, how]) => {
  const cp = codePoint(c)
  if (how === 0) return `\\u{${hex(c)}}`
  if (how === 1 && cp <= 0xffff) return `\\u${hex(c).padStart(4, '0')}`
  if (c === '\n') return how === 2 ? '\\cJ' : '\\n'
  if (SYNTAX.has(c) || (inClass && c === '-')) return `\\${c}`
  return c
})

const ESCAPES = ['\\d', '\\w', '\\s', '\\D', '\\W', '\\S', '\\p{L}', '\\P{L}', '\\p{Lu}', '\\p{Script=Latin}',
  '\\p{Emoji_Presentation}', '\\p{Cs}', '\\P{Any}']
const range = fc.tuple(fc.constantFrom(...ALPHABET), fc.constantFrom(...ALPHABET)).map(([x, y]) => {
  const [lo, hi] = codePoint(x) <= codePoint(y) ? [x, y] : [y, x]
  const w = (c: string): string => SYNTAX.has(c) || c === '-' ? `\\${c}` : c === '\n' ? '\\n' : `\\u{${hex(c)}}`
  return `${w(lo)}-${w(hi)}`
})
const characterClass = fc.tuple(fc.boolean(), fc.array(fc.oneof(written(true), range, fc.constantFrom(...ESCAPES)), { maxLength: 4 }))
  .map(([negate, items]) => `[${negate ? '^' : ''}${items.join('')}]`)
const QUANTIFIERS = ['*', '+', '?', '{0}', '{1}', '{2}', '{0,2}', '{1,3}', '{2,}', '{0,}', '{3}']
const quantifier = fc.tuple(fc.constantFrom(...QUANTIFIERS), fc.boolean()).map(([q, lazy]) => lazy ? `${q}?` : q)

const { alternatives } = fc.letrec<{ atom: string, element: string, sequence: string, alternatives: string }>(tie => ({
  atom: fc.oneof({ depthIdentifier: 'pattern', maxDepth: 3 },
    written(false), fc.constant('.'), characterClass, fc.constantFrom(...ESCAPES),
    fc.tuple(fc.constantFrom('(', '(?:', '(?<N>'), tie('alternatives')).map(([open, body]) => `${open}${body})`)),
  element: fc.oneof({ depthIdentifier: 'pattern' },
    tie('atom'),
    fc.tuple(tie('atom'), quantifier).map(([atom, q]) => atom + q),
    fc.constantFrom('^', '$', '\\b', '\\B')),
  sequence: fc.array(tie('element'), { maxLength: 4, depthIdentifier: 'pattern' }).map(xs => xs.join('')),
  alternatives: fc.array(tie('sequence'), { minLength: 1, maxLength: 3, depthIdentifier: 'pattern' }).map(xs => xs.join('|'))
}))
// group names must differ within a pattern
const pattern = alternatives.map(source => {
  let n = 0
  return source.replace(/\(\?<N>/g, () => `(?<g${n++}>`)
})

const anyCodeUnitOrPoint = fc.oneof(
  fc.integer({ min: 0, max: 0xffff }).map(c => String.fromCharCode(c)),
  fc.integer({ min: 0, max: 0x10ffff }).map(c => String.fromCodePoint(c)))
const text = (maxLength: number) => fc.array(fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...ALPHABET) },
  { weight: 1, arbitrary: anyCodeUnitOrPoint }), { maxLength }).map(cs => cs.join(''))

describe('agreement with RegExp(pattern, "u").test', () => {
  it('agrees on random patterns and texts, lone surrogates included, however the pattern runs', () => {
    const outcomes = { true: 0, false: 0 }
    let flushes = 0
    let bails = 0
    fc.assert(fc.property(pattern, fc.array(text(8), { minLength: 1, maxLength: 6 }), (source, texts) => {
      const ms = compileEach(source)
      const oracle = new RegExp(source, 'u')
      for (const t of texts) {
        const expected = oracle.test(t)
        for (const m of ms) {
          assert.equal(m.test(t), expected, `/${source}/u on ${JSON.stringify(t)}, DFA ${JSON.stringify(m.dfa)}`)
          assert.ok(withinBound(m, t))
        }
        outcomes[`${expected}`]++
      }
      flushes += ms[1]?.dfa?.flushes ?? 0
      bails += ms[1]?.dfa?.bails ?? 0
    }), { seed: SEED, numRuns: 4000 })
    // the generator must exercise both answers, and the tiny cache its flushes and hand-overs
    assert.ok(outcomes.true > 2000 && outcomes.false > 2000, JSON.stringify(outcomes))
    assert.ok(flushes > 1000 && bails > 100, `${flushes} flushes, ${bails} hand-overs`)
  })

  it('agrees on texts written from the pattern\'s own characters', () => {
    fc.assert(fc.property(pattern, fc.array(fc.nat(), { maxLength: 10 }), (source, picks) => {
      // the pattern's characters, decoded as code points, are the likeliest to make it match
      const chars = [...new RegExp(source, 'u').source].filter(c => !SYNTAX.has(c))
      const t = chars.length === 0 ? '' : picks.map(i => chars[i % chars.length]).join('')
      agrees(source, t)
    }), { seed: SEED + 1, numRuns: 3000 })
  })

  it('agrees on the constructs whose ECMA-262 semantics are easy to get wrong', () => {
    const cases: [string, string[]][] = [
      ['a||b', ['', 'c']], ['(|a)+$', ['', 'b', 'aab']], ['(a*)*$', ['', 'b', 'aaa']], ['(a*)+?b', ['b', 'aab', 'c']],
      ['(?:a?){3}b', ['b', 'aaab', 'aaaab']], ['^(?:a|ab)(?:c|bcd)$', ['abcd', 'abc', 'acd']],
      ['\\b', ['', ' ', 'a', '-a-']], ['\\B', ['', 'a', 'ab', ' ']], ['^\\b$', ['', 'a']], ['a\\b', ['a', 'ab', 'a-']],
      ['\\bé', ['é', ' é']], ['ſ\\b', ['ſ']], ['^\\w$', ['ſ', 'K', 'é']],
      ['^.$', ['\n', '\r', '\u2028', '\u2029', '\u0085', '😀', '\ud83d', '\ude00', '\ud83d\ude00', '\ude00\ud83d']],
      ['^..$', ['😀', '\ude00\ud83d', 'ab']], ['^[^a]$', ['😀', '\ud83d', 'a', '']], ['\\ud83d', ['😀', '\ud83d', 'x\ud83dx']],
      ['\\ude00', ['😀', '\ude00']], ['^\\ud83d\\ude00$', ['😀', '\ud83d\ude00']], ['^[\\ud83d\\ude00]$', ['😀', '\ud83d']],
      ['^[\\u{1F600}-\\u{1F64F}]+$', ['😀🙏', '😀a', '\ud83d']], ['^[^\\u{1F600}-\\u{1F64F}]$', ['😀', '\ud83d', '\u{1F650}']],
      ['^\\p{L}+$', ['Ωmega', 'abc1', 'ǅ', '日本']], ['^\\p{Lu}$', ['a', 'A', 'Ω', 'ω']], ['^\\P{L}$', ['1', 'a', '😀']],
      ['^\\p{Script=Greek}+$', ['αβγ', 'abc']], ['^\\s$', ['\ufeff', '\u00a0', '\u180e', '\u3000', '\u2028', '\v']],
      ['^\\d$', ['٣', '3']], ['a^b', ['ab', 'a^b']], ['(^a|b)c', ['ac', 'xac', 'bc']], ['(?:a$|b)c', ['ac', 'bc', 'a']],
      ['a$', ['a\n', 'ba']], ['^$', ['', '\n']], ['x(?<n>a|b)*y', ['xy', 'xaby', 'xcy']], ['\\cJ', ['\n']],
      ['^[\\d\\-z]$', ['-', '5', 'z', 'y']], ['^[]$', ['', 'a']], ['^[^]$', ['\n', '😀']], ['a{2,3}?$', ['aaaa', 'a']],
      ['\\0', ['\0']], ['^[\\b]$', ['\b']], ['^\\x41\\u0042\\u{43}$', ['ABC']], ['^\\/$', ['/']]
    ]
    for (const [source, texts] of cases) for (const t of texts) agrees(source, t)
  })
})

// ---- linear time, proved by counting steps ----

describe('linear time', () => {
  const adversarial: [string, (n: number) => string, boolean][] = [
    ['^(a+)+$', n => `${'a'.repeat(n)}!`, false],
    ['(a|a)*b', n => 'a'.repeat(n), false],
    ['(a|aa)+$', n => `${'a'.repeat(n)}!`, false],
    ['^(\\w+\\s?)*$', n => `${'ab '.repeat(n / 3)}!`, false],
    ['(.*a){20}', n => `${'a'.repeat(19)}${'b'.repeat(n)}`, false],
    ['(.*a){20}', n => `${'a'.repeat(19)}${'b'.repeat(n)}a`, true],
    ['^(a|b|ab)*c$', n => `${'ab'.repeat(n / 2)}`, false],
    ['^([a-z0-9]+[-.])*[a-z0-9]+@x$', n => `${'a-'.repeat(n / 2)}@`, false]
  ]

  it('stays within 16 × (states + 1) × (length + 1) steps on catastrophic patterns, up to 100,000 characters', () => {
    for (const [source, make, expected] of adversarial) {
      // (.*a){20} has 81 states: more than a form may have, still linear
      for (const m of compileEach(source, { maxStates: 1000 })) {
        for (const n of [10, 100, 1000, 10_000, 100_000]) {
          const t = make(n)
          assert.equal(m.test(t), expected, `/${source}/u, n = ${n}`)
          if (n === 10) assert.equal(expected, new RegExp(source, 'u').test(t))
          assert.ok(withinBound(m, t), `/${source}/u, n = ${n}: ${m.steps} steps, ${m.states} states`)
          // the counter counts: a text that is read to its end costs at least a step per character
          assert.ok(m.steps >= n, `/${source}/u, n = ${n}: ${m.steps} steps`)
        }
      }
    }
  })

  it('stays within the bound on random patterns and repetitive texts', () => {
    const repetitive = fc.tuple(text(3), fc.integer({ min: 1, max: 1500 }), text(1)).map(([unit, k, end]) => unit.repeat(k) + end)
    fc.assert(fc.property(pattern, repetitive, (source, t) => {
      for (const m of compileEach(source)) {
        m.test(t)
        assert.ok(withinBound(m, t), `/${source}/u on ${t.length} characters: ${m.steps} steps, ${m.states} states`)
      }
    }), { seed: SEED + 2, numRuns: 1000 })
  })

  it('answers a long text as RegExp does where V8 is quick, with the work in the bound', () => {
    const m = compilePattern('^[a-z0-9-]+$')
    const t = `${'a-9'.repeat(30_000)}`
    assert.equal(m.test(t), true)
    assert.equal(m.test(`${t}_`), false)
    assert.ok(withinBound(m, `${t}_`))
  })
})

// ---- the lazy DFA: its states, assertions, alphabet and cache ----

describe('the lazy DFA', () => {
  // \b and \B hold between characters: the DFA decides them from the previous character, kept in
  // the state, and the next one, read in the transition
  const WORDY = ['a', 'b', '_', '0', ' ', '-', 'é', 'ſ', '😀', '\ud83d']
  const wordyText = (maxLength: number) => fc.array(fc.constantFrom(...WORDY), { maxLength }).map(cs => cs.join(''))

  it('decides \\b, \\B, ^ and $ as RegExp does, across positions and states', () => {
    const sources = ['\\bab\\b', '\\Ba', 'a\\B', '^\\b', '\\b$', '\\B$', '^\\B', '(?:\\b\\w+\\b\\W*){3}$', '\\b(?:a|_)+\\B0',
      '(?:^|\\b)b', '(?:a\\b|\\Bb)+$', '(?:\\b|-)+é', '^(?:\\w\\b\\W?)+$', '\\b\\B', '[^\\w]\\b']
    fc.assert(fc.property(fc.constantFrom(...sources), fc.array(wordyText(12), { minLength: 1, maxLength: 8 }), (source, texts) => {
      const ms = compileEach(source)
      for (const t of texts) {
        for (const m of ms) {
          assert.equal(m.test(t), new RegExp(source, 'u').test(t), `/${source}/u on ${JSON.stringify(t)}`)
          assert.ok(withinBound(m, t))
        }
      }
    }), { seed: SEED + 3, numRuns: 2000 })
  })

  it('classes astral characters and lone surrogates as RegExp does', () => {
    const sources = ['^[😀-🙏]+$', '😀\\b', '^.{3}$', '\\p{Emoji_Presentation}{2}', '^[^a😀]+$', '\\ud83d', '\\ude00$', '^\\P{L}*é',
      '(?:😀|\\ud83d)\\ude00', '^[\\ud800-\\udfff]+$', '^\\S+$']
    const ALPHABET_ASTRAL = ['😀', '🙏', '\u{1F650}', '\ud83d', '\ude00', 'a', 'é', ' ', '\u{10FFFF}']
    const astralText = fc.array(fc.constantFrom(...ALPHABET_ASTRAL), { maxLength: 10 }).map(cs => cs.join(''))
    fc.assert(fc.property(fc.constantFrom(...sources), fc.array(astralText, { minLength: 1, maxLength: 8 }), (source, texts) => {
      const ms = compileEach(source)
      for (const t of texts) for (const m of ms) assert.equal(m.test(t), new RegExp(source, 'u').test(t), `/${source}/u on ${JSON.stringify(t)}`)
    }), { seed: SEED + 4, numRuns: 1000 })
  })

  it('caches what it builds: a text of a shape seen before costs a step per character', () => {
    const m = compilePattern('^[a-z0-9-]+@[a-z]+\\.[a-z]{2,3}$')
    const shape = (name: string): string => `${name}@example.org`
    assert.equal(m.test(shape('first')), true)
    const built = m.dfa?.states ?? 0
    assert.ok(built > 5, `${built} states`)
    for (const name of ['other', 'abc', 'zyxwvu']) {
      const t = shape(name)
      assert.equal(m.test(t), true)
      // every character already has its transition: one step each, nothing built
      assert.equal(m.steps, t.length)
    }
    // a run of one character class is found by a sticky [...]* at a step per character too
    const long = shape('a'.repeat(10_000))
    assert.equal(m.test(long), true)
    assert.ok(m.steps <= long.length + 200, `${m.steps} steps`)
    assert.equal(m.test(`${long}!`), false)
  })

  it('fails an anchored pattern as soon as no thread is left', () => {
    const m = compilePattern('^ab')
    assert.equal(m.test(`x${'ab'.repeat(50_000)}`), false)
    assert.ok(m.steps < 50, `${m.steps} steps`)
    assert.equal(m.test(`ab${'x'.repeat(50_000)}`), true)
    assert.ok(m.steps < 50, `${m.steps} steps`)
  })

  it('flushes its cache when it blows up exponentially, and stays within the bound', () => {
    // a DFA for this pattern needs 2^13 states: more than the cache holds
    const source = '(a|b)*a(a|b){12}'
    // an independent answer: some run of a and b holds an a with 12 more characters after it
    const expected = (t: string): boolean => t.split(/[^ab]/).some(run => run.slice(0, -12).includes('a'))
    const abText = (min: number, max: number) => fc.array(fc.constantFrom('a', 'b'), { minLength: min, maxLength: max }).map(cs => cs.join(''))
    const ms = compileEach(source)
    fc.assert(fc.property(abText(0, 30), t => {
      for (const m of ms) {
        assert.equal(m.test(t), new RegExp(source, 'u').test(t), JSON.stringify(t))
        assert.ok(withinBound(m, t))
      }
    }), { seed: SEED + 5, numRuns: 500 })
    // blocks of 12 random a and b between c's: no match, and the states are the 2^12 blocks' tails
    const blocks = fc.array(abText(12, 12), { minLength: 2000, maxLength: 3000 })
    fc.assert(fc.property(blocks, fc.boolean(), (bs, end) => {
      const t = bs.join('c') + (end ? 'cab'.padEnd(16, 'b') : '')
      for (const m of ms) {
        assert.equal(m.test(t), expected(t))
        assert.equal(m.test(t), end)
        assert.ok(withinBound(m, t), `${m.steps} steps on ${t.length}`)
      }
    }), { seed: SEED + 6, numRuns: 6 })
    const [usual] = ms
    assert.ok((usual?.dfa?.flushes ?? 0) > 0 && (usual?.dfa?.bails ?? 0) > 0, JSON.stringify(usual?.dfa))
  })

  it('flushes when the text brings more classes of code points than a row holds', () => {
    // 40 literals outside ASCII: each its own class, more than the 32 a row keeps for them
    const chars = [...'一二三四五六七八九十百千万亿甲乙丙丁戊己庚辛壬癸子丑寅卯辰巳午未申酉戌亥东南西北春夏']
    const source = `^(?:${chars.join('|')})+$`
    const ms = compileEach(source, { maxStates: 1000 })
    fc.assert(fc.property(fc.array(fc.constantFrom(...chars, 'a'), { maxLength: 200 }), cs => {
      const t = cs.join('')
      for (const m of ms) {
        assert.equal(m.test(t), new RegExp(source, 'u').test(t), t)
        assert.ok(withinBound(m, t))
      }
    }), { seed: SEED + 7, numRuns: 300 })
    assert.ok((ms[0]?.dfa?.flushes ?? 0) > 0, JSON.stringify(ms[0]?.dfa))
  })

  it('leaves to the simulation a pattern whose ASCII classes outnumber its states', () => {
    // [ab][ac][ad]: a, b, c, d and the rest answer differently, 5 classes for 4 instructions
    const m = compilePattern('[ab][ac][ad]')
    assert.equal(m.dfa, null)
    for (const t of ['aaa', 'bcd', 'bcx', 'xxbaa']) assert.equal(m.test(t), /[ab][ac][ad]/u.test(t))
  })
})

// ---- what is refused, and how the form's author is told ----

function refusal (source: string): PatternError {
  try {
    compilePattern(source)
  } catch (error) {
    assert.ok(error instanceof PatternError, String(error))
    assert.equal(error.pattern, source)
    return error
  }
  assert.fail(`/${source}/u was compiled`)
}

describe('refusals', () => {
  it('refuses backreferences, numbered and named, saying where and how to rewrite', () => {
    const numbered = refusal('(a+)-\\1')
    assert.equal(numbered.index, 5)
    assert.match(numbered.message, /^the backreference "\\1" at offset 5 cannot be matched in linear time.*Repeat the group's pattern/)
    assert.match(refusal('(?<w>a)\\k<w>').message, /^the backreference "\\k<w>" at offset 7 /)
  })

  it('refuses lookaheads and lookbehinds, pointing to allOf or not', () => {
    assert.match(refusal('^(?=.*\\d).{8,}$').message, /^the lookahead "\(\?=\.\*\\d\)" at offset 1 cannot be matched in linear time.*"allOf"/)
    assert.match(refusal('^(?!admin$)').message, /^the negative lookahead "\(\?!admin\$\)" at offset 1 .*"not"/)
    assert.match(refusal('(?<=a)b').message, /^the lookbehind "\(\?<=a\)" at offset 0 /)
    assert.match(refusal('x(?<!a)b').message, /^the negative lookbehind "\(\?<!a\)" at offset 1 /)
  })

  it('refuses modifier groups, which this engine does not implement', () => {
    assert.match(refusal('(?i:a)b').message, /^the modifier group "\(\?i:a\)" at offset 0 is not supported: write the cases out/)
  })

  it('refuses what is not ECMA-262 with the u flag, saying what is wrong and where', () => {
    for (const [source, what] of [
      ['(a', /Unterminated group \(at offset 2\)$/],
      ['a{2,1}', /numbers out of order in \{\} quantifier/],
      ['[z-a]', /Range out of order in character class/],
      ['\\-', /Invalid escape/], // valid without u, where it is an identity escape
      ['\\p{Nope}', /Invalid property name/],
      ['a**', /Nothing to repeat/],
      ['\\u{110000}', /Invalid unicode escape/]
    ] as const) {
      assert.throws(() => new RegExp(source, 'u'), SyntaxError)
      assert.match(refusal(source).message, /^the pattern is not a valid ECMA-262 regular expression with the u flag: /)
      assert.match(refusal(source).message, what)
    }
  })

  it('refuses what this Node\'s RegExp refuses, so that the regex format and pattern agree', () => {
    // duplicate group names are ECMAScript 2025: the parser knows them, older V8 does not
    const source = '(?<y>a)|(?<y>b)'
    let node = true
    try {
      RegExp(source, 'u')
    } catch {
      node = false
    }
    if (node) agrees(source, 'b')
    else assert.match(refusal(source).message, /^the pattern is not a regular expression this Node.js accepts with the u flag: .*Duplicate capture group name/)
  })

  it('refuses an automaton larger than MAX_STATES, naming the repetition that expands and how to rewrite it', () => {
    const nested = refusal('x(ab{1,2}){1000}')
    assert.equal(nested.index, 1)
    assert.match(nested.message, new RegExp(`^the pattern compiles to more than ${MAX_STATES} states, and every character of the text may visit each of them ` +
      `\\(the work per character is bounded by ${STEPS_PER_CHAR} steps\\): the repetition "\\(ab\\{1,2\\}\\)\\{1000\\}" at offset 1 copies what it repeats once per count\\. ` +
      'Use smaller counts, or \\* or \\+ where any number will do \\(a repetition of one character or class, such as \\[a-z\\]\\{1,4000\\}, is counted, not copied\\)$'))
    assert.match(refusal('(?:ab){0,100}').message, /the repetition "\(\?:ab\)\{0,100\}" at offset 0/)
    assert.match(refusal('ab'.repeat(MAX_STATES / 2)).message, new RegExp(`^the pattern is too long: it compiles to more than ${MAX_STATES} states, .*"enum" does the same`))
    // the same character written out past the limit is its count
    assert.equal(compilePattern('a'.repeat(MAX_STATES)).states, 2)
    assert.equal(compilePattern(`x${'[ab]'.repeat(100)}y`).test(`x${'ab'.repeat(50)}y`), true)
    assert.equal(compilePattern(`x${'[ab]'.repeat(100)}y`).test(`x${'ab'.repeat(49)}y`), false)
    // the bound itself is allowed: MAX_STATES - 1 characters and the final MATCH
    assert.equal(compilePattern('a'.repeat(MAX_STATES - 1)).states, MAX_STATES)
    // a repetition of one character or class is counted, whatever its count
    assert.equal(compilePattern('.{0,10000}').states, 2)
    assert.equal(compilePattern(`a{${MAX_STATES}}`).test('a'.repeat(MAX_STATES)), true)
    assert.equal(compilePattern('x(?:a){1000}').states, 3)
  })

  it('refuses nesting deeper than the compiler can descend, without a stack overflow escaping', () => {
    assert.match(refusal(`${'('.repeat(50_000)}a${')'.repeat(50_000)}`).message, /nests groups too deeply/)
    // deep enough for the parser, perhaps too deep for the compiler: compiled right, or refused
    for (let depth = 200; depth <= 4000; depth += 200) {
      const source = `${'(?:a'.repeat(depth)}${')*'.repeat(depth)}`
      let m: LinearPattern
      try {
        m = compilePattern(source, { maxStates: 100_000 })
      } catch (error) {
        assert.ok(error instanceof PatternError && /nests groups too deeply/.test(error.message), String(error))
        continue
      }
      assert.equal(m.test('a'.repeat(depth)), true)
      assert.equal(m.test('b'), true)
    }
  })

  it('refuses flags other than u when called as Ajv\'s engine', () => {
    assert.throws(() => linearRegExp('a', ''), (error: unknown) => error instanceof PatternError && /flags "" are not supported/.test(error.message))
  })
})

// ---- as Ajv's engine ----

describe('as Ajv\'s code.regExp', () => {
  const ajv = new Ajv2020({ code: { regExp: linearRegExp }, unicodeRegExp: true, strict: true, allowMatchingProperties: true })

  it('enforces pattern and patternProperties, each pattern its own (Ajv keys them by toString)', () => {
    const validate = ajv.compile({
      type: 'object',
      properties: { slug: { type: 'string', pattern: '^[a-z0-9-]+$' }, day: { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}$' } },
      patternProperties: { '^x-\\p{L}+$': { type: 'number' } }
    })
    assert.notEqual(linearRegExp('a', 'u').toString(), linearRegExp('b', 'u').toString())
    assert.equal(validate({ slug: 'a-b', day: '2026-12-01', 'x-é': 1 }), true)
    assert.equal(validate({ slug: '2026-12-01', day: 'a-b' }), false)
    assert.equal(validate({ 'x-é': 'one' }), false)
    assert.equal(validate({ slug: `${'a'.repeat(100_000)}!` }), false)
  })

  it('lets a refusal out of compile, for the form to report', () => {
    assert.throws(() => ajv.compile({ type: 'string', pattern: '(a)\\1' }), PatternError)
  })
})
