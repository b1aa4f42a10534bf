// What a pattern matched against JSON text lets a decoder write (src/lint/wire.ts): each atom of
// the pattern is probed with the characters that change or break the text.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import fc from 'fast-check'
import { hasDot, textLeaks } from '../../src/lint/wire.ts'

describe('textLeaks: a pattern that, matched against the JSON text, writes what the parser refuses or reads otherwise', () => {
  it('finds "." and classes or escapes admitting a backslash, a quote or a control character', () => {
    for (const pattern of ['^.*$', '^a.b$', '^[^x]+$', '^\\s+$', '^\\S+$', '^\\W$', '^\\D$', '^[\\\\a]$', '^a"b$', '^\\x22$', '^\\u0009$', '^[\\t]$', '^\\P{L}$', '^[^\\]]$']) {
      assert.equal(textLeaks(pattern), true, pattern)
    }
  })
  it('passes patterns of letters, digits and escaped punctuation', () => {
    for (const pattern of ['^[a-z]{1,3}$', '^\\d+$', '^\\w+$', '^a\\.b$', '^[.]$', '^(ab|cd)*$', '^\\u0041+$', '^\\x41$', '^\\p{L}+$', '^[\\]a]$', '^[^\\x00-\\x7f]$']) {
      assert.equal(textLeaks(pattern), false, pattern)
    }
  })
  it('never leaks for a pattern built from letters, digits and classes of them', () => {
    const atom = fc.oneof(fc.constantFrom('a', 'b', 'Z', '0', '[a-c]', '[0-9]', '\\d', '\\w', '\\.', '[.]', '(?:ab)'), fc.constantFrom('[xyz]', '\\-'))
    const quantifier = fc.constantFrom('', '*', '+', '?', '{1,3}')
    fc.assert(fc.property(fc.array(fc.tuple(atom, quantifier), { minLength: 1, maxLength: 6 }), (parts) => {
      const pattern = `^${parts.map(([a, q]) => a + q).join('')}$`
      assert.equal(textLeaks(pattern), false, pattern)
    }))
  })
  it('always leaks once a "." or a negated class stands in such a pattern', () => {
    fc.assert(fc.property(fc.constantFrom('a', '[a-c]', '\\d'), fc.constantFrom('.', '[^a]', '\\s'), fc.constantFrom('a', '[0-9]'), (before, leak, after) => {
      assert.equal(textLeaks(`^${before}${leak}${after}$`), true)
    }))
  })
})

describe('hasDot', () => {
  it('finds a "." outside a class, not an escaped one nor one inside a class', () => {
    assert.equal(hasDot('^a.b$'), true)
    assert.equal(hasDot('^a\\.b$'), false)
    assert.equal(hasDot('^[.]$'), false)
    assert.equal(hasDot('^[^.]+.$'), true)
  })
})
