import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import Fastify from 'fastify'
import gpt, { MAX_DEPTH_CEILING, type GptAddress, type GptOptions } from '../../src/index.ts'
import type { JsonObject } from '../../src/form/compile.ts'
import { lint, runtimeVerdicts } from '../../src/lint/index.ts'
import { DEFAULT_MAX_DEPTH } from '../../src/parse/parse.ts'
import { ownMaxDepth } from '../../src/address/review.ts'
import { unroll } from '../../src/unroll/unroll.ts'

interface Entry { level: number, msg: string, address?: string, lint?: { errors: number, warnings: number, first: string[] }, maxDepth?: number }

/** A host with the given addresses, and every line it logs at info or above. */
async function host (addresses: Array<Partial<GptOptions> & { form: object, prefix?: string }>) {
  const lines: Entry[] = []
  const app = Fastify({ logger: { level: 'info', stream: { write: (line: string) => { lines.push(JSON.parse(line) as Entry) } } } })
  for (const options of addresses) app.register(gpt, { act: (body: unknown) => body, rateLimit: false, ...options } as GptOptions)
  await app.ready()
  return { app, lines, lints: () => lines.filter((entry) => entry.msg.startsWith('gpt: lint')) }
}

const note = { type: 'object', properties: { note: { type: 'string', minLength: 1 } }, required: ['note'] }
const poll = { type: 'object', properties: { choice: { enum: ['tabs', 'spaces'] } }, required: ['choice'], additionalProperties: false }
// openai-strict refuses an optional property; anthropic loosens minLength.
const optional = { type: 'object', properties: { a: { type: 'string', maxLength: 5 } }, additionalProperties: false }
// the same with a bounded integer, which XGrammar enforces exactly (its bounded strings take raw control characters)
const optionalInteger = { type: 'object', properties: { a: { type: 'integer', minimum: 0, maximum: 5 } }, additionalProperties: false }

describe('lint at registration', () => {
  it('logs one line per address at info, with what lint finds, and nothing per request', async () => {
    const { app, lints } = await host([{ form: note }, { form: poll, prefix: '/poll' }])
    const lines = lints()
    assert.deepEqual(lines.map((entry) => [entry.level, entry.address]), [[30, '/'], [30, '/poll']])
    for (const [entry, form] of [[lines[0], note], [lines[1], poll]] as const) {
      const findings = lint(form)
      assert.equal(entry?.lint?.errors, findings.filter((f) => f.severity === 'error').length)
      assert.equal(entry?.lint?.warnings, findings.filter((f) => f.severity === 'warning').length)
      assert.deepEqual(entry?.lint?.first, findings.filter((f) => f.severity !== 'info').slice(0, 3).map((f) => `${f.rule} at ${f.pointer || '/'}`))
    }
    assert.ok((lines[0]?.lint?.warnings ?? 0) > 3)
    assert.match(lines[0]?.msg ?? '', /^gpt: lint: 0 error\(s\), \d+ warning\(s\): [a-z-]+ at \/[^,]*, .* and \d+ more$/)
    for (let i = 0; i < 3; i++) {
      await app.inject('/')
      await app.inject({ method: 'POST', url: '/', payload: '{"note":"x"}' })
    }
    assert.equal(lints().length, 2)
    await app.close()
  })

  it('lints again on each update of the form, and not with lint: false', async () => {
    let handle!: GptAddress
    const { app, lints } = await host([{ form: note, onAddress: (a: GptAddress) => { handle = a } }, { form: note, prefix: '/quiet', lint: false }])
    assert.equal(lints().length, 1)
    handle.update({ form: poll })
    assert.equal(lints().length, 2)
    assert.match(lints()[1]?.msg ?? '', /^gpt: lint \(update\): 0 error\(s\), 0 warning\(s\)$/)
    await app.close()
  })

  it('fails ready() with GPT_ERR_FORM_DECODER when a required decoder would refuse or loosen the form, naming rule, pointer and decoder', async () => {
    const app = Fastify()
    app.register(gpt, { form: optional, act: () => null, lint: { require: ['openai-strict'] } })
    await assert.rejects(async () => { await app.ready() }, (error: Error & { code: string }) => error.code === 'GPT_ERR_FORM_DECODER' &&
      /address \/: .*: decoder-refuses at \/required \(openai-strict\): .*; decoder-loosens at \/properties\/a\/maxLength \(openai-strict\)/.test(error.message))
    const loose = Fastify()
    loose.register(gpt, { form: { ...poll, properties: { choice: { type: 'string', minLength: 2, maxLength: 9 } } }, act: () => null, lint: { require: ['anthropic'] } })
    await assert.rejects(async () => { await loose.ready() }, /decoder-loosens at \/properties\/choice\/minLength \(anthropic\)/)
    const { app: fine } = await host([{ form: poll, lint: { require: ['openai-strict', 'anthropic', 'xgrammar'] } }])
    await fine.close()
  })

  it('refuses an update that a required decoder would refuse, and keeps the form it had', async () => {
    let handle!: GptAddress
    const { app } = await host([{ form: poll, lint: { require: ['openai-strict'] }, onAddress: (a: GptAddress) => { handle = a } }])
    const etag = handle.etag
    assert.throws(() => handle.update({ form: optional }), { code: 'GPT_ERR_FORM_DECODER' })
    assert.equal(handle.etag, etag)
    assert.deepEqual(handle.form, poll)
    await app.close()
  })

  it('refuses a lint option that is not a boolean or { require: [decoders] }', async () => {
    for (const bad of ['yes', null, [], { require: 'openai-strict' }, { require: [1] }, { require: [], also: 1 }, { require: ['gpt-9'] }]) {
      const app = Fastify()
      app.register(gpt, { form: poll, act: () => null, lint: bad as never })
      await assert.rejects(async () => { await app.ready() }, (error: Error & { code: string }) => error.code === 'GPT_ERR_OPTION_INVALID' && /"lint/.test(error.message), JSON.stringify(bad))
    }
  })

  it('says which runtimes refuse, loosen or take the form exactly', () => {
    const verdicts = Object.fromEntries(runtimeVerdicts(lint(optionalInteger)).map((v) => [v.decoder, v.verdict]))
    assert.equal(verdicts['openai-strict'], 'refused')
    assert.equal(verdicts['xgrammar'], 'exact')
    assert.deepEqual(new Set(runtimeVerdicts(lint(poll)).map((v) => v.verdict)), new Set(['exact']))
    assert.equal(Object.fromEntries(runtimeVerdicts(lint(note)).map((v) => [v.decoder, v.verdict]))['anthropic'], 'loosened')
  })
})

describe('maxDepth from the form (draft §4.2: the published form is the limit)', () => {
  const tree = (levels: number) => unroll({
    type: 'object',
    properties: { kids: { type: 'array', items: { $ref: '#' }, maxItems: 2 } },
    additionalProperties: false
  }, { depth: levels })
  // A value nesting `levels` trees: each level is an object and an array, the last object empty.
  const nested = (levels: number): string => '{"kids":['.repeat(levels - 1) + '{}' + ']}'.repeat(levels - 1)
  const depthOf = (levels: number): number => 2 * levels - 1

  it('raises the default to the depth the form bounds, says so, and accepts what the form admits', async () => {
    const levels = 50 // 99 deep, past the default 64
    const { app, lints } = await host([{ form: tree(levels) }])
    assert.ok(depthOf(levels) > DEFAULT_MAX_DEPTH)
    const line = lints()[0]
    assert.ok((line?.maxDepth ?? 0) >= depthOf(levels))
    assert.match(line?.msg ?? '', new RegExp(`maxDepth raised to ${line?.maxDepth}`))
    assert.equal((await app.inject({ method: 'POST', url: '/', payload: nested(levels) })).statusCode, 200)
    assert.equal((await app.inject({ method: 'POST', url: '/', payload: nested(levels + 1) })).statusCode, 204)
    await app.close()
  })

  it('keeps a maxDepth the options name, and the default for a form that leaves depth unbounded', async () => {
    const recursive = { type: 'object', properties: { kids: { type: 'array', items: { $ref: '#' } } } }
    const { app, lints, lines } = await host([{ form: tree(50), maxDepth: 64 }, { form: recursive, prefix: '/open' }, { form: tree(50), prefix: '/quiet', lint: false }])
    assert.deepEqual(lints().map((line) => line.maxDepth), [undefined, undefined])
    assert.equal((await app.inject({ method: 'POST', url: '/', payload: nested(50) })).statusCode, 204)
    assert.equal((await app.inject({ method: 'POST', url: '/open', payload: nested(50) })).statusCode, 204)
    assert.equal((await app.inject({ method: 'POST', url: '/open', payload: nested(32) })).statusCode, 200)
    // With lint off, the raise still happens, and still says so.
    assert.ok(lines.some((line) => line.address === '/quiet' && line.msg.startsWith('gpt: maxDepth raised to')))
    assert.equal((await app.inject({ method: 'POST', url: '/quiet', payload: nested(50) })).statusCode, 200)
    await app.close()
  })

  it('raises no further than the ceiling', () => {
    const nest = (depth: number): JsonObject => depth === 0 ? { type: 'null' } : { type: 'array', maxItems: 1, items: nest(depth - 1) }
    assert.equal(ownMaxDepth(nest(DEFAULT_MAX_DEPTH)), DEFAULT_MAX_DEPTH)
    assert.equal(ownMaxDepth(nest(300)), 300)
    assert.equal(ownMaxDepth(nest(MAX_DEPTH_CEILING + 1)), MAX_DEPTH_CEILING)
    assert.equal(ownMaxDepth({ type: 'array', items: { $ref: '#' } }), DEFAULT_MAX_DEPTH)
    assert.equal(ownMaxDepth({ type: 'array', items: { type: 'strnig' } } as JsonObject), DEFAULT_MAX_DEPTH)
  })

  it('accepts a body as deep as the validator compiles forms (300 levels, with limits.formDepth raised to let the form through)', async () => {
    const nest = (depth: number): JsonObject => depth === 0 ? { type: 'null' } : { type: 'array', maxItems: 1, items: nest(depth - 1) }
    const { app } = await host([{ form: nest(300), limits: { formDepth: 301 } }])
    const body = (depth: number): string => '['.repeat(depth) + 'null' + ']'.repeat(depth)
    assert.equal((await app.inject({ method: 'POST', url: '/', payload: body(300) })).statusCode, 200)
    assert.equal((await app.inject({ method: 'POST', url: '/', payload: body(301) })).statusCode, 204)
    await app.close()
  })
})
