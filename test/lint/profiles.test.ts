// The llama-cpp, outlines and llguidance profiles pin our reading of each converter's source (no
// converter of theirs runs here): each case names the function it was read from. Commits and
// dates (2026-12-01): docs/forms.md, "Decoders".
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import fc from 'fast-check'
import { decoderProfiles, DECODERS, lint, type DecoderName } from '../../src/lint/index.ts'

/** `verdict pointer` for each judgement the decoder makes on the form. */
const judged = (form: unknown, decoder: DecoderName): string[] => lint(form, { decoders: [decoder] })
  .filter((f) => f.rule.startsWith('decoder-') && f.decoders.includes(decoder))
  .map((f) => `${f.rule.slice('decoder-'.length)} ${f.pointer}`).sort()
const closed = (properties: object, required = Object.keys(properties)): object => ({ type: 'object', properties, required, additionalProperties: false })
const field = (schema: object): object => closed({ a: schema })

describe('llama-cpp: llama.cpp common/json-schema-to-grammar.cpp and src/llama-grammar.cpp', () => {
  const llama = (schema: object): string[] => judged(field(schema), 'llama-cpp')
  // what its "char" rule writes in every string: any \u escape, lone surrogates too
  const SURROGATES = 'loosens /properties/a'
  const why = (form: unknown, pointer: string): string => lint(form, { decoders: ['llama-cpp'] }).filter((f) => f.pointer === pointer && f.rule.startsWith('decoder-')).map((f) => f.message).join(' ')
  it('reads nothing beside $ref, oneOf or anyOf (visit returns on them first)', () => {
    const form = { $defs: { s: { type: 'string' } }, ...field({ $ref: '#/$defs/s', maxLength: 3 }) }
    assert.deepEqual(judged(form, 'llama-cpp'), ['loosens /$defs/s', 'loosens /properties/a/maxLength'])
    assert.deepEqual(llama({ type: 'string', maxLength: 3, anyOf: [{ pattern: '^a+$' }, { const: 'b' }] }), ['loosens /properties/a/maxLength', 'loosens /properties/a/type'])
  })
  it('refuses a $ref other than "#/..." and https:// (resolve_refs: "Unsupported ref"): "#", an $anchor, a relative ref', () => {
    const tree = { type: 'object', properties: { name: { type: 'string', maxLength: 9 }, children: { type: 'array', items: { $ref: '#' }, maxItems: 3 } }, required: ['name'], additionalProperties: false }
    assert.ok(judged(tree, 'llama-cpp').includes('refuses /properties/children/items/$ref'))
    assert.match(why(tree, '/properties/children/items/$ref'), /"Unsupported ref: #"/)
    assert.ok(judged({ $defs: { n: { $anchor: 'n', type: 'integer', minimum: 0, maximum: 1 } }, ...field({ $ref: '#n' }) }, 'llama-cpp').includes('refuses /properties/a/$ref'))
    assert.ok(judged({ ...field({ $ref: 'other.json' }) }, 'llama-cpp').includes('refuses /properties/a/$ref'))
  })
  it('follows "#/..." pointers without undoing ~0, ~1 or %-escapes ("Error resolving ref")', () => {
    for (const name of ['a~b', 'a/b', 'a"b']) {
      const pointer = `#/$defs/${encodeURIComponent(name.replaceAll('~', '~0').replaceAll('/', '~1')).replaceAll('%7E', '~')}`
      const form = { $defs: { [name]: { type: 'integer', minimum: 0, maximum: 1 } }, ...field({ $ref: pointer }) }
      assert.ok(judged(form, 'llama-cpp').includes('refuses /properties/a/$ref'), pointer)
      assert.match(why(form, '/properties/a/$ref'), /Error resolving ref/)
    }
    assert.deepEqual(judged({ $defs: { ab: { type: 'integer', minimum: 0, maximum: 1 } }, ...field({ $ref: '#/$defs/ab' }) }, 'llama-cpp'), [])
  })
  it('reads every member named "$ref" as a reference: a property named "$ref" fails the converter', () => {
    const form = closed({ $ref: { type: 'integer', minimum: 0, maximum: 1 } })
    assert.deepEqual(judged(form, 'llama-cpp'), ['refuses /properties/$ref'])
    assert.match(why(form, '/properties/$ref'), /type must be string, but is object/)
  })
  it('resolves no $ref inside a schema holding one: a $ref to a $ref compiles as any object, so the integer it stands for is never written', () => {
    const form = { $ref: '#/$defs/a', $defs: { a: { $ref: '#/$defs/b' }, b: { type: 'integer', minimum: 0, maximum: 9 } } }
    assert.deepEqual(judged(form, 'llama-cpp'), ['loosens /$defs/a/$ref', 'tightens /$defs/a/$ref'])
    assert.match(why(form, '/$defs/a/$ref'), /any object/)
    // a target that is an object loses no type
    assert.deepEqual(judged({ ...form, $defs: { ...form.$defs, b: { type: 'object' } } }, 'llama-cpp'), ['loosens /$defs/a/$ref', 'loosens /$defs/b'])
    // from a member, both are met
    assert.deepEqual(judged({ $defs: form.$defs, ...field({ $ref: '#/$defs/a' }) }, 'llama-cpp'), [])
  })
  it('refuses a pattern without ^ and $ (_visit_pattern) or with an escape parse_char lacks', () => {
    assert.deepEqual(llama({ type: 'string', pattern: 'ab' }), ['refuses /properties/a/pattern'])
    assert.deepEqual(llama({ type: 'string', pattern: '^\\d{3}$' }), ['refuses /properties/a/pattern'])
    assert.deepEqual(llama({ type: 'string', pattern: '^[a\\.]$' }), ['refuses /properties/a/pattern'])
    assert.deepEqual(llama({ type: 'string', pattern: '^a\\.b[0-9\\-]{1,3}$' }), [])
    // lookaround only warns and is skipped
    assert.deepEqual(llama({ type: 'string', pattern: '^(?!x)[a-z]{1,3}$' }), ['loosens /properties/a/pattern'])
  })
  it('matches a pattern against the JSON text: "." is [^\\x0A\\x0D], so it writes raw TABs, quotes and backslashes', () => {
    assert.deepEqual(llama({ type: 'string', pattern: '^a.b$' }), ['loosens /properties/a/pattern'])
    assert.match(why(field({ type: 'string', pattern: '^[^x]{1,3}$' }), '/properties/a/pattern'), /JSON text/)
    assert.deepEqual(llama({ type: 'string', pattern: '^[a-z]{1,3}$' }), [])
  })
  it('drops lengths and format beside pattern, lengths beside date, time, date-time and uuid (harmless when every length written keeps to them)', () => {
    assert.deepEqual(llama({ type: 'string', pattern: '^a+$', maxLength: 3 }), ['loosens /properties/a/maxLength'])
    assert.deepEqual(llama({ type: 'string', format: 'uuid', maxLength: 35 }), ['loosens /properties/a/maxLength'])
    assert.deepEqual(llama({ type: 'string', format: 'uuid', minLength: 36, maxLength: 36 }), [])
    assert.deepEqual(llama({ type: 'string', format: 'date-time', maxLength: 25 }), ['loosens /properties/a/format', 'loosens /properties/a/maxLength', 'tightens /properties/a/format'])
    assert.deepEqual(llama({ type: 'string', format: 'time', minLength: 9, maxLength: 18 }), ['tightens /properties/a/format'])
  })
  it('loses nothing by counts and patternProperties a closed object already keeps to; writes only the members it names', () => {
    const closed = { type: 'object', properties: { x: { const: 1 } }, required: ['x'], additionalProperties: false }
    assert.deepEqual(llama({ ...closed, minProperties: 1, maxProperties: 1 }), [])
    assert.deepEqual(llama({ ...closed, maxProperties: 0 }), ['loosens /properties/a/maxProperties'])
    assert.deepEqual(llama({ ...closed, patternProperties: { '^y': {} } }), ['tightens /properties/a/patternProperties'])
    assert.deepEqual(llama({ ...closed, patternProperties: { '^x': {} } }), ['loosens /properties/a/patternProperties'])
    // a pattern that is no regular expression may match any name
    assert.deepEqual(llama({ ...closed, patternProperties: { '(': {} } }), ['loosens /properties/a/patternProperties'])
  })
  it('checks date by a pattern giving every month 31 days (STRING_FORMAT_RULES), uuid exactly, and writes a time with Z in capitals and three fraction digits or none', () => {
    assert.deepEqual(llama({ type: 'string', format: 'date' }), ['loosens /properties/a/format'])
    assert.deepEqual(llama({ type: 'string', format: 'time' }), ['tightens /properties/a/format'])
    assert.match(why(field({ type: 'string', format: 'date-time' }), '/properties/a/format'), /2026-12-03T10:00:00\.5Z/)
    assert.deepEqual(llama({ type: 'string', format: 'uuid' }), [])
  })
  it('writes any \\u escape in other strings (its "char" rule), lone surrogates too', () => {
    assert.deepEqual(llama({ type: 'string', maxLength: 5 }), [SURROGATES])
    assert.match(why(field({ type: 'string' }), '/properties/a'), /lone surrogate/)
    assert.deepEqual(llama({ type: 'string', maxLength: 0 }), [])
    assert.deepEqual(llama({ type: 'string', minLength: 3, maxLength: 0 }), ['loosens /properties/a/minLength'])
  })
  it('refuses a boolean subschema ("Unrecognized schema"), but for additionalProperties', () => {
    assert.deepEqual(llama({ type: 'array', items: true, maxItems: 2 }), ['refuses /properties/a/items'])
    assert.deepEqual(judged({ type: 'object', properties: { a: { const: 1 } }, required: ['a'], additionalProperties: false }, 'llama-cpp'), [])
  })
  it('takes {m,n} as llama-grammar.cpp does: refused from 2000 repetitions ("number of repetitions exceeds sane defaults")', () => {
    fc.assert(fc.property(fc.integer({ min: 0, max: 6000 }), (n) => {
      // a string of maxLength n is char{0,n}: n repetitions
      // (and no escape at all when n is 0)
      const expected = n === 0 ? [] : n < 2000 ? [SURROGATES] : [SURROGATES, 'refuses /properties/a/maxLength']
      assert.deepEqual(llama({ type: 'string', maxLength: n }), expected)
    }))
    assert.deepEqual(llama({ type: 'string', minLength: 2001 }), [SURROGATES, 'refuses /properties/a/minLength'])
    assert.match(why(field({ type: 'string', maxLength: 5000 }), '/properties/a/maxLength'), /number of repetitions exceeds sane defaults/)
    assert.match(why(field({ type: 'string', maxLength: 5000 }), '/properties/a/maxLength'), /cd0fa6051.*loosened there/)
    assert.doesNotMatch(why(field({ type: 'string', maxLength: 2000 }), '/properties/a/maxLength'), /cd0fa6051/)
    // arrays repeat the separated item minItems-1 to maxItems-1 times
    assert.deepEqual(llama({ type: 'array', items: { const: 1 }, maxItems: 2000 }), [])
    assert.deepEqual(llama({ type: 'array', items: { const: 1 }, maxItems: 2001 }), ['refuses /properties/a/maxItems'])
    assert.deepEqual(llama({ type: 'array', items: { const: 1 }, maxItems: 5000 }), ['refuses /properties/a/maxItems'])
  })
  it('produces exactly the prefixItems, and reads no prefixItems beside items', () => {
    assert.deepEqual(llama({ type: 'array', prefixItems: [{ const: 1 }] }), ['tightens /properties/a/prefixItems'])
    assert.deepEqual(llama({ type: 'array', prefixItems: [{ const: 1 }], minItems: 2 }), ['loosens /properties/a/minItems', 'tightens /properties/a/prefixItems'])
    assert.deepEqual(llama({ type: 'array', prefixItems: [{ const: 1 }], items: { const: 2 }, maxItems: 3 }), ['loosens /properties/a/prefixItems'])
    assert.deepEqual(llama({ type: 'array', maxItems: 3 }), ['loosens /properties/a/maxItems'])
  })
  it('builds required from properties only (_build_object_rule), and an object without properties from any members', () => {
    assert.deepEqual(judged({ ...closed({ a: { const: 1 } }), required: ['a', 'b'] }, 'llama-cpp'), ['loosens /required'])
    assert.deepEqual(llama({ type: 'object', required: ['x'] }), ['loosens /properties/a', 'loosens /properties/a/required'])
    assert.match(why(field({ type: 'object' }), '/properties/a'), /any object.*name may repeat/)
  })
  it('lets the names of additional members repeat (( "," additional-kv )*), write lone surrogates, and a raw backslash after the start of a listed name (_not_strings)', () => {
    const open = { type: 'object', properties: { a: { const: 1 } }, additionalProperties: { const: 2 } }
    assert.deepEqual(judged(open, 'llama-cpp'), ['loosens /additionalProperties'])
    assert.match(why(open, '/additionalProperties'), /may repeat.*lone surrogate.*raw backslash/)
  })
  it('compiles a schema without a type as any value, a number with any exponent', () => {
    assert.match(why(field({ description: 'anything' }), '/properties/a'), /any value/)
    assert.match(why(field({ type: 'number' }), '/properties/a'), /1e400/)
  })
  it('visits each type of a type list with the same keywords', () => {
    assert.deepEqual(llama({ type: ['string', 'null'], maxLength: 5 }), [SURROGATES])
    assert.deepEqual(llama({ type: ['integer', 'null'], maximum: 5, minimum: 0 }), [])
    assert.deepEqual(llama({ type: ['number', 'null'], maximum: 5 }), ['loosens /properties/a', 'loosens /properties/a/maximum'])
  })
  it('reads integer bounds as 64-bit integers, an exclusive bound only alone, and no allOf beside an integer', () => {
    assert.deepEqual(llama({ type: 'integer', minimum: 1.5, maximum: 9 }), ['loosens /properties/a/minimum'])
    assert.deepEqual(llama({ type: 'integer', minimum: 0, exclusiveMinimum: 3, maximum: 9 }), ['loosens /properties/a/exclusiveMinimum'])
    assert.deepEqual(llama({ type: 'integer', maximum: 9, allOf: [{ minimum: 1 }] }), ['loosens /properties/a/allOf'])
  })
  it('merges the properties of an allOf of objects, each made required', () => {
    assert.deepEqual(llama({ allOf: [{ properties: { x: { const: 1 } } }, { properties: { y: { const: 2 } } }] }), ['tightens /properties/a/allOf'])
  })
  it('writes an object for any other allOf: a value of another type it admits is never written', () => {
    assert.deepEqual(llama({ allOf: [{ type: 'integer', minimum: 0 }] }), ['loosens /properties/a/allOf', 'tightens /properties/a/allOf'])
    assert.deepEqual(llama({ type: 'string', allOf: [{ minLength: 1 }] }), ['loosens /properties/a/allOf', 'tightens /properties/a/allOf'])
    assert.deepEqual(llama({ allOf: [{ type: 'object', minProperties: 1 }] }), ['loosens /properties/a/allOf'])
  })
})

describe('outlines: outlines-core src/json_schema/parsing.rs', () => {
  const outlines = (schema: object): string[] => judged(field(schema), 'outlines')
  it('refuses a schema with no type or applicator it knows (to_regex: UnsupportedJsonSchema); {} is any value', () => {
    assert.deepEqual(outlines({ description: 'anything' }), ['refuses /properties/a'])
    assert.deepEqual(outlines({ maxLength: 3 }), ['refuses /properties/a'])
    assert.deepEqual(outlines({}), [])
  })
  it('reads only the first of properties, allOf, anyOf, oneOf, prefixItems, enum, const, $ref', () => {
    assert.deepEqual(outlines({ type: 'string', maxLength: 3, anyOf: [{ type: 'string', maxLength: 1 }, { const: 'bb' }] }), ['loosens /properties/a/maxLength', 'loosens /properties/a/type'])
    const form = { $defs: { o: { type: 'object' } }, ...closed({ a: { $ref: '#/$defs/o' } }) }
    // (the object without properties is any object: its names may repeat)
    assert.deepEqual(judged({ ...form, anyOf: [{ required: ['a'] }] }, 'outlines'), ['loosens /$defs/o', 'loosens /anyOf'])
  })
  it('closes an object with properties whatever additionalProperties says (parse_properties)', () => {
    assert.deepEqual(judged({ type: 'object', properties: { a: { const: 1 } }, required: ['a'] }, 'outlines'), ['tightens '])
  })
  it('refuses additionalProperties: false on an object without properties, and reads no required there (parse_object_type)', () => {
    assert.deepEqual(outlines({ type: 'object', additionalProperties: false }), ['refuses /properties/a/additionalProperties'])
    assert.deepEqual(outlines({ type: 'object', required: ['x'], maxProperties: 2 }), ['loosens /properties/a', 'loosens /properties/a/required'])
  })
  it('refuses a boolean subschema it compiles', () => {
    assert.deepEqual(outlines({ type: 'array', items: false }), ['refuses /properties/a/items'])
  })
  it('takes minLength and maxLength before pattern and format (parse_string_type), and refuses them inverted', () => {
    assert.deepEqual(outlines({ type: 'string', pattern: '^a+$', maxLength: 3 }), ['loosens /properties/a/pattern'])
    assert.deepEqual(outlines({ type: 'string', format: 'uuid', maxLength: 36 }), ['loosens /properties/a/format'])
    assert.deepEqual(outlines({ type: 'string', minLength: 4, maxLength: 3 }), ['refuses /properties/a/minLength'])
  })
  it('compiles patterns with the regex crate: no lookaround, Unicode \\d, anchored', () => {
    assert.deepEqual(outlines({ type: 'string', pattern: '^(?=a)a$' }), ['refuses /properties/a/pattern'])
    assert.deepEqual(outlines({ type: 'string', pattern: '^\\d+$' }), ['loosens /properties/a/pattern'])
    assert.deepEqual(outlines({ type: 'string', pattern: 'ab' }), ['tightens /properties/a/pattern'])
  })
  it('knows six formats (types.rs FormatType), three of them by a looser pattern', () => {
    assert.deepEqual(outlines({ type: 'string', format: 'ipv4' }), ['refuses /properties/a/format'])
    assert.deepEqual(outlines({ type: 'string', format: 'date-time' }), ['loosens /properties/a/format'])
    assert.deepEqual(outlines({ type: 'string', format: 'uuid' }), [])
  })
  it('concatenates the alternatives of an allOf (parse_all_of)', () => {
    assert.deepEqual(outlines({ allOf: [{ type: 'boolean' }, { type: 'null' }] }), ['loosens /properties/a/allOf'])
    assert.deepEqual(outlines({ allOf: [{ type: 'boolean' }] }), [])
  })
  it('cuts recursion after three nested refs by leaving out the property holding it (parse_properties)', () => {
    const node = (required: string[]): object => ({ $defs: { n: { type: 'object', properties: { next: { $ref: '#/$defs/n' } }, required, additionalProperties: false } }, $ref: '#/$defs/n' })
    assert.ok(judged(node([]), 'outlines').includes('tightens /$defs/n/properties/next/$ref'))
    assert.ok(judged(node(['next']), 'outlines').includes('loosens /$defs/n/properties/next/$ref'))
  })
  const why = (form: unknown, pointer: string): string => lint(form, { decoders: ['outlines'] }).filter((f) => f.pointer === pointer && f.rule.startsWith('decoder-')).map((f) => f.message).join(' ')
  it('writes member names between quotes unescaped (parse_properties): a quote or a backslash in a name is not JSON', () => {
    assert.deepEqual(judged(closed({ 'a"b': { const: 1 } }), 'outlines'), ['loosens /properties'])
    assert.deepEqual(judged(closed({ 'a\\b': { const: 1 }, c: { const: 2 } }), 'outlines'), ['loosens /properties'])
    assert.deepEqual(judged(closed({ 'a b': { const: 1 } }), 'outlines'), [])
  })
  it('takes email and uri by patterns that admit a raw quote (types.rs)', () => {
    assert.deepEqual(outlines({ type: 'string', format: 'email' }), ['loosens /properties/a/format'])
    assert.match(why(field({ type: 'string', format: 'uri' }), '/properties/a/format'), /raw quote/)
  })
  it('matches a pattern against the JSON text of the string', () => {
    assert.deepEqual(outlines({ type: 'string', pattern: '^.{1,3}$' }), ['loosens /properties/a/pattern'])
    assert.match(why(field({ type: 'string', pattern: '^[^x]+$' }), '/properties/a/pattern'), /JSON text/)
    assert.deepEqual(outlines({ type: 'string', pattern: '^[a-c]+$' }), [])
  })
  it('resolves only "#" and "#/..." references: anchors and relative refs are refused', () => {
    assert.deepEqual(judged({ $defs: { n: { $anchor: 'n', const: 1 } }, ...field({ $ref: '#n' }) }, 'outlines'), ['refuses /properties/a/$ref'])
    assert.deepEqual(outlines({ $ref: 'other.json' }), ['refuses /properties/a/$ref'])
    assert.deepEqual(judged({ $defs: { n: { const: 1 } }, ...field({ $ref: '#/$defs/n' }) }, 'outlines'), [])
  })
  it('refuses bounds of 2,000 and more, whose automaton takes over 10 s to build', () => {
    assert.deepEqual(outlines({ type: 'string', maxLength: 1999 }), [])
    assert.deepEqual(outlines({ type: 'string', maxLength: 2000 }), ['refuses /properties/a/maxLength'])
    assert.deepEqual(outlines({ type: 'array', items: { const: 1 }, minItems: 2000 }), ['refuses /properties/a/minItems'])
  })
  it('writes numbers with any exponent and integers with any number of digits, and lets names of an object without properties repeat', () => {
    assert.match(why(field({ type: 'number' }), '/properties/a'), /1e400/)
    assert.match(why(field({ type: 'integer' }), '/properties/a'), /2\^53/)
    assert.match(why(field({ type: 'object', additionalProperties: { const: 1 } }), '/properties/a/additionalProperties'), /may repeat/)
  })
})

describe('llguidance: llguidance parser/src/json/schema.rs and compiler.rs', () => {
  const guidance = (schema: object): string[] => judged(field(schema), 'llguidance')
  it('refuses every known keyword it does not implement, whatever its value (compile_contents_map)', () => {
    assert.deepEqual(guidance({ type: 'array', items: { const: 1 }, maxItems: 2, uniqueItems: false }), ['refuses /properties/a/uniqueItems'])
    assert.deepEqual(guidance({ type: 'integer', maximum: 3, if: { minimum: 1 } }), ['refuses /properties/a/if'])
  })
  it('takes min/maxProperties only beyond required members, or as one of a closed object\'s optional ones', () => {
    const optional = { type: 'object', properties: { x: { const: 1 }, y: { const: 2 } }, additionalProperties: false }
    assert.deepEqual(guidance({ ...optional, minProperties: 2 }), ['refuses /properties/a/minProperties'])
    assert.deepEqual(guidance({ ...optional, minProperties: 1 }), [])
    assert.deepEqual(guidance({ ...optional, required: ['x', 'y'], minProperties: 2 }), [])
    assert.deepEqual(guidance({ ...optional, additionalProperties: true, maxProperties: 1 }), ['refuses /properties/a/maxProperties'])
  })
  it('refuses lookaround and formats outside its ten; checks date by a pattern allowing February 29 every year (formats.rs)', () => {
    assert.deepEqual(guidance({ type: 'string', pattern: '(?<=a)b' }), ['refuses /properties/a/pattern'])
    assert.deepEqual(guidance({ type: 'string', format: 'iri' }), ['refuses /properties/a/format'])
    assert.deepEqual(guidance({ type: 'string', format: 'date' }), ['loosens /properties/a/format'])
    assert.deepEqual(guidance({ type: 'string', format: 'ipv4' }), [])
  })
  const why = (form: unknown, pointer: string): string => lint(form, { decoders: ['llguidance'] }).filter((f) => f.pointer === pointer && f.rule.startsWith('decoder-')).map((f) => f.message).join(' ')
  it('refuses a schema it must produce that admits nothing (compiler.rs: "Unsatisfiable schema"), but leaves out an optional one', () => {
    // (the error propagates: the form requires the member)
    assert.deepEqual(judged({ type: 'object', properties: { a: false }, required: ['a'] }, 'llguidance'), ['refuses '])
    assert.deepEqual(guidance({ anyOf: [false, { type: 'integer', minimum: 2, maximum: 1 }] }), ['refuses ', 'refuses /properties/a'])
    assert.match(why(field({ anyOf: [false, false] }), '/properties/a'), /Unsatisfiable schema: All options in anyOf are unsatisfiable/)
    assert.deepEqual(guidance({ type: 'object', properties: { x: { const: 1 } }, required: ['x', 'y'], maxProperties: 1, additionalProperties: false }), ['refuses ', 'refuses /properties/a'])
    assert.deepEqual(guidance({ type: 'string', minLength: 3, maxLength: 2 }), ['refuses ', 'refuses /properties/a'])
    assert.deepEqual(judged({ type: 'object', properties: { a: false }, additionalProperties: false }, 'llguidance'), [])
  })
  it('refuses a multipleOf whose digits do not fit 32 bits (numeric.rs: "has too many digits")', () => {
    assert.deepEqual(guidance({ type: 'number', minimum: 0, maximum: 1, multipleOf: 0.25 }), [])
    assert.deepEqual(guidance({ type: 'number', minimum: 0, maximum: 1, multipleOf: 0.12345678912 }), ['refuses /properties/a/multipleOf'])
    assert.deepEqual(guidance({ type: 'integer', minimum: 0, maximum: 1, multipleOf: 1e10 }), ['refuses /properties/a/multipleOf'])
    assert.match(why(field({ type: 'number', minimum: 0, maximum: 1, multipleOf: 0.00012345678912 }), '/properties/a/multipleOf'), /Value for 'multipleOf' has too many digits/)
  })
  it('refuses patternProperties whose patterns may match one name', () => {
    const values = { type: 'integer', minimum: 0, maximum: 1 }
    assert.deepEqual(guidance({ type: 'object', patternProperties: { '^a': values, b$: values }, additionalProperties: false }), ['refuses /properties/a/patternProperties'])
    assert.deepEqual(guidance({ type: 'object', patternProperties: { '^a': values, '^b': values }, additionalProperties: false }), [])
  })
  it('takes "." as the regex crate does: \\r, U+2028 and U+2029 pass, which the "." of JavaScript excludes', () => {
    assert.deepEqual(guidance({ type: 'string', pattern: '^a.b$' }), ['loosens /properties/a/pattern'])
    assert.deepEqual(guidance({ type: 'string', pattern: '^a[.]b$' }), [])
  })
  it('lets the names of additional members repeat, and write lone surrogates beside listed ones (gen_json_object)', () => {
    assert.deepEqual(judged({ type: 'object', properties: { a: { const: 1 } }, required: ['a'] }, 'llguidance'), ['loosens '])
    assert.match(why({ type: 'object', properties: { a: { const: 1 } }, additionalProperties: { const: 2 } }, '/additionalProperties'), /may repeat.*lone surrogate/)
    assert.deepEqual(judged(closed({ a: { const: 1 } }), 'llguidance'), [])
  })
})

describe('the version each profile describes', () => {
  it('names a converter and a version or commit for every decoder', () => {
    const profiles = decoderProfiles()
    assert.deepEqual(profiles.map((p) => p.decoder), [...DECODERS].sort((a, b) => profiles.findIndex((p) => p.decoder === a) - profiles.findIndex((p) => p.decoder === b)))
    assert.equal(profiles.length, DECODERS.length)
    for (const { decoder, version } of profiles) assert.match(version, /\d+\.\d+\.\d+|[0-9a-f]{8}|read 20\d\d-\d\d-\d\d/, decoder)
    assert.match(profiles.find((p) => p.decoder === 'xgrammar')?.version ?? '', /0\.1\.27.*0\.2\.5/)
  })
})
