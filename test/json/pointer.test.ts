// JSON Pointers (src/json/pointer.ts), against RFC 6901 read apart: its examples, and a property
// search that every member of a random value is found again at the pointer built for it.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import fc from 'fast-check'
import { escape, fragmentValue, pathPointer, refPointer, unescape, valueAt } from '../../src/json/pointer.ts'
import type { Json } from '../../src/json/value.ts'

describe('JSON Pointer (RFC 6901)', () => {
  it('resolves the examples of RFC 6901 §5', () => {
    const doc = { foo: ['bar', 'baz'], '': 0, 'a/b': 1, 'c%d': 2, 'e^f': 3, 'g|h': 4, 'i\\j': 5, 'k"l': 6, ' ': 7, 'm~n': 8 }
    const cases: Array<[string, Json]> = [['', doc], ['/foo', ['bar', 'baz']], ['/foo/0', 'bar'], ['/', 0], ['/a~1b', 1], ['/c%d', 2],
      ['/e^f', 3], ['/g|h', 4], ['/i\\j', 5], ['/k"l', 6], ['/ ', 7], ['/m~0n', 8]]
    for (const [pointer, value] of cases) assert.deepEqual(valueAt(doc, pointer), value, pointer)
  })

  it('finds nothing for what is not there: an inherited member, an index not written as RFC 6901 writes it, a pointer without "/"', () => {
    const doc = { list: [10, 11], o: {} }
    for (const pointer of ['/o/constructor', '/o/__proto__', '/list/01', '/list/-', '/list/2', '/list/length', 'list', '/nope/x']) {
      assert.equal(valueAt(doc, pointer), undefined, pointer)
    }
  })

  it('finds every member of any value at the pointer made of its escaped names', () => {
    fc.assert(fc.property(fc.jsonValue(), (value) => {
      const walk = (here: unknown, pointer: string): void => {
        assert.deepEqual(valueAt(value as Json, pointer), here)
        if (Array.isArray(here)) here.forEach((item, i) => walk(item, `${pointer}/${i}`))
        else if (here !== null && typeof here === 'object') for (const [key, item] of Object.entries(here)) walk(item, `${pointer}/${escape(key)}`)
      }
      walk(value, '')
    }))
  })

  it('unescapes what it escapes, whatever the name', () => {
    fc.assert(fc.property(fc.string({ unit: fc.constantFrom('~', '/', '0', '1', 'a') }), (name) => {
      assert.equal(unescape(escape(name)), name)
      assert.ok(!escape(name).includes('/'))
    }))
  })
  it('finds every member of any value at the pointer of its path, and again through a $ref to it', () => {
    fc.assert(fc.property(fc.jsonValue(), (value) => {
      const walk = (here: unknown, path: Array<string | number>): void => {
        const pointer = pathPointer(path)
        assert.deepEqual(valueAt(value as Json, pointer), here)
        // RFC 6901 §6: in a URI fragment the pointer is percent-encoded; decoding gives it back
        assert.equal(refPointer(`#${encodeURI(pointer).replaceAll('#', '%23')}`), pointer)
        if (Array.isArray(here)) here.forEach((item, i) => walk(item, [...path, i]))
        else if (here !== null && typeof here === 'object') for (const [key, item] of Object.entries(here)) walk(item, [...path, key])
      }
      walk(value, [])
    }))
  })

  it('reads a $ref as a pointer only when it is one: "#" and "#/...", percent-decoded, or nothing', () => {
    assert.equal(refPointer('#'), '')
    assert.equal(refPointer('#/$defs/a%25b'), '/$defs/a%b')
    assert.equal(refPointer('#/a%2Fb'), '/a/b', 'decoded first, then split (RFC 6901 §6)')
    for (const ref of ['#anchor', 'other.json#/a', '', '/a', '#/%zz', '#/%E0%A4%A']) assert.equal(refPointer(ref), undefined, ref)
  })

  it('finds what a same-document reference names: every member of any value through its percent-encoded pointer', () => {
    fc.assert(fc.property(fc.jsonValue(), (value) => {
      const walk = (here: unknown, path: Array<string | number>): void => {
        assert.deepEqual(fragmentValue(value as Json, `#${encodeURI(pathPointer(path)).replaceAll('#', '%23')}`), here)
        if (Array.isArray(here)) here.forEach((item, i) => walk(item, [...path, i]))
        else if (here !== null && typeof here === 'object') for (const [key, item] of Object.entries(here)) walk(item, [...path, key])
      }
      walk(value, [])
    }))
  })

  it('finds a plain-name fragment by the $anchor of the root\'s own resource, and nothing else', () => {
    const named = { $anchor: 'a b', type: 'string' }
    const form: Json = {
      $defs: { named, inner: { $id: 'other.json', $defs: { hidden: { $anchor: 'hidden' } } } },
      const: { $anchor: 'data' },
      examples: [{ $anchor: 'example' }],
      allOf: [{ $anchor: 'listed' }]
    }
    assert.equal(fragmentValue(form, '#a%20b'), named, 'percent-decoded first')
    assert.deepEqual(fragmentValue(form, '#listed'), { $anchor: 'listed' })
    for (const ref of ['#hidden', '#data', '#example', '#nope', '#a b%', 'other.json#/$defs', '/$defs', '']) {
      assert.equal(fragmentValue(form, ref), undefined, ref)
    }
  })
})
