// tools/list: every address of the host as one tool, named from its path, described by its p (and
// m), its inputSchema the form itself; a form MCP cannot take as it is (not an object) wrapped as
// the one member "value" of one, held to an independent validator (@cfworker/json-schema).
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { Validator, type Schema } from '@cfworker/json-schema'
import fc from 'fast-check'
import Fastify from 'fastify'
import gpt, { type GptOptions } from '../../src/index.ts'
import mcp, { REFUSAL, type McpOptions } from '../../src/mcp/index.ts'
import { toolName, wrap } from '../../src/mcp/tools.ts'
import { bridged, callText, noteForm, raw, resultText } from './bridge-host.ts'

interface ListedTool {
  name: string
  description?: string
  inputSchema: Record<string, unknown>
  _meta?: Record<string, unknown>
}

describe('tools/list', () => {
  it('names each tool from its path, describes it by p (and m as JSON), takes the form as it is, and names the address and its ETag', async () => {
    const messages = [{ role: 'user', content: 'I want two.' }, { role: 'assistant', content: 'Which colour?' }]
    const host = await bridged(async (app) => {
      await app.register(gpt, { prefix: '/orders/new', prompt: 'Place an order.', messages, form: noteForm, act: () => null, rateLimit: false })
      await app.register(gpt, { prompt: 'The front door.', form: { type: 'object', properties: { go: { type: 'boolean' } } }, act: () => null, rateLimit: false })
      await app.register(gpt, { prefix: '/a.b-c/d', form: { type: 'object' }, act: () => null, rateLimit: false })
    })
    try {
      const client = await host.connect()
      const { tools } = await client.listTools() as { tools: ListedTool[] }
      assert.deepEqual(tools.map((tool) => tool.name), ['orders_new', 'root', 'a.b-c_d'], 'in the order the addresses registered')
      for (const [tool, path] of [[tools[0]!, '/orders/new'], [tools[1]!, '/'], [tools[2]!, '/a.b-c/d']] as const) {
        const get = await fetch(host.origin + path)
        const arrival = await get.json() as { p: string, m: unknown[], s: unknown }
        assert.deepEqual(tool.inputSchema, arrival.s, `${path}: inputSchema is the form`)
        assert.deepEqual(tool._meta, { 'fastify-gpt/address': path, 'fastify-gpt/etag': get.headers.get('etag'), ui: { resourceUri: `ui://fastify-gpt/${tool.name}` } })
        const described = arrival.m.length === 0 ? arrival.p : `${arrival.p}\n\nPrior messages (m), as JSON: ${JSON.stringify(arrival.m)}`
        assert.equal(tool.description, described)
      }
      assert.equal(tools[0]!.description, `Place an order.\n\nPrior messages (m), as JSON: ${JSON.stringify(messages)}`)
      assert.equal(tools[1]!.description, 'The front door.', 'no m: p alone')
      assert.equal(tools[2]!.description, '')
    } finally {
      await host.close()
    }
  })

  it('lists nothing when the host has no address, and serves the bridge at its own path', async () => {
    const host = await bridged(() => {}, { path: '/tools/mcp' })
    try {
      const client = await host.connect()
      assert.deepEqual((await client.listTools()).tools, [])
      assert.equal((await raw(host.port, { body: '{"jsonrpc":"2.0","id":1,"method":"ping"}' })).status, 404, 'not at /mcp')
    } finally {
      await host.close()
    }
  })

  it('takes the host\'s own toolName', async () => {
    const host = await bridged(async (app) => {
      await app.register(gpt, { prefix: '/orders/new', form: noteForm, act: () => null, rateLimit: false })
    }, { toolName: (path) => `shop${path.replaceAll('/', '-')}` })
    try {
      const client = await host.connect()
      assert.deepEqual((await client.listTools()).tools.map((tool) => tool.name), ['shop-orders-new'])
      const called = await client.callTool({ name: 'shop-orders-new', arguments: { note: 'a' } })
      assert.deepEqual(called.content, [{ type: 'text', text: 'null' }])
    } finally {
      await host.close()
    }
  })

  it('toolName: segments joined by _, any other character _, / is root', () => {
    assert.equal(toolName('/orders/new'), 'orders_new')
    assert.equal(toolName('/'), 'root')
    assert.equal(toolName('//'), 'root')
    assert.equal(toolName('/a/b/'), 'a_b')
    assert.equal(toolName('/über/café'), '_ber_caf_')
    assert.equal(toolName('/v1.2/x-y_z'), 'v1.2_x-y_z')
  })
})

/** The error `ready()` rejects with, for these addresses and bridge options. */
async function readyError (paths: string[], options: McpOptions = {}): Promise<{ code?: string, message: string } | undefined> {
  const app = Fastify()
  for (const path of paths) app.register(gpt, { ...(path === '/' ? {} : { prefix: path }), form: noteForm, act: () => null, rateLimit: false })
  app.register(mcp, options)
  try {
    await app.ready()
    return undefined
  } catch (error) {
    return error as { code?: string, message: string }
  } finally {
    await app.close().catch(() => {})
  }
}

describe('tool names the host cannot have', () => {
  it('two addresses that would be one tool fail ready() with GPT_ERR_MCP_TOOL_NAME, naming both', async () => {
    const error = await readyError(['/orders/new', '/orders_new'])
    assert.equal(error?.code, 'GPT_ERR_MCP_TOOL_NAME')
    assert.match(error.message, /\/orders\/new and \/orders_new would both be the tool "orders_new"/)
    assert.equal((await readyError(['/orders/new', '/orders/old']))?.code, undefined, 'two names: fine')
  })

  it('a name MCP does not allow (a character, the length, none at all) fails ready() too', async () => {
    for (const name of ['bad name', 'x'.repeat(129), '', 'a/b']) {
      const error = await readyError(['/a'], { toolName: () => name })
      assert.equal(error?.code, 'GPT_ERR_MCP_TOOL_NAME', JSON.stringify(name))
      assert.match(error.message, /is not 1 to 128 of/)
    }
    assert.equal(await readyError(['/a'], { toolName: () => 'x'.repeat(128) }), undefined, '128 is allowed')
    assert.equal((await readyError(['/' + 'x'.repeat(129)]))?.code, 'GPT_ERR_MCP_TOOL_NAME', 'a long path is a long name')
  })
})

/** Non-object forms, each with `$ref`s from its root (and ones that must not move), for the wrapping. */
const WRAPPED: Record<string, Record<string, unknown>> = {
  'items by $defs': { $defs: { pos: { type: 'integer', minimum: 1 } }, type: 'array', items: { $ref: '#/$defs/pos' }, maxItems: 4 },
  'a tree through $defs': { $defs: { node: { anyOf: [{ type: 'integer' }, { type: 'array', items: { $ref: '#/$defs/node' }, maxItems: 3 }] } }, $ref: '#/$defs/node' },
  'the root itself': { type: 'array', items: { $ref: '#' }, maxItems: 2 },
  'an object among others': {
    anyOf: [{ type: 'string', maxLength: 3 }, { type: 'object', properties: { a: { $ref: '#/$defs/flag' } }, required: ['a'], additionalProperties: false }, { type: 'null' }],
    $defs: { flag: { type: 'boolean' } }
  },
  'prefixItems, if/then/else, not': {
    type: 'array',
    prefixItems: [{ $ref: '#/$defs/small' }, { $ref: '#/$defs/word' }],
    items: false,
    $defs: { small: { type: 'integer', maximum: 3 }, word: { if: { type: 'string' }, then: { minLength: 1 }, else: { not: { $ref: '#/$defs/small' } } } }
  },
  'a root with an $id of its own': { $id: 'https://example.com/root', $defs: { a: { type: 'integer', minimum: 0 } }, type: 'array', items: { $ref: '#/$defs/a' } },
  'draft 7 definitions': { definitions: { a: { enum: [1, 'a', null] } }, type: 'array', items: { $ref: '#/definitions/a' } },
  'an $anchor': { $defs: { small: { $anchor: 'small', type: 'integer', maximum: 2 } }, type: 'array', items: { $ref: '#small' } },
  'data that looks like a $ref': { enum: [{ $ref: '#/x' }, { $ref: '#' }, 1, 'a'] },
  '$schema, and type naming object among others': {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    type: ['object', 'null'],
    properties: { a: { $ref: '#/$defs/n' } },
    $defs: { n: { type: 'number' } }
  },
  'patternProperties, dependentSchemas, propertyNames': {
    type: ['object', 'boolean'],
    patternProperties: { '^x': { $ref: '#/$defs/i' } },
    dependentSchemas: { a: { required: ['b'], properties: { b: { $ref: '#/$defs/i' } } } },
    propertyNames: { maxLength: 2 },
    $defs: { i: { type: 'integer' } }
  },
  'pointers with escapes': {
    $defs: { 'a b': { type: 'integer' }, 'c/d': { type: 'string' }, 'e~f': { type: 'null' } },
    type: 'array',
    prefixItems: [{ $ref: '#/$defs/a%20b' }, { $ref: '#/$defs/c~1d' }, { $ref: '#/$defs/e~0f' }]
  },
  'a plain string': { type: 'string', maxLength: 4 },
  'anything at all': {}
}

/** Small values of every kind, with the member names the forms above look at, and trees of arrays alone. */
const values: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown, tree: unknown }>((tie) => ({
  tree: fc.oneof({ depthSize: 'small' }, fc.constant([]), fc.integer({ min: 0, max: 3 }), fc.array(tie('tree'), { maxLength: 3 })),
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    tie('tree'),
    fc.integer({ min: -2, max: 5 }),
    fc.double({ noNaN: true, noDefaultInfinity: true, min: -10, max: 10 }),
    fc.boolean(),
    fc.constant(null),
    fc.constantFrom('', 'a', 'ab', 'abcd', 'abcde', '#/x'),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(fc.constantFrom('a', 'b', 'x1', 'xy', 'value', '$ref', 'long'), tie('value'), { maxKeys: 3, noNullPrototype: true })
  )
})).value

describe('a form that is not an object, wrapped', () => {
  it('is the one required member "value" of a closed object, its root $refs moved under #/properties/value', async () => {
    const form = { $defs: { pos: { type: 'integer' } }, type: 'array', items: { $ref: '#/$defs/pos' }, contains: { $ref: '#' } }
    assert.deepEqual(wrap(form), {
      type: 'object',
      properties: { value: { $defs: { pos: { type: 'integer' } }, type: 'array', items: { $ref: '#/properties/value/$defs/pos' }, contains: { $ref: '#/properties/value' } } },
      required: ['value'],
      additionalProperties: false
    })
    assert.deepEqual(wrap({ $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'string' }), {
      $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', properties: { value: { type: 'string' } }, required: ['value'], additionalProperties: false
    }, '$schema goes to the new root')
    const withId = { type: 'array', items: { $id: 'https://example.com/item', $ref: '#/$defs/s', $defs: { s: { type: 'string' } } } }
    assert.deepEqual((wrap(withId)['properties'] as Record<string, unknown>)['value'], withId, 'a subschema with an $id of its own is its own resource: as it is')
    assert.deepEqual(wrap({ $dynamicRef: '#/$defs/a', allOf: [{ $dynamicRef: '#node' }] }), {
      type: 'object', properties: { value: { $dynamicRef: '#/properties/value/$defs/a', allOf: [{ $dynamicRef: '#node' }] } }, required: ['value'], additionalProperties: false
    }, '$dynamicRef by pointer moves, by anchor stays')
  })

  for (const [what, form] of Object.entries(WRAPPED)) {
    it(`accepts {value: x} exactly when the form accepts x (${what})`, async () => {
      const host = await bridged(async (app) => {
        await app.register(gpt, { prefix: '/w', form, act: (body: unknown) => ({ got: body }), rateLimit: false, lint: false } as unknown as GptOptions)
      })
      try {
        const client = await host.connect()
        const [tool] = (await client.listTools()).tools as ListedTool[]
        const schema = tool!.inputSchema
        assert.equal(schema['type'], 'object')
        assert.deepEqual(schema['required'], ['value'])
        assert.equal(schema['additionalProperties'], false)
        if (what === 'a plain string') assert.deepEqual(schema, { type: 'object', properties: { value: form }, required: ['value'], additionalProperties: false }, 'exactly the wrapping, through tools/list')
        const original = new Validator(form as Schema, '2020-12')
        const wrapper = new Validator(schema as Schema, '2020-12')
        let accepted = 0
        let refused = 0
        fc.assert(fc.property(values, fc.constantFrom('a', 'extra', 'values'), (x, other) => {
          const ok = original.validate(x).valid
          if (ok) accepted++
          else refused++
          assert.equal(wrapper.validate({ value: x }).valid, ok)
          assert.equal(wrapper.validate({ value: x, [other]: 1 }).valid, false, 'no other member')
          assert.equal(wrapper.validate({}).valid, false, 'value is required')
        }), { numRuns: 400, seed: 20261203 })
        assert.ok(accepted >= 20 && refused >= (what === 'anything at all' ? 0 : 20), `both outcomes tried often (${accepted} accepted, ${refused} refused)`)
        // The bridge decides as the original form does: a sample of calls.
        const sample = fc.sample(values, { numRuns: 25, seed: 7 })
        for (const x of sample) {
          const response = await raw(host.port, { body: callText('w', JSON.stringify({ value: x })) })
          const ok = original.validate(x).valid
          if (ok) assert.deepEqual(JSON.parse(response.body).result.structuredContent, { got: x }, JSON.stringify(x))
          else assert.equal(response.body, resultText(REFUSAL), JSON.stringify(x))
        }
      } finally {
        await host.close()
      }
    })
  }
})
