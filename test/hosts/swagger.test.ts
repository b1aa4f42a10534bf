import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import SwaggerParser from '@apidevtools/swagger-parser'
import swagger from '@fastify/swagger'
import Fastify, { type FastifyInstance } from 'fastify'
import gpt, { type GptAddress, type GptOptions } from '../../src/index.ts'
import { arrivalNeedsNothingAndNeverVaries, everyRejectionTheSameBare204 } from '../helpers/beside.ts'
import { registrationError } from '../helpers/host.ts'

// What draft §4.2 and unroll() produce: a form whose $ref points into its own $defs.
const tree = {
  $defs: {
    node: {
      type: 'object',
      properties: { name: { type: 'string', maxLength: 20 }, children: { type: 'array', items: { $ref: '#/$defs/node' }, maxItems: 4 } },
      required: ['name'],
      additionalProperties: false
    }
  },
  $ref: '#/$defs/node'
}

/** A host with @fastify/swagger (OpenAPI 3), a described route of its own, and an address at /tree. */
async function described (options: Partial<GptOptions> = {}): Promise<{ app: FastifyInstance, address: GptAddress, seen: unknown[] }> {
  const app = Fastify()
  const seen: unknown[] = []
  let address!: GptAddress
  await app.register(swagger, { openapi: { info: { title: 'host', version: '1.0.0' } } })
  app.post('/own', { schema: { body: { type: 'object', properties: { a: { type: 'string' } } } } }, async () => 'ok')
  await app.register(gpt, { prefix: '/tree', form: tree, act: (body) => { seen.push(body); return { ok: true } }, rateLimit: false, onAddress: (handle) => { address = handle }, ...options })
  await app.ready()
  return { app, address, seen }
}

/** Every JSON Schema object in an OpenAPI document that could state a body or a response. */
function everyString (value: unknown): string {
  return JSON.stringify(value)
}

describe('one truth beside @fastify/swagger (draft §1, §7.3)', () => {
  it('hides the address\'s routes by default: the document is valid and shows no form', async () => {
    const { app } = await described()
    const document = app.swagger()
    await SwaggerParser.validate(structuredClone(document) as never)
    assert.deepEqual(Object.keys(document.paths ?? {}), ['/own'], 'only the host\'s own route')
    assert.ok(!everyString(document).includes('$defs'))
    await app.close()
  })

  for (const openapi of [true, { tags: ['gpt'] }] as const) {
    it(`with openapi: ${JSON.stringify(openapi)}, describes both routes by reference to the arrival: valid, and never a copy of the form`, async () => {
      const { app, address } = await described({ openapi })
      const document = app.swagger()
      await SwaggerParser.validate(structuredClone(document) as never)
      const operations = document.paths?.['/tree'] as Record<string, { tags?: string[], requestBody?: unknown, description?: string }>
      assert.deepEqual(Object.keys(operations).sort(), ['get', 'post'])
      if (openapi !== true) assert.deepEqual(operations['post']?.tags, ['gpt'])
      assert.match(String(operations['post']?.description), /GET \/tree/)
      const text = everyString(operations)
      assert.ok(!text.includes('$defs') && !text.includes('"maxLength"') && !text.includes('children'), 'the form is not copied')

      // update() changes what s serves; the document, already built, states no form to go stale
      address.update({ form: { type: 'object', properties: { title: { type: 'string' } }, required: ['title'], additionalProperties: false } })
      const after = app.swagger()
      assert.ok(!everyString(after.paths?.['/tree']).includes('children'))
      assert.ok(!everyString(after.paths?.['/tree']).includes('title'))
      await SwaggerParser.validate(structuredClone(after) as never)
      await app.close()
    })
  }

  it('keeps the draft\'s invariants with swagger present, and the act sees exactly the value sent', async () => {
    const { app, seen } = await described({ openapi: true })
    await app.inject({ method: 'GET', url: '/documentation/json' }) // the host's own docs route, if any
    await arrivalNeedsNothingAndNeverVaries(app, '/tree', [{ method: 'POST', url: '/tree', payload: '{"name":"a"}' }])
    const body = { name: 'root', children: [{ name: 'leaf' }] }
    assert.equal((await app.inject({ method: 'POST', url: '/tree', payload: JSON.stringify(body) })).statusCode, 200)
    assert.deepEqual(seen.at(-1), body)
    const form = { s: (await app.inject('/tree')).json().s }
    assert.deepEqual(form.s, tree)
    await everyRejectionTheSameBare204(app, '/tree', [{ payload: '{"name":"a","children":[{}]}' }, { payload: '{"name":"a","extra":1}' }])
    await app.close()
  })

  it('says, with idempotency, that the act honours Idempotency-Key and what it may answer: a valid document', async () => {
    for (const idempotency of [true, { keep: 1000 }, false]) {
      const { app } = await described({ openapi: true, idempotency })
      const document = app.swagger() as { paths: Record<string, { post: { parameters?: Array<{ in: string, name: string }>, responses: Record<string, unknown> } }> }
      await SwaggerParser.validate(structuredClone(document) as never)
      const post = document.paths['/tree']!.post
      const on = idempotency !== false
      assert.equal(post.parameters?.some((parameter) => parameter.in === 'header' && parameter.name === 'idempotency-key') === true, on)
      assert.deepEqual(['400', '409', '422'].map((status) => status in post.responses), [on, on, on])
      await app.close()
    }
  })

  it('summarizes both routes by the address\'s title, else its prompt\'s first sentence, else in general words', async () => {
    const summaries = async (options: Partial<GptOptions>): Promise<[unknown, unknown]> => {
      const { app } = await described({ openapi: true, ...options })
      const document = app.swagger() as { paths: Record<string, Record<'get' | 'post', { summary?: string }>> }
      await SwaggerParser.validate(structuredClone(document) as never)
      await app.close()
      return [document.paths['/tree']!.get.summary, document.paths['/tree']!.post.summary]
    }
    assert.deepEqual(await summaries({ title: 'Grow a tree', prompt: 'Not this. Nor this.' }), ['Grow a tree (the arrival: its prompt, messages and form)', 'Grow a tree'])
    assert.deepEqual(await summaries({ prompt: 'Plant a tree. Name it.' }), ['Plant a tree. (the arrival: its prompt, messages and form)', 'Plant a tree.'])
    assert.deepEqual(await summaries({}), ['The arrival: the prompt, the messages and the form', 'An act: a JSON value the form admits'])
  })

  it('states the result form as the 200, unless it holds a $ref (parted from its $defs there): a valid document', async () => {
    const result = { type: 'object', properties: { count: { type: 'integer', minimum: 0 } }, required: ['count'], additionalProperties: false }
    const ok = async (options: Partial<GptOptions>): Promise<Record<string, unknown>> => {
      const { app } = await described({ openapi: true, ...options })
      const document = app.swagger() as { paths: Record<string, { post: { responses: Record<string, { content?: Record<string, { schema: Record<string, unknown> }> }> } }> }
      await SwaggerParser.validate(structuredClone(document) as never)
      await app.close()
      const response = document.paths['/tree']!.post.responses['200']!
      return response.content?.['application/json']?.schema ?? {}
    }
    const stated = await ok({ result })
    assert.deepEqual(stated['properties'], result.properties)
    assert.deepEqual(stated['required'], ['count'])
    assert.deepEqual(Object.keys(await ok({ result: tree })), ['description'], 'a $ref: no schema, the words alone')
    const either = await ok({ result, background: {} })
    assert.deepEqual((either['anyOf'] as Array<Record<string, unknown>>)[0]!['properties'], result.properties, 'with background: the result, or a job\'s handle')
    assert.equal((either['anyOf'] as Array<Record<string, unknown>>)[1]!['type'], 'object')
  })

  it('refuses an openapi option that is neither a boolean nor { tags }', async () => {
    for (const openapi of ['yes', { tags: 'gpt' }, { tags: [], hide: true }, null]) {
      const error = await registrationError({ form: {}, openapi }) as Error & { code?: string }
      assert.equal(error?.code, 'GPT_ERR_OPTION_INVALID')
      assert.match(error.message, /"openapi" must be a boolean or \{ tags: \[strings\] \}/)
    }
  })
})
