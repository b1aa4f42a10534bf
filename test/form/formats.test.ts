// The format checkers of our own (src/form/formats.ts), against RFC 3339 and RFC 9562 directly.
// The JSON Schema Test Suite's format cases run in scripts/schema-suite.ts.
import { describe, it } from 'node:test'
import assert from 'node:assert/strict'
import { Validator } from '@cfworker/json-schema'
import fc from 'fast-check'
import { compileForm } from '../../src/form/compile.ts'
import { dateTime, duration, email, iri, iriReference, regex, time, uri, uriReference, uriTemplate, uuid } from '../../src/form/formats.ts'

const SEED = 20261130

describe('date-time (RFC 3339 §5.6)', () => {
  it('accepts what §5.6 writes, with or without a fraction, in any offset', () => {
    for (const text of [
      '2026-11-30T02:51:08Z', '2026-11-30T02:51:08.5Z', '2026-11-30T02:51:08.123456789+05:30',
      '0000-01-01T00:00:00Z', '9999-12-31T23:59:59-23:59', '2026-11-30t02:51:08z'
    ]) assert.equal(dateTime(text), true, text)
  })

  it('knows the length of every month, and the leap years of the Gregorian calendar', () => {
    for (const [text, valid] of [
      ['2024-02-29T00:00:00Z', true], ['2023-02-29T00:00:00Z', false], ['2000-02-29T00:00:00Z', true],
      ['1900-02-29T00:00:00Z', false], ['2026-04-31T00:00:00Z', false], ['2026-12-31T00:00:00Z', true],
      ['2026-00-10T00:00:00Z', false], ['2026-13-10T00:00:00Z', false], ['2026-01-00T00:00:00Z', false]
    ] as const) assert.equal(dateTime(text), valid, text)
  })

  it('agrees with the calendar of Date on random dates', () => {
    const pad = (n: number, width: number): string => String(n).padStart(width, '0')
    fc.assert(fc.property(fc.integer({ min: 0, max: 9999 }), fc.integer({ min: 0, max: 13 }), fc.integer({ min: 0, max: 32 }), (y, m, d) => {
      const date = new Date(0)
      date.setUTCFullYear(y, m - 1, d)
      const real = m >= 1 && m <= 12 && date.getUTCFullYear() === y && date.getUTCMonth() === m - 1 && date.getUTCDate() === d
      assert.equal(dateTime(`${pad(y, 4)}-${pad(m, 2)}-${pad(d, 2)}T12:00:00Z`), real)
    }), { seed: SEED, numRuns: 3000 })
  })

  it('accepts what Date#toISOString writes', () => {
    fc.assert(fc.property(fc.date({ min: new Date('0000-01-01T00:00:00Z'), max: new Date('9999-12-31T23:59:59Z'), noInvalidDate: true }),
      (date) => assert.equal(dateTime(date.toISOString()), true, date.toISOString())), { seed: SEED, numRuns: 1000 })
  })

  it('accepts a leap second only as the last second of a UTC day (§5.7)', () => {
    for (const [text, valid] of [
      ['2016-12-31T23:59:60Z', true], ['2016-12-31T23:59:60.5Z', true], ['2017-01-01T00:59:60+01:00', true],
      ['2016-12-31T18:29:60-05:30', true], ['2016-12-31T23:59:60+01:00', false], ['2016-12-31T23:58:60Z', false],
      ['2016-12-31T23:59:61Z', false]
    ] as const) assert.equal(dateTime(text), valid, text)
  })

  it('refuses whatever else', () => {
    for (const text of [
      '', '2026-11-30', '02:51:08Z', '2026-11-30T02:51:08', '2026-11-30 02:51:08Z', '2026-11-30T02:51Z',
      '2026-11-30T24:00:00Z', '2026-11-30T02:60:00Z', '2026-11-30T02:51:08+24:00', '2026-11-30T02:51:08+01:60',
      '2026-11-30T02:51:08+0100', '2026-11-30T02:51:08+01', '2026-11-30T02:51:08.Z', '2026-11-30T02:51:08,5Z',
      '+2026-11-30T02:51:08Z', '26-11-30T02:51:08Z', '2026-1-30T02:51:08Z', '2026-11-30T02:51:08Z\n',
      ' 2026-11-30T02:51:08Z', '2026-11-30T02:51:08ZZ', '2026-11-30T02:51:08Z+01:00', '２026-11-30T02:51:08Z',
      '2026-11-3٠T02:51:08Z'
    ]) assert.equal(dateTime(text), false, JSON.stringify(text))
  })
})

describe('time (RFC 3339 §5.6 full-time)', () => {
  it('accepts a time with its seconds and an offset, Z or ±hh:mm, a leap second only at the end of a UTC day', () => {
    for (const text of ['14:30:00Z', '14:30:00z', '14:30:00.5+01:00', '00:00:00-23:59', '23:59:60Z', '00:59:60+01:00']) assert.equal(time(text), true, text)
  })

  it('refuses a time without seconds or offset, an offset not written ±hh:mm, and numbers out of range', () => {
    for (const text of [
      '14:30', '14:30:00', '14:30Z', '14:30:00+01', '14:30:00+0100', '14:30:00+1:00', '24:00:00Z', '14:60:00Z',
      '14:30:61Z', '23:59:60+01:00', '14:30:00+24:00', '14:30:00+01:60', '14:30:00.Z', '2026-12-07T14:30:00Z', '14:30:00Z\n'
    ]) assert.equal(time(text), false, JSON.stringify(text))
  })
})

describe('what people write for a time (docs/forms.md, "Times")', () => {
  // the address's validator and an independent one decide alike: seconds and an offset, or a 204
  const cases: [string, string, boolean][] = [
    ['time', '14:30', false], ['time', '14:30:00', false], ['time', '14:30:00Z', true], ['time', '14:30:00+01:00', true],
    ['time', '14:30:00.5z', true], ['time', '14:30:00+01', false], ['time', '14:30:00+0100', false],
    ['date-time', '2026-12-07T14:30', false], ['date-time', '2026-12-07T14:30:00', false], ['date-time', '2026-12-07 14:30:00Z', false],
    ['date-time', '2026-12-07T14:30:00Z', true], ['date-time', '2026-12-07t14:30:00+01:00', true]
  ]
  for (const [format, text, valid] of cases) {
    it(`${format} ${text}: ${valid ? 'accepted' : 'refused'}`, () => {
      const form = { type: 'string' as const, format }
      assert.equal(compileForm(form, '/when')(text), valid, 'the address')
      // @cfworker/json-schema takes a space for the T (RFC 3339 §5.6, note); the ABNF, and the address, do not
      assert.equal(new Validator(form, '2020-12').validate(text).valid, valid || text.includes(' '), '@cfworker/json-schema')
    })
  }
})

describe('duration (RFC 3339 Appendix A)', () => {
  it('accepts every production of the grammar', () => {
    for (const text of [
      'P1Y', 'P1Y2M', 'P1Y2M3D', 'P2M', 'P2M3D', 'P3D', 'P3W', 'PT4H', 'PT4H5M', 'PT4H5M6S', 'PT5M',
      'PT5M6S', 'PT6S', 'P1Y2M3DT4H5M6S', 'P3DT6S', 'P1YT5M', 'P007D', 'PT0S', 'p1y2m3dt4h5m6s'
    ]) assert.equal(duration.test(text), true, text)
  })

  it('refuses what the grammar does not make', () => {
    for (const text of [
      '', 'P', 'PT', 'P1YT', '1D', 'PD', 'P1', 'P1D2', 'P1Y3D', 'PT4H6S', 'P3D2M', 'P1W1D', 'P1WT1H', 'P1H',
      'PT1D', 'PT1.5S', 'PT1,5S', 'P-1D', '-P1D', 'P1e2D', 'P1D\n', ' P1D', 'P１D', 'P1DT'
    ]) assert.equal(duration.test(text), false, JSON.stringify(text))
  })
})

describe('uri and uri-reference (RFC 3986)', () => {
  it('uri: a scheme, then any hier-part, query and fragment', () => {
    for (const text of [
      'https://example.org', 'https://user:pw@example.org:8443/a/b;c?d=e&f#g', 'HTTP://EXAMPLE.ORG/%7Euser',
      'urn:isbn:0451450523', 'mailto:ada@example.org', 'file:///etc/hosts', 'x:', 'x:/a', 'x:a:b',
      'http://[2001:db8::1]:80/', 'http://[::ffff:192.0.2.1]/', 'http://[v7.fe:80]/', 'http://[V7.fe]/', 'http://300.1.1.1/',
      'http://example.org:/', "a+b-c.d://!$&'()*+,;=/?/?#/?", 'tag:example.org,2026:x'
    ]) assert.equal(uri.test(text), true, text)
    for (const text of [
      '', 'example.org', '//example.org', '/a', '1a:b', 'a_b:c', 'http://exa mple.org', 'http://example.org/é',
      'http://example.org/%2', 'http://example.org/%zz', 'http://example.org:8o/', 'http://a@b@c/',
      'http://[2001:db8::1/', 'http://[::ffff:192.0.2.01]/', 'http://[1:2:3:4:5:6:7:8:9]/', 'http:/[::1]',
      'http://example.org/<a>', 'http://example.org/a"b', 'http://example.org/{x}', 'http://example.org/\\',
      'http://example.org/#a#b', 'http://example.org\n'
    ]) assert.equal(uri.test(text), false, JSON.stringify(text))
  })

  it('uri-reference: a uri, or a relative reference whose first segment has no colon', () => {
    for (const text of [
      '', '#', '?', '//', '//example.org', '/a/b', 'a/b', './a:b', '../x?y#z', 'a', '%41'
    ]) assert.equal(uriReference.test(text), true, JSON.stringify(text))
    for (const text of [
      'a:b:c d', ':a', '1:a', '/a b', '#a#b', '//a@b@c', '/[::1]', '%', '\\x'
    ]) assert.equal(uriReference.test(text), false, JSON.stringify(text))
  })
})

describe('iri and iri-reference (RFC 3987)', () => {
  it('take what uri and uri-reference take, and non-ASCII where RFC 3987 allows it', () => {
    for (const text of [
      'https://example.org/a?b#c', 'https://dé.example/straße?ü=1#ß', 'urn:例:x', 'http://x/😀', 'http://x/?\u{E000}'
    ]) assert.equal(iri.test(text), true, text)
    for (const text of [
      '/a', 'é', 'http://x/\u{E000}', 'http://x/#\u{E000}', 'http://x/\u{FFFE}', 'http://[é]/', 'http://x/\\', 'http://x/ é'
    ]) assert.equal(iri.test(text), false, JSON.stringify(text))
    for (const text of [
      '', 'é', '/ä/ö', '//dé.example', '#ß', '?ü=1', './a:é'
    ]) assert.equal(iriReference.test(text), true, JSON.stringify(text))
    for (const text of [
      'é:b c', '#a#b', '/\u{FDD0}', 'a\\b'
    ]) assert.equal(iriReference.test(text), false, JSON.stringify(text))
  })
})

describe('uri-template (RFC 6570 §2)', () => {
  it('takes literals and expressions of every operator and modifier', () => {
    for (const text of [
      '', 'https://example.org/', '{x}', '{+x}', '{#x}', '{.x}', '{/x}', '{;x}', '{?x,y}', '{&x}', '{=x}', '{,x}', '{!x}', '{@x}', '{|x}',
      '{x*}', '{x:1}', '{x:9999}', '{a.b_c}', '{%41}', "a'b", 'a%20b', 'é{x}', '/users{/id}{?fields*}'
    ]) assert.equal(uriTemplate.test(text), true, text)
  })

  it('refuses what §2 does not make', () => {
    for (const text of [
      '{}', '{x', 'x}', '{x,}', '{,}', '{+}', '{x:0}', '{x:01}', '{x:10000}', '{x*:1}', '{x.}', '{.x.}', '{a..b}', '{x y}',
      '{x-y}', '{$x}', 'a b', 'a"b', 'a<b', 'a\\b', 'a^b', 'a`b', 'a|b', 'a%2', '{{x}}', 'a\u007fb'
    ]) assert.equal(uriTemplate.test(text), false, JSON.stringify(text))
  })
})

describe('email (RFC 5321 §4.1.2)', () => {
  it('accepts dot-strings, quoted strings, domains and address literals', () => {
    for (const text of [
      'ada@example.org', 'a.b.c@example.org', "!#$%&'*+-/=?^_`{|}~@x", '"a b"@example.org', '"a\\"b"@example.org',
      '"a@b"@example.org', '""@example.org', 'ada@x', 'ada@1-2.example', 'ada@[192.0.2.1]', 'ada@[192.0.2.001]',
      'ada@[IPv6:2001:db8::1]', 'ada@[ipv6:::1]'
    ]) assert.equal(email(text), true, text)
  })

  it('refuses anything else', () => {
    for (const text of [
      '', 'ada', '@example.org', 'ada@', '.ada@example.org', 'ada.@example.org', 'a..b@example.org', 'a b@example.org',
      'ada@-x.org', 'ada@x-.org', 'ada@x..org', 'ada@x.org.', 'ada@x_y.org', 'ada@[192.0.2.256]', 'ada@[192.0.2]',
      'ada@[2001:db8::1]', 'ada@[IPv6:2001:db8::g]', 'ada@[IPv6:::ffff:192.0.2.01]', '"a"b"@example.org',
      '"é"@example.org', 'é@example.org', 'ada@exämple.org', 'ada@example.org\n', 'a@b@example.org',
      'Ada <ada@example.org>', 'ada@example.org, bob@example.org'
    ]) assert.equal(email(text), false, JSON.stringify(text))
  })
})

describe('linear time on hostile strings (draft §7)', () => {
  it('decides a megabyte of near-misses for every format at once', () => {
    const n = 1 << 20
    const hostile = [
      'a'.repeat(n) + '!', 'a' + '-'.repeat(n) + '!', 'a@' + 'a'.repeat(n) + '-', 'a@' + 'a.'.repeat(n / 2) + '-',
      'http://' + 'a'.repeat(n) + ' ', 'http://' + 'a:'.repeat(n / 2) + ' ', 'a:' + '%20'.repeat(n / 3) + '%',
      'a:' + '/'.repeat(n) + ' ', '"' + '\\a'.repeat(n / 2) + '@', 'P' + '1'.repeat(n) + 'X', 'a.'.repeat(n / 2) + '@'
    ]
    const start = performance.now()
    for (const text of hostile) for (const check of [email, dateTime, time, ...[uri, uriReference, iri, iriReference, uriTemplate, duration].map((r) => (t: string) => r.test(t))]) check(text)
    // linear: about a second on a slow machine; a backtracking blow-up would take hours
    assert.ok(performance.now() - start < 10_000)
  })
})

describe('uuid and regex', () => {
  it('uuid: the bare string form of RFC 9562 in either case', () => {
    assert.equal(uuid.test('2EB8AA08-aa98-11ea-b4aa-73b441d16380'), true)
    for (const text of ['urn:uuid:2eb8aa08-aa98-11ea-b4aa-73b441d16380', '{2eb8aa08-aa98-11ea-b4aa-73b441d16380}',
      '2eb8aa08aa9811eab4aa73b441d16380', '2eb8aa08-aa98-11ea-b4aa-73b441d1638g']) assert.equal(uuid.test(text), false, text)
  })

  it('regex: compiles as the pattern keyword does, with the u flag', () => {
    assert.equal(regex('^\\p{L}+$'), true)
    assert.equal(regex('\\a'), false)
    assert.equal(regex('('), false)
  })
})
