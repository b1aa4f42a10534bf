// An address's result form through the bridge: the tool's outputSchema (2025-06-18 and later),
// wrapped as a form is where its root is not an object, and structuredContent the same way; a
// result the form does not admit is an error result, never the value. Which results the form
// admits is decided by an independent validator (@cfworker/json-schema), over generated results.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { Validator, type Schema } from '@cfworker/json-schema'
import fc from 'fast-check'
import type { InjectOptions, LightMyRequestResponse } from 'fastify'
import gpt from '../../src/index.ts'
import { FAILED } from '../../src/mcp/call.ts'
import { bridged, callText, raw, rpcText, type Bridged } from './bridge-host.ts'

const counted = {
  type: 'object',
  properties: { count: { type: 'integer', minimum: 0, maximum: 9 }, word: { type: 'string', maxLength: 3 }, flags: { type: 'array', items: { type: 'boolean' }, maxItems: 2 } },
  required: ['count'],
  additionalProperties: false
}
// Not an object at its root, and its $ref by a pointer from that root: wrapped, the $ref moves with it.
const words = { $defs: { word: { type: 'string', maxLength: 3 } }, type: 'array', items: { $ref: '#/$defs/word' }, maxItems: 3 }

let host: Bridged
let next: unknown

before(async () => {
  host = await bridged(async (app) => {
    await app.register(gpt, { prefix: '/counted', form: { type: 'object' }, result: counted, act: () => next, rateLimit: false })
    await app.register(gpt, { prefix: '/words', form: { type: 'object' }, result: words, act: () => next, rateLimit: false })
    await app.register(gpt, { prefix: '/later', form: { type: 'object' }, result: words, background: {}, act: () => next, rateLimit: false })
  })
})
after(async () => { await host.close() })

type Listed = Record<string, unknown>
const tools = async (revision: string): Promise<Listed[]> =>
  (JSON.parse((await raw(host.port, { body: rpcText('tools/list'), headers: { 'mcp-protocol-version': revision } })).body).result as { tools: Listed[] }).tools

describe('outputSchema', () => {
  it('is the result form where its root is an object; wrapped as { value } where not, its $ref moved; with background, either that or a job\'s handle', async () => {
    const [listedCounted, listedWords, listedLater] = await tools('2025-11-25')
    assert.deepEqual(listedCounted!['outputSchema'], counted)
    assert.deepEqual(listedWords!['outputSchema'], {
      type: 'object',
      properties: { value: { $defs: words.$defs, type: 'array', items: { $ref: '#/properties/value/$defs/word' }, maxItems: 3 } },
      required: ['value'],
      additionalProperties: false
    })
    const either = listedLater!['outputSchema'] as { type: string, anyOf: Array<Record<string, unknown>> }
    assert.equal(either.type, 'object')
    assert.deepEqual((either.anyOf[0]!['properties'] as Listed)['value'], { $defs: words.$defs, type: 'array', items: { $ref: '#/anyOf/0/properties/value/$defs/word' }, maxItems: 3 })
    const check = new Validator(either as Schema, '2020-12', false)
    assert.ok(check.validate({ value: ['ab'] }).valid)
    assert.ok(!check.validate({ value: ['abcd'] }).valid, 'the moved $ref still resolves')
    assert.ok(check.validate({ href: '/later/jobs/x', p: 'p', rel: 'monitor', status: 'working', events: '/later/jobs/x/events' }).valid, 'a handle')
  })

  it('only from 2025-06-18: an older revision has no outputSchema', async () => {
    assert.ok((await tools('2025-06-18')).every((tool) => 'outputSchema' in tool))
    for (const revision of ['2025-03-26', '2024-11-05']) assert.ok((await tools(revision)).every((tool) => !('outputSchema' in tool)), revision)
  })

  it('the SDK client validates each result\'s structuredContent against it; a refused result is an error result, never the value', async () => {
    const client = await host.connect()
    await client.listTools() // the client keeps each tool's outputSchema, and checks every result by it
    next = { count: 3, word: 'abc' }
    assert.deepEqual(await client.callTool({ name: 'counted', arguments: {} }), { content: [{ type: 'text', text: '{"count":3,"word":"abc"}' }], structuredContent: { count: 3, word: 'abc' } })
    next = ['a', 'bc']
    assert.deepEqual(await client.callTool({ name: 'words', arguments: {} }), { content: [{ type: 'text', text: '["a","bc"]' }], structuredContent: { value: ['a', 'bc'] } })
    assert.deepEqual(await client.callTool({ name: 'later', arguments: {} }), { content: [{ type: 'text', text: '["a","bc"]' }], structuredContent: { value: ['a', 'bc'] } })
    next = { count: 30, word: 'a secret' }
    assert.deepEqual(await client.callTool({ name: 'counted', arguments: {} }), JSON.parse(FAILED))
  })
})

describe('a result outside the result form is never sent, over POST and tools/call', () => {
  const inject = async (options: InjectOptions): Promise<LightMyRequestResponse> => await host.app.inject(options)
  const call = (name: string): InjectOptions => ({ method: 'POST', url: '/mcp', headers: { 'content-type': 'application/json', 'mcp-protocol-version': '2025-11-25' }, payload: callText(name, '{}') })

  // Near the form and far from it, and values JSON makes something else of (a Date, toJSON, an undefined member, NaN, -0).
  const odd = fc.constantFrom<unknown>(new Date(0), { toJSON: () => ({ count: 2 }) }, { count: 1, word: undefined }, { count: Number.NaN }, { count: -0 }, undefined, null, 'abc', [])
  const near = fc.record({
    count: fc.oneof(fc.integer({ min: -2, max: 11 }), fc.double(), fc.string({ maxLength: 2 })),
    word: fc.oneof(fc.string({ maxLength: 5 }), fc.integer()),
    flags: fc.array(fc.oneof(fc.boolean(), fc.integer()), { maxLength: 3 }),
    more: fc.jsonValue({ maxDepth: 1 })
  }, { requiredKeys: [] })
  const listed = fc.array(fc.oneof(fc.string({ maxLength: 5 }), fc.integer(), fc.constant(undefined)), { maxLength: 4 })

  for (const [name, schema, values] of [['counted', counted, fc.oneof(near, odd, fc.jsonValue({ maxDepth: 2 }))], ['words', words, fc.oneof(listed, odd, fc.jsonValue({ maxDepth: 2 }))]] as const) {
    it(`${name}: sent exactly where @cfworker/json-schema admits the result as sent, else a bare 500 and an error result`, async () => {
      const judge = new Validator(schema as Schema, '2020-12', false)
      const output = new Validator((await tools('2025-11-25')).find((tool) => tool['name'] === name)!['outputSchema'] as Schema, '2020-12', false)
      const seen = { admitted: 0, refused: 0 }
      await fc.assert(fc.asyncProperty(values, async (value) => {
        next = value
        const json = JSON.stringify(value) ?? 'null'
        const admitted = judge.validate(JSON.parse(json)).valid
        seen[admitted ? 'admitted' : 'refused']++
        const posted = await inject({ method: 'POST', url: `/${name}`, headers: { 'content-type': 'application/json' }, payload: '{}' })
        const called = JSON.parse((await inject(call(name))).body).result as { content: Array<{ text: string }>, structuredContent?: unknown, isError?: boolean }
        if (admitted) {
          assert.deepEqual([posted.statusCode, posted.body], [200, json])
          assert.equal(called.content[0]!.text, json)
          assert.ok(output.validate(called.structuredContent).valid, 'structuredContent as the outputSchema has it')
        } else {
          assert.deepEqual([posted.statusCode, posted.body], [500, ''])
          assert.deepEqual(called, JSON.parse(FAILED))
        }
      }), { numRuns: 150, seed: 20261207 }) // seeded: the share of each kind below depends on the draw
      assert.ok(seen.admitted >= 15 && seen.refused >= 15, `both kinds of result, each often: ${JSON.stringify(seen)}`)
    })
  }
})
