import assert from 'node:assert/strict'
import { once } from 'node:events'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, it } from 'node:test'
import { Validator } from '@cfworker/json-schema'
import { compileForm } from '../../src/form/compile.ts'
import { main } from '../../src/cli/lint.ts'
import { lint, type Finding } from '../../src/lint/index.ts'
import { extents } from '../../src/lint/extent.ts'
import { corpus } from '../fixtures/lint-forms.ts'

const rules = (form: unknown, options = {}): string[] => [...new Set(lint(form, { decoders: [], ...options }).map((f) => `${f.rule} ${f.pointer}`))]
const closed = (properties: object, required = Object.keys(properties)): object => ({ type: 'object', properties, required, additionalProperties: false })
const note = closed({ note: { type: 'string', maxLength: 280 } })

describe('§7.2 the form is the attack surface', () => {
  it('is quiet about a closed, bounded form', () => {
    assert.deepEqual(rules(note), [])
  })
  it('names unbounded strings, arrays, open objects and unconstrained values', () => {
    assert.deepEqual(rules(closed({ s: { type: 'string' } })), ['body-beyond-limit ', 'string-unbounded /properties/s'])
    assert.deepEqual(rules(closed({ a: { type: 'array', items: { const: 1 } } })), ['body-beyond-limit ', 'array-unbounded /properties/a'])
    assert.ok(rules({ type: 'object', properties: { a: { const: 1 } } }).includes('object-open '))
    assert.ok(rules({ ...closed({ a: { const: 1 } }), patternProperties: { '^x': { const: 1 } } }).includes('object-open /patternProperties'))
    assert.ok(rules(closed({ a: {} })).includes('value-unconstrained /properties/a'))
  })
  it('counts a bound stated in an allOf alternative or where a $ref leads', () => {
    assert.deepEqual(rules(closed({ s: { type: 'string', allOf: [{ maxLength: 3 }] } })).filter((r) => r.startsWith('string')), [])
    const form = { $defs: { t: { maxLength: 3 } }, ...closed({ s: { type: 'string', $ref: '#/$defs/t' } }) }
    assert.deepEqual(rules(form).filter((r) => r.startsWith('string')), [])
  })
  it('reads an alternative without a type as its parent\'s type', () => {
    assert.ok(rules(closed({ s: { type: 'string', anyOf: [{ minLength: 1 }, { const: 'x' }] } })).includes('string-unbounded /properties/s/anyOf/0'))
  })
})

describe('§4.1 vocabulary', () => {
  it('tells disjoint oneOf alternatives from ones that may overlap', () => {
    const severity = (oneOf: unknown[]): string | undefined => lint(closed({ a: { oneOf } }), { decoders: [] }).find((f) => f.rule === 'one-of')?.severity
    assert.equal(severity([{ type: 'string', maxLength: 1 }, { type: 'boolean' }]), 'info')
    assert.equal(severity([{ const: 'a' }, { enum: ['b', 'c'] }]), 'info')
    assert.equal(severity([closed({ k: { const: 'a' } }), closed({ k: { const: 'b' } })]), 'info')
    assert.equal(severity([{ $defs: {}, $ref: '#/$defs/x' }, { type: 'null' }]), 'warning')
    assert.equal(severity([{ type: 'integer' }, { type: 'number' }]), 'warning')
    assert.equal(severity([false, { type: 'number' }]), 'info')
    const tagged = { $defs: { a: closed({ k: { const: 'a' } }), b: closed({ k: { const: 'b' } }) }, ...closed({ x: { oneOf: [{ $ref: '#/$defs/a' }, { $ref: '#/$defs/b' }] } }) }
    assert.equal(lint(tagged).find((f) => f.rule === 'one-of')?.severity, 'info')
  })
  it('names keywords outside the draft\'s vocabulary, with the decoders that drop them', () => {
    const found = lint(closed({ n: { type: 'integer', minimum: 0, maximum: 9, multipleOf: 3 } })).find((f) => f.pointer === '/properties/n/multipleOf' && f.rule === 'outside-vocabulary')
    assert.ok(found?.decoders.includes('xgrammar') && found.decoders.includes('llama-cpp'))
  })
})

describe('§4.2 bounded recursion', () => {
  it('points at the $ref that closes a cycle, and says nothing of an unrolled form', () => {
    assert.deepEqual(lint(corpus['blocks']).filter((f) => f.rule === 'recursion-unbounded').map((f) => f.pointer),
      ['/$defs/block/anyOf/0/properties/children/items/$ref', '/$defs/block/anyOf/1/properties/children/items/$ref'])
    assert.deepEqual(lint(corpus['unrolled']).filter((f) => f.rule === 'recursion-unbounded'), [])
    const mutual = { $defs: { a: { type: 'array', maxItems: 2, items: { $ref: '#/$defs/b' } }, b: { type: 'array', maxItems: 2, items: { $ref: '#/$defs/a' } } }, $ref: '#/$defs/a' }
    const cycle = lint(mutual).find((f) => f.rule === 'recursion-unbounded')
    assert.match(cycle?.message ?? '', /\/\$defs\/a\/items\/\$ref → \/\$defs\/b\/items\/\$ref|\/\$defs\/b\/items\/\$ref → \/\$defs\/a\/items\/\$ref/)
  })
})

describe('§5.3 times as people write them', () => {
  const at = (schema: object): Finding | undefined => lint(closed({ at: { maxLength: 40, ...schema } }), { decoders: [] }).find((f) => f.rule === 'time-strict')
  it('warns at a time or date-time format that the seconds and an offset are wanted, with an example', () => {
    for (const format of ['time', 'date-time']) {
      const finding = at({ type: 'string', format })
      assert.deepEqual({ ...finding, message: undefined }, { rule: 'time-strict', severity: 'warning', pointer: '/properties/at/format', message: undefined, section: '5.3', decoders: [] })
      // what it says is what the address does, and what an independent validator does
      const [, example, written] = /as "([^"]+)": (.+) is refused with a bare 204\. Show actors the shape: "examples": \["\1"\]\.$/.exec(finding?.message ?? '') ?? []
      const refused = [...(written ?? '').matchAll(/"([^"]+)"/g)].map((m) => m[1] as string)
      assert.equal(refused.length, 2, finding?.message)
      const form = { type: 'string' as const, format }
      const address = compileForm(form, '/at')
      const independent = new Validator(form, '2020-12')
      for (const [text, valid] of [[example as string, true], ...refused.map((text) => [text, false] as const)] as const) {
        assert.equal(address(text), valid, `the address: ${text}`)
        assert.equal(independent.validate(text).valid, valid, `@cfworker/json-schema: ${text}`)
      }
    }
  })
  it('is quiet where an example shows the shape, and about other formats', () => {
    assert.equal(at({ type: 'string', format: 'time', examples: ['09:00:00+01:00'] }), undefined)
    assert.equal(at({ type: 'string', format: 'date-time', examples: [3, '2026-12-07T09:00:00.5z'] }), undefined)
    assert.equal(at({ type: 'string', format: 'time', examples: ['09:00'] })?.rule, 'time-strict', 'an example without seconds shows the wrong shape')
    assert.equal(at({ type: 'string', format: 'date-time', examples: ['09:00:00Z'] })?.rule, 'time-strict', 'a date-time needs its date')
    assert.equal(at({ type: 'string', format: 'date' }), undefined)
    assert.equal(at({ type: 'string', format: 'constructor' }), undefined)
  })
})

describe('the form and the address disagree', () => {
  it('flags integers past 2^53-1 unless bounded within the safe range', () => {
    assert.ok(rules(closed({ n: { type: 'integer' } })).includes('integer-unsafe /properties/n'))
    assert.ok(rules(closed({ n: { type: 'number', minimum: 0, maximum: 2 ** 60 } })).includes('integer-unsafe /properties/n'))
    assert.ok(!rules(closed({ n: { type: 'integer', minimum: 0, maximum: 10 } })).includes('integer-unsafe /properties/n'))
  })
  it('flags an integer literal in enum or const past 2^53-1, which no body the parser takes can write', () => {
    for (const n of [{ enum: [1, 2 ** 60] }, { const: -(2 ** 54) }, { type: 'integer', enum: [2 ** 53] }]) {
      const found = lint(closed({ n })).filter((f) => f.rule === 'integer-unsafe')
      assert.deepEqual(found.map((f) => f.pointer), ['/properties/n'], JSON.stringify(n))
      assert.match(found[0]!.message, /integer literal here is past 2\^53-1/)
    }
    for (const n of [{ enum: [1, 2 ** 53 - 1, 1.5] }, { const: -(2 ** 53 - 1) }, { enum: ['9007199254740993'] }]) {
      assert.deepEqual(lint(closed({ n })).filter((f) => f.rule === 'integer-unsafe'), [], JSON.stringify(n))
    }
  })
  it('flags an open object that admits "__proto__", unless its names exclude it', () => {
    assert.ok(rules({ type: 'object' }).includes('proto-member '))
    assert.ok(!rules({ type: 'object', propertyNames: { maxLength: 3 } }).includes('proto-member '))
    assert.ok(!rules({ type: 'object', propertyNames: { enum: ['a'] } }).includes('proto-member '))
    assert.ok(!rules({ type: 'object', propertyNames: { pattern: '^[a-z]+$' } }).includes('proto-member '))
    assert.ok(!rules({ type: 'object', propertyNames: false }).includes('proto-member '))
    assert.ok(rules({ type: 'object', propertyNames: { pattern: '(' } }).includes('proto-member '))
    assert.ok(rules({ ...closed({}), patternProperties: { proto: { const: 1 } } }).includes('proto-member '))
  })
  it('compares the smallest and largest encodings with bodyLimit', () => {
    const long = closed({ s: { type: 'string', minLength: 100, maxLength: 100 } })
    const find = (form: unknown, bodyLimit: number): Finding | undefined => lint(form, { decoders: [], bodyLimit }).find((f) => f.rule === 'body-beyond-limit')
    assert.equal(find(long, 50)?.severity, 'error')
    assert.equal(find(long, 200)?.severity, 'warning')
    assert.equal(find(long, 1000), undefined)
    assert.match(find(closed({ s: { type: 'string' } }), 1000)?.message ?? '', /without bound/)
  })
  it('compares nesting with maxDepth', () => {
    const deep = { type: 'array', minItems: 1, maxItems: 1, items: { type: 'array', minItems: 1, maxItems: 1, items: { const: 1 } } }
    const find = (form: unknown, maxDepth: number): Finding | undefined => lint(form, { decoders: [], maxDepth }).find((f) => f.rule === 'depth-beyond-limit')
    assert.equal(find(deep, 1)?.severity, 'error')
    assert.equal(find({ ...deep, minItems: 0 }, 1)?.severity, 'warning')
    assert.equal(find(deep, 2), undefined)
    assert.equal(find({ type: 'array', items: {} }, Infinity), undefined)
  })
  it('says a form that admits nothing leaves no one able to act', () => {
    for (const form of [false, { enum: [] }, { not: {} }, { type: 'string', minLength: 3, maxLength: 2 }, { type: 'integer', minimum: 3, maximum: 2 },
      closed({ a: false }), { type: 'integer', exclusiveMinimum: 1, exclusiveMaximum: 1 }, { allOf: [{ type: 'string' }, { type: 'null' }] },
      { anyOf: [{ enum: [] }, false] }, { type: [] }, closed({ a: { type: 'array', minItems: 1, items: false } })]) {
      const found = lint(form, { decoders: [] })
      assert.equal(found[0]?.rule, 'form-admits-nothing', JSON.stringify(form))
      assert.equal(found[0]?.severity, 'error')
    }
    assert.ok(rules(closed({ a: { enum: [] } }, [])).includes('admits-nothing /properties/a/enum'))
    assert.ok(!rules(closed({ a: { enum: [] } }, [])).includes('form-admits-nothing '))
  })
})

describe('extents', () => {
  it('bounds the encoding of what a form admits', () => {
    const of = extents(corpus['poll'] as never)
    assert.deepEqual(of(corpus['poll'] as never), { minBytes: 17, maxBytes: 19, minDepth: 1, maxDepth: 1 })
    const tuple = { type: 'array', prefixItems: [{ const: 'ab' }, { type: 'boolean' }], items: false }
    assert.deepEqual(extents(tuple)(tuple), { minBytes: 2, maxBytes: 12, minDepth: 1, maxDepth: 1 })
    const ints = { type: 'integer', minimum: -20, maximum: 300 }
    assert.deepEqual(extents(ints)(ints), { minBytes: 1, maxBytes: 3, minDepth: 0, maxDepth: 0 })
    const positive = { anyOf: [{ type: 'number', exclusiveMinimum: 1000 }, { type: 'number', maximum: -50 }] }
    assert.equal(extents(positive)(positive).minBytes, 3)
  })
})

describe('decoder profiles', () => {
  it('errs on refusals by decoders named, and only warns across them all', () => {
    const open = { type: 'object', properties: { a: { const: 1 } }, additionalProperties: true }
    assert.equal(lint(open, { decoders: ['openai-strict'] }).find((f) => f.rule === 'decoder-refuses')?.severity, 'error')
    assert.equal(lint(open).find((f) => f.rule === 'decoder-refuses')?.severity, 'warning')
    assert.throws(() => lint(open, { decoders: ['gpt-9' as never] }), /unknown decoder "gpt-9"/)
  })
  it('knows the documented limits of OpenAI strict mode', () => {
    let deep: object = { const: 1 }
    for (let i = 0; i < 12; i++) deep = closed({ a: deep })
    const refusals = (form: unknown): string[] => lint(form, { decoders: ['openai-strict'] }).filter((f) => f.rule === 'decoder-refuses').map((f) => f.message)
    assert.match(refusals(deep).join(), /12 levels of nesting/)
    const many = closed({ a: { enum: Array.from({ length: 1001 }, (_, i) => i) } })
    assert.match(refusals(many).join(), /1001 enum values/)
    const wide = closed({ a: { enum: Array.from({ length: 300 }, (_, i) => `${i}`.padEnd(60, 'x')) } })
    assert.match(refusals(wide).join(), /15,000 characters/)
    const names = closed(Object.fromEntries(Array.from({ length: 5001 }, (_, i) => [`p${i}`.padEnd(30, 'x'), { const: 1 }])))
    assert.match(refusals(names).join(), /5001 properties.*characters of property names/)
  })
  it('judges every profile on every corpus form without throwing', () => {
    for (const form of Object.values(corpus)) assert.ok(Array.isArray(lint(form)))
    const odd = { type: ['string', 'null'], format: 'hostname', pattern: '(?=a)', $ref: '#/$defs/nope', anyOf: [true], prefixItems: [true] }
    assert.ok(lint(odd).length > 0)
  })
})

describe('fastify-gpt lint', () => {
  const io = (): { out: string[], err: string[], io: { out: (t: string) => void, err: (t: string) => void } } => {
    const out: string[] = []
    const err: string[] = []
    return { out, err, io: { out: (t) => out.push(t), err: (t) => err.push(t) } }
  }
  const file = (form: unknown): string => {
    const path = join(mkdtempSync(join(tmpdir(), 'lint-')), 'form.json')
    writeFileSync(path, JSON.stringify(form))
    return path
  }

  it('prints findings like a linter, and exits 0 without errors', async () => {
    const run = io()
    assert.equal(await main([file(closed({ s: { type: 'string' } }))], run.io), 0)
    assert.match(run.out.join(''), /\/properties\/s\n {2}warning string-unbounded {2}Strings here[^\n]*\[draft §7\.2\]/)
    assert.match(run.out.join(''), /0 errors, \d+ warnings, \d+ notes/)
  })
  it('exits 1 on errors, prints JSON with --json, and judges only the decoders named', async () => {
    const run = io()
    assert.equal(await main([file({ type: 'integer' }), '--json', '--decoder', 'openai-strict', '--body-limit', '100', '--max-depth', '3'], run.io), 1)
    const { findings, profiles } = JSON.parse(run.out.join('')) as { findings: Finding[], profiles: Array<{ decoder: string, version: string, verdict: string }> }
    assert.ok(findings.some((f) => f.rule === 'decoder-refuses' && f.severity === 'error' && f.decoders.join() === 'openai-strict'))
    // the converter and version the verdict rests on
    assert.deepEqual(profiles.map(({ decoder, verdict }) => [decoder, verdict]), [['openai-strict', 'refused']])
    assert.match(profiles[0]?.version ?? '', /openai/)
    assert.ok(findings.every((f) => f.decoders.every((d) => d === 'openai-strict')))
  })
  it('a form the plugin would refuse at registration: its refusal first, by code, as an error, exit 1', async () => {
    for (const [form, code, message] of [
      [{ type: 'text' }, 'GPT_ERR_FORM_INVALID', /type/],
      [{ type: 'string', pattern: '(a)\\1' }, 'GPT_ERR_FORM_PATTERN', /backreference/],
      [{ type: 'object', properties: { a: { $ref: '#/$defs/none' } } }, 'GPT_ERR_FORM_UNRESOLVED_REF', /\$defs\/none/]
    ] as const) {
      const run = io()
      assert.equal(await main([file(form), '--json'], run.io), 1, code)
      const [first] = (JSON.parse(run.out.join('')) as { findings: Finding[] }).findings
      assert.deepEqual({ rule: first?.rule, severity: first?.severity, pointer: first?.pointer }, { rule: code, severity: 'error', pointer: '' }, code)
      assert.match(first!.message, message, code)
    }
  })
  it('lints the s of an address\'s arrival, fetched with a GET', async () => {
    const server = createServer((request, response) => {
      if (request.url === '/gone') return response.writeHead(404).end()
      if (request.url === '/moved') return response.writeHead(301, { location: '/elsewhere' }).end()
      if (request.url === '/found') return response.writeHead(302).end()
      if (request.url === '/text') return response.writeHead(200, { 'content-type': 'application/json' }).end('{"p": "", "s": {}, }')
      const s = ({ '/scalar': 42, '/list': [{ type: 'integer' }], '/null': null } as Record<string, unknown>)[request.url ?? '']
      if (s !== undefined) return response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ p: '', m: [], s }))
      response.setHeader('content-type', 'application/json')
      response.end(request.url === '/odd' ? '{"p":""}' : JSON.stringify({ p: '', m: [], s: note }))
    }).listen(0, '127.0.0.1')
    await once(server, 'listening')
    const { port } = server.address() as { port: number }
    try {
      const run = io()
      assert.equal(await main([`http://127.0.0.1:${port}/`], run.io), 0)
      assert.match(run.out.join(''), /: 0 errors, 2 warnings, 1 note/)
      const gone = io()
      assert.equal(await main([`http://127.0.0.1:${port}/gone`], gone.io), 2)
      assert.match(gone.err.join(''), /answered 404/)
      const odd = io()
      assert.equal(await main([`http://127.0.0.1:${port}/odd`], odd.io), 2)
      assert.match(odd.err.join(''), /no arrival/)
      // Each a line of its own, exit 2: what the URL answered instead of an arrival.
      for (const [path, said] of [
        ['/moved', /^fastify-gpt lint: GET http:\/\/[^ ]+\/moved answered 301 \(to \/elsewhere\): lint follows no redirect; give the address's own URL\n$/],
        ['/found', /answered 302: lint follows no redirect/],
        ['/text', /\/text is no arrival: not strictly valid JSON \(/],
        ['/scalar', /\/scalar is not a JSON Schema object \(it is a number\)/],
        ['/list', /\/list is not a JSON Schema object \(it is an array\)/],
        ['/null', /\/null is not a JSON Schema object \(it is null\)/]
      ] as const) {
        const run = io()
        assert.equal(await main([`http://127.0.0.1:${port}${path}`], run.io), 2, path)
        assert.match(run.err.join(''), said, path)
        assert.deepEqual(run.out, [], path)
      }
    } finally {
      server.close()
    }
  })
  it('says how to use it, and refuses what it cannot read', async () => {
    const help = io()
    assert.equal(await main(['--help'], help.io), 0)
    assert.match(help.out.join(''), /usage: fastify-gpt lint/)
    for (const argv of [[], ['a', 'b'], ['--decoder', 'gpt-9', 'a'], ['--body-limit', '-1', 'a'], ['--nope']]) {
      const run = io()
      assert.equal(await main(argv, run.io), 2, argv.join(' '))
      assert.match(run.err.join(''), /usage:/)
    }
    const missing = io()
    assert.equal(await main(['/nonexistent/form.json'], missing.io), 2)
    assert.match(missing.err.join(''), /cannot read/)
  })
})
