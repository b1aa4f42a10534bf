// Which patterns get a one-line input (src/page/one-line.ts). A one-line input drops line feeds and
// carriage returns, so calling a pattern one line must never hide a value it admits: the regular
// expression engine itself, run on texts with line breaks, is the judge.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import fc from 'fast-check'
import { oneLine } from '../../src/page/one-line.ts'

// Atoms that never match a line break, and atoms that may.
const FLAT = ['a', 'B', '-', '\\d', '\\S', '\\w', '.', '[a-z]', '[A-Z\\-]', '\\p{L}', '[\\b]', '\\.', '(?:a|b)', '(x)\\1']
const BREAKING = ['\\D', '\\s', '\\W', '[^a]', '\\n', '\\r', '[\\s\\S]', '\\P{L}', '[\\n]', '(?:a|\\n)', '\\u000a', '\\x0d', '[^]']
const QUANTIFIERS = ['', '*', '+', '?', '{2}', '{0,3}']

const atom = (atoms: readonly string[]): fc.Arbitrary<string> =>
  fc.tuple(fc.constantFrom(...atoms), fc.constantFrom(...QUANTIFIERS)).map(([a, q]) => a + q)
const sequence = (atoms: readonly string[]): fc.Arbitrary<string> => fc.array(atom(atoms), { maxLength: 4 }).map((parts) => parts.join(''))
const anchored = (atoms: readonly string[]): fc.Arbitrary<string> => sequence(atoms).map((body) => `^${body}$`)

const pattern = fc.oneof(
  anchored([...FLAT, ...BREAKING]),
  sequence([...FLAT, ...BREAKING]),
  fc.tuple(anchored(FLAT), anchored(FLAT)).map(([a, b]) => `${a}|${b}`),
  fc.tuple(sequence(FLAT), sequence(FLAT)).map(([a, b]) => `^${a}|${b}$`)
)
const text = fc.array(fc.constantFrom('a', 'B', 'x', '1', '-', '.', ' ', 'é', '\n', '\r'), { maxLength: 6 }).map((c) => c.join(''))
const broken = fc.tuple(text, fc.constantFrom('\n', '\r', '\r\n'), text).map(([a, b, c]) => a + b + c)

describe('one-line patterns', () => {
  it('never calls one line a pattern that admits a text with a line break', () => {
    let judged = 0
    fc.assert(fc.property(pattern, fc.array(broken, { minLength: 1, maxLength: 8 }), (p, texts) => {
      if (!oneLine(p)) return
      judged++
      const compiled = new RegExp(p, 'u')
      for (const t of texts) assert.equal(compiled.test(t), false, `${JSON.stringify(p)} admits ${JSON.stringify(t)}`)
    }), { numRuns: 2000 })
    assert.ok(judged > 200, `only ${judged} patterns were one line: the search proved little`)
  })

  it('calls one line every pattern anchored at both ends and made of atoms that match no line break', () => {
    fc.assert(fc.property(fc.array(anchored(FLAT), { minLength: 1, maxLength: 3 }), (alternatives) => {
      assert.equal(oneLine(alternatives.join('|')), true, alternatives.join('|'))
    }), { numRuns: 500 })
  })

  it('is not one line where an alternative is unanchored, an atom may match a break, or the pattern does not parse', () => {
    for (const p of ['[A-Z]{3}', '^abc', 'abc$', '^a|b$', '^(?:a)|b', '^a\\sb$', '^[^<>]*$', '^(a$', '(^a$)']) assert.equal(oneLine(p), false, p)
    for (const atom of BREAKING) assert.equal(oneLine(`^x${atom}y$`), false, atom)
  })
})
