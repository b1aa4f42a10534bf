// The cost of an edition: building one (audit, compile, lint, extents, arrival, page) is bounded
// by the size of the form's text, never by the numbers in it; limits on the form's size and depth,
// the prompt and the messages are checked first, each refused with a named error.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import fc from 'fast-check'
import Fastify, { type FastifyInstance } from 'fastify'
import gpt, { type GptAddress, type GptOptions } from '../src/index.ts'
import { storedContent } from '../src/address/address.ts'
import { compileForm } from '../src/form/compile.ts'
import { DEFAULT_LIMITS, measureForm, resolveLimits, storedBytes } from '../src/limits.ts'
import { lint } from '../src/lint/index.ts'
import { extents } from '../src/lint/extent.ts'
import { MAX_BUILT, renderInputs } from '../src/page/inputs.ts'

/** Not a timing: a bound on "it ends", generous enough for a loaded machine; the old cost was hours. */
const ENDS_WITHIN = 30_000

const nest = (levels: number, wrap: (inner: object) => object, leaf: object): object => {
  let schema = leaf
  for (let i = 0; i < levels; i++) schema = wrap(schema)
  return schema
}

interface Entry { msg: string }

async function register (options: Partial<GptOptions> & { form: object, prefix?: string }): Promise<{ app: FastifyInstance, address: GptAddress, lines: Entry[] }> {
  const lines: Entry[] = []
  const app = Fastify({ logger: { level: 'info', stream: { write: (line: string) => { lines.push(JSON.parse(line) as Entry) } } } })
  let address: GptAddress | undefined
  app.register(gpt, { act: (body: unknown) => ({ body }), rateLimit: false, onAddress: (a: GptAddress) => { address = a }, ...options } as GptOptions)
  try {
    await app.ready()
  } catch (error) {
    await app.close()
    throw error
  }
  return { app, address: address as GptAddress, lines }
}

/** Registers, and says how long it took: for "it ends" bounds only. */
async function timed<T> (run: () => Promise<T>): Promise<{ value: T, ms: number }> {
  const start = performance.now()
  const value = await run()
  return { value, ms: performance.now() - start }
}

const rejects = async (options: Partial<GptOptions> & { form: object, prefix?: string }, code: string, message: RegExp): Promise<void> => {
  await assert.rejects(register(options), (error: Error & { code?: string }) => {
    assert.equal(error.code, code, error.message)
    assert.match(error.message, message)
    return true
  })
}

const post = async (app: FastifyInstance, payload: string): Promise<number> =>
  (await app.inject({ method: 'POST', url: '/', headers: { 'content-type': 'application/json' }, payload })).statusCode

describe('the cost of an edition does not grow with the numbers in the form', () => {
  it('registers {"type":"array","minItems":1e12} with lint on, and after it an update to 1e15 (both were hours)', async () => {
    const { value: { app, address }, ms } = await timed(() => register({ form: { type: 'array', minItems: 1e12 } }))
    assert.ok(ms < ENDS_WITHIN, `registration took ${ms} ms`)
    assert.equal(await post(app, '[1,2,3]'), 204)
    const update = await timed(async () => { address.update({ form: { type: 'array', minItems: 1e15, items: { type: 'array', minItems: 1e15 } } }) })
    assert.ok(update.ms < ENDS_WITHIN, `update took ${update.ms} ms`)
    assert.equal(await post(app, '[]'), 204)
    await app.close()
  })

  it('computes extents of huge minItems in closed form: the same bound, at once', () => {
    const form = { type: 'array', prefixItems: [{ const: 'ab' }], minItems: 1e12, items: { type: 'array', minItems: 1e9, items: { type: 'null' } } } as const
    const extent = extents(form)(form)
    // "ab" (4 bytes), then 1e12 - 1 arrays of 1e9 nulls (2 + (1e9 - 1) + 4e9 bytes each), and the commas.
    assert.equal(extent.minBytes, 2 + (1e12 - 1) + 4 + (1e12 - 1) * (2 + (1e9 - 1) + 4e9))
    assert.equal(extent.minDepth, 2)
  })

  it('finds registration with huge numbers anywhere (fast-check): it registers or refuses with a named error, and ends', async () => {
    const huge = fc.constantFrom(1e9, 1e12, 1e15, 2 ** 53 - 1, 1e300)
    const count = fc.oneof(huge, fc.nat(5))
    const real = fc.oneof(huge, fc.constantFrom(-1e300, 1e-300, 0.5, -7))
    const leaf = fc.oneof(
      fc.record({ type: fc.constant('string'), minLength: count, maxLength: count }, { requiredKeys: ['type'] }),
      fc.record({ type: fc.constantFrom('number', 'integer'), minimum: real, maximum: real, multipleOf: huge }, { requiredKeys: ['type'] }),
      fc.constant({ type: 'null' })
    )
    const schema = fc.letrec<{ node: object }>((tie) => ({
      node: fc.oneof({ depthSize: 'small', withCrossShrink: true },
        leaf,
        fc.record({ type: fc.constant('array'), items: tie('node'), minItems: count, maxItems: count, prefixItems: fc.array(tie('node'), { maxLength: 2 }) },
          { requiredKeys: ['type', 'items'] }),
        fc.record({ type: fc.constant('object'), properties: fc.dictionary(fc.constantFrom('a', 'b', 'c'), tie('node'), { maxKeys: 3 }), minProperties: count, maxProperties: count },
          { requiredKeys: ['type', 'properties'] }),
        fc.record({ anyOf: fc.array(tie('node'), { minLength: 1, maxLength: 3 }) }))
    }))
    await fc.assert(fc.asyncProperty(schema.node, async (form) => {
      const start = performance.now()
      try {
        const { app } = await register({ form })
        // The page is built at registration; acts are judged in bounded time too.
        const page = await app.inject({ method: 'GET', url: '/', headers: { accept: 'text/html' } })
        assert.equal(page.statusCode, 200)
        assert.ok(page.body.split('class="node"').length - 1 <= 600)
        for (const body of ['[]', '{}', '"x"', '1', 'null', '[[[]]]']) assert.ok([200, 204].includes(await post(app, body)))
        await app.close()
      } catch (error) {
        assert.match(String((error as { code?: unknown }).code), /^GPT_ERR_/, String(error))
      }
      assert.ok(performance.now() - start < ENDS_WITHIN, JSON.stringify(form))
    }), { numRuns: 60 })
  })
})

describe('forms the validator could not compile before get an edition or a true named error', () => {
  it('compiles a flat object of 3,000 properties (no $ref: it was refused as an unresolved $ref)', async () => {
    const properties = Object.fromEntries(Array.from({ length: 3000 }, (_, i) => [`p${i}`, { type: 'string', maxLength: 3 }]))
    const { app } = await register({ form: { type: 'object', properties, required: ['p2999'] }, lint: false })
    assert.equal(await post(app, '{"p0":"abc","p2999":"x"}'), 200)
    assert.equal(await post(app, '{"p1500":"abcd","p2999":"x"}'), 204)
    assert.equal(await post(app, '{"p0":"abc"}'), 204)
    await app.close()
  })

  it('refuses a 3,000-deep items chain with GPT_ERR_FORM_TOO_DEEP, naming the address and where, before anything recurses', async () => {
    const form = nest(3000, (items) => ({ type: 'array', items }), { type: 'string' })
    await rejects({ form, prefix: '/deep' }, 'GPT_ERR_FORM_TOO_DEEP', /^fastify-gpt address \/deep: the form is too deep: .*more than 256 deep \(limits\.formDepth\), at \/items\/items.*\(256 tokens\)$/)
    // 120,000 deep: nothing recursed through it (the copy, the limit, the error are iterative).
    await rejects({ form: nest(120_000, (not) => ({ not }), {}) }, 'GPT_ERR_FORM_TOO_DEEP', /limits\.formDepth/)
  })

  it('says the validator ran out of stack, not "an unresolved $ref", when a form within raised limits is too deep to compile', async () => {
    const form = nest(1000, (items) => ({ type: 'array', items }), { type: 'string' })
    await rejects({ form, limits: { formDepth: 1024 } }, 'GPT_ERR_FORM_TOO_DEEP', /the validator ran out of stack compiling it: its deepest subschema, 1001 schemas deep, is at \/items/)
  })

  it('says a union too wide to compile is too large, naming it, not too deep', async () => {
    const form = { oneOf: Array.from({ length: 8000 }, (_, i) => ({ const: `v${i}` })) }
    await rejects({ form }, 'GPT_ERR_FORM_TOO_LARGE', /the validator ran out of stack compiling it: its widest schema, with 8001 keywords and subschemas, is at the form \(split a long union/)
  })

  it('refuses 14 nested anyOf (0.77 MB, 73 s to build) at once with GPT_ERR_FORM_TOO_LARGE, and builds 11 of them (165 KB)', async () => {
    const leaf = { type: 'object', properties: { a: { type: 'string', maxLength: 5 } } }
    const form = (levels: number): object => nest(levels, (inner) => ({ anyOf: [inner, structuredClone(inner)] }), leaf)
    const refused = await timed(() => rejects({ form: form(14) }, 'GPT_ERR_FORM_TOO_LARGE', /more than 262144 bytes \(limits\.formBytes\): the limit is passed at \/anyOf\//))
    assert.ok(refused.ms < ENDS_WITHIN)
    const built = await timed(() => register({ form: form(11) }))
    assert.ok(built.ms < ENDS_WITHIN, `built in ${built.ms} ms`)
    assert.equal(await post(built.value.app, '{"a":"abc"}'), 200)
    assert.equal(await post(built.value.app, '{"a":"abcdef"}'), 204)
    await built.value.app.close()
  })
})

describe('limits on an edition (the limits option)', () => {
  it('has documented defaults, takes any of its members, and refuses anything else by name', async () => {
    assert.deepEqual(DEFAULT_LIMITS, { formBytes: 262144, formDepth: 256, promptBytes: 262144, messages: 1000, messagesBytes: 1048576 })
    assert.deepEqual(resolveLimits({ messages: 3 }, '/'), { ...DEFAULT_LIMITS, messages: 3 })
    for (const limits of [null, 3, [], { messages: 0 }, { messages: 1.5 }, { formBytes: '1' }, { promptbytes: 1 }, { formDepth: 1025 }]) {
      await rejects({ form: {}, limits } as never, 'GPT_ERR_OPTION_INVALID', /"limits/)
    }
  })

  it('refuses a form past formBytes or formDepth, at registration and on update, and changes nothing', async () => {
    await rejects({ form: { enum: ['x'.repeat(300_000)] } }, 'GPT_ERR_FORM_TOO_LARGE', /limits\.formBytes.*at \/enum\/0/)
    await rejects({ form: { enum: ['x'.repeat(100)] }, limits: { formBytes: 50 } }, 'GPT_ERR_FORM_TOO_LARGE', /more than 50 bytes/)
    const { app, address } = await register({ form: { type: 'string' }, limits: { formDepth: 3 } })
    const etag = address.etag
    assert.throws(() => { address.update({ form: { type: 'array', items: { type: 'array', items: { items: {} } } } }) },
      (error: Error & { code?: string }) => error.code === 'GPT_ERR_FORM_TOO_DEEP' && /more than 3 deep \(limits\.formDepth\), at \/items\/items\/items$/.test(error.message))
    assert.equal(address.etag, etag)
    address.update({ form: { type: 'array', items: { type: 'array' } } })
    assert.notEqual(address.etag, etag)
    await app.close()
  })

  it('refuses a prompt, too many messages or too many bytes of messages with GPT_ERR_CONTENT_TOO_LARGE, saying where', async () => {
    const limits = { promptBytes: 10, messages: 2, messagesBytes: 20 }
    await rejects({ form: {}, limits, prompt: 'é'.repeat(6) }, 'GPT_ERR_CONTENT_TOO_LARGE', /the prompt \(\/p\) is 12 bytes, more than limits\.promptBytes \(10\)/)
    const message = { role: 'user', content: 'hi' }
    await rejects({ form: {}, limits, messages: [message, message, message] }, 'GPT_ERR_CONTENT_TOO_LARGE', /are 3, more than limits\.messages \(2\)/)
    await rejects({ form: {}, limits, messages: [message, { role: 'user', content: 'x'.repeat(11) }] }, 'GPT_ERR_CONTENT_TOO_LARGE', /limits\.messagesBytes \(20\).*at \/m\/1$/)
    // A million messages by default: refused before any is looked at.
    const many = Array.from({ length: 1_000_000 }, () => message)
    await rejects({ form: {}, messages: many }, 'GPT_ERR_CONTENT_TOO_LARGE', /1000000, more than limits\.messages \(1000\)/)
    const { app, address } = await register({ form: {}, limits, messages: [message] })
    assert.throws(() => { address.update({ prompt: 'x'.repeat(11) }) }, { code: 'GPT_ERR_CONTENT_TOO_LARGE' })
    assert.equal(address.prompt, '')
    await app.close()
  })

  it('checks a stored edition before parsing it: its size, then its form and content as it is copied', () => {
    const limits = { ...DEFAULT_LIMITS, formBytes: 100, formDepth: 4, promptBytes: 10, messages: 1, messagesBytes: 10 }
    const text = (content: object): string => JSON.stringify({ prompt: '', messages: [], form: {}, ...content })
    assert.deepEqual(storedContent(text({ form: { type: 'string' } }), 3, '/a', limits).form, { type: 'string' })
    // Larger than any edition within the limits: refused by its length, never parsed (it is not even JSON).
    assert.throws(() => storedContent('['.repeat(storedBytes(limits) + 1), 4, '/a', limits),
      (error: Error & { code?: string }) => error.code === 'GPT_ERR_CONTENT_TOO_LARGE' && /the stored edition 4 is \d+ bytes/.test(error.message))
    assert.throws(() => storedContent(text({ form: nest(10, (not) => ({ not }), {}) }), 5, '/a', limits), { code: 'GPT_ERR_FORM_TOO_DEEP' })
    assert.throws(() => storedContent(text({ prompt: 'x'.repeat(11) }), 6, '/a', limits), { code: 'GPT_ERR_CONTENT_TOO_LARGE' })
    assert.throws(() => storedContent(text({ messages: [{ role: 'user', content: 'x' }, { role: 'user', content: 'y' }] }), 7, '/a', limits), { code: 'GPT_ERR_CONTENT_TOO_LARGE' })
    assert.throws(() => storedContent('{', 8, '/a', limits), { code: 'GPT_ERR_FORM_NOT_JSON' })
  })

  it('measures a form exactly as its compact JSON, and stops where a limit is passed', () => {
    fc.assert(fc.property(fc.jsonValue({ maxDepth: 6 }), (value) => {
      const bytes = Buffer.byteLength(JSON.stringify(value))
      assert.equal(measureForm(value, '/', { formBytes: bytes, formDepth: 100 }), bytes)
      if (bytes > 1) assert.throws(() => measureForm(value, '/', { formBytes: bytes - 1, formDepth: 100 }), { code: 'GPT_ERR_FORM_TOO_LARGE' })
    }))
    assert.throws(() => compileForm(nest(300, (items) => ({ items }), {}) as never, '/c'), { code: 'GPT_ERR_FORM_TOO_DEEP' })
  })
})

describe('lint as a library: bounded on deep and large forms', () => {
  it('refuses a 120,000-deep form with GPT_ERR_FORM_TOO_DEEP instead of overflowing the stack', () => {
    for (const wrap of [(x: object) => ({ not: x }), (x: object) => ({ items: x })]) {
      assert.throws(() => lint(nest(120_000, wrap, {})), (error: Error & { code?: string }) =>
        error.code === 'GPT_ERR_FORM_TOO_DEEP' && /limits\.formDepth/.test(error.message))
    }
    assert.throws(() => lint({ enum: ['x'.repeat(2 ** 21)] }), { code: 'GPT_ERR_FORM_TOO_LARGE' })
    assert.ok(Array.isArray(lint(nest(100, (items) => ({ items }), {}))))
  })

  it('tells a oneOf of thousands of alternatives disjoint or not in time linear in them (8,000 took 340 s, pair by pair)', () => {
    const rule = (form: object): string | undefined => lint(form, { decoders: [] }).find((f) => f.rule === 'one-of')?.severity
    const start = performance.now()
    const consts = Array.from({ length: 8000 }, (_, i) => ({ const: i }))
    assert.equal(rule({ oneOf: consts }), 'info', 'disjoint literals')
    assert.equal(rule({ oneOf: [...consts, { enum: ['a', 7999] }] }), 'warning', 'one value in two alternatives')
    const tagged = Array.from({ length: 8000 }, (_, i) => ({ type: 'object', properties: { kind: { const: `k${i}` }, x: {} }, required: ['kind'] }))
    assert.equal(rule({ oneOf: tagged }), 'info', 'a tag')
    assert.equal(rule({ oneOf: [...tagged, { type: 'object', properties: { kind: { enum: ['k1', 'z'] } }, required: ['kind'] }] }), 'warning')
    assert.equal(rule({ oneOf: Array.from({ length: 100 }, () => ({ type: 'string' })) }), 'warning')
    assert.ok(performance.now() - start < ENDS_WITHIN)
    // Below the pairwise bound, the pairwise answer: types apart.
    assert.equal(rule({ oneOf: [{ type: 'string' }, { type: 'integer' }] }), 'info')
  })

  it('names a stack exhausted by a chain of $refs within the limits', () => {
    const $defs: Record<string, object> = { d20000: { type: 'string' } }
    for (let i = 0; i < 20_000; i++) $defs[`d${i}`] = { $ref: `#/$defs/d${i + 1}` }
    assert.throws(() => lint({ $defs, $ref: '#/$defs/d0' }), (error: Error & { code?: string }) =>
      error.code === 'GPT_ERR_FORM_TOO_DEEP' && /chain/.test(error.message))
  })
})

describe('lint belongs to the form: an update of p or m only does not lint again', () => {
  it('logs one lint line at registration, none for updates of m or p, one for a change of form', async () => {
    const { app, address, lines } = await register({ form: { type: 'object', properties: { note: { type: 'string' } } } })
    const lints = (): number => lines.filter((line) => line.msg.startsWith('gpt: lint')).length
    assert.equal(lints(), 1)
    for (let i = 0; i < 20; i++) address.update({ messages: [{ role: 'user', content: `note ${i}` }] })
    address.update({ prompt: 'changed' })
    address.update((current) => ({ form: { ...current.form } })) // the same form, as a new object
    assert.equal(lints(), 1)
    address.update({ form: { type: 'object', properties: { note: { type: 'string', maxLength: 9 } } } })
    assert.equal(lints(), 2)
    // The page still shows who can act, from the form's one review.
    const page = await app.inject({ method: 'GET', url: '/', headers: { accept: 'text/html' } })
    assert.match(page.body, /Who can act here/)
    await app.close()
  })
})

describe('the page builds what the form requires, never thousands of inputs', () => {
  it('writes a list of 100,000 required items as JSON, and keeps inputs for a few', () => {
    const huge = renderInputs({ type: 'array', minItems: 100_000, items: { type: 'string' } })
    assert.doesNotMatch(huge, /data-kind="array"/)
    assert.match(huge, /data-kind="json".*at least 100000 items/)
    const few = renderInputs({ type: 'array', minItems: 3, items: { type: 'string' } })
    assert.match(few, /data-kind="array" data-min="3"/)
  })

  it('shows a large, deep form compact rather than indented by its depth on every line', async () => {
    let form: object = { enum: Array.from({ length: 40_000 }, () => 0) }
    for (let i = 0; i < 200; i++) form = { items: form }
    const { app } = await register({ form, lint: false })
    const page = await app.inject({ method: 'GET', url: '/', headers: { accept: 'text/html' } })
    assert.ok(page.body.length < 2 * Buffer.byteLength(JSON.stringify(form)) + 100_000, `${page.body.length} bytes`)
    await app.close()
    const { app: plain } = await register({ form: { type: 'object', properties: { a: { type: 'string' } } } })
    assert.match((await plain.inject({ method: 'GET', url: '/', headers: { accept: 'text/html' } })).body, /\{\n {2}&quot;type&quot;: &quot;object&quot;/)
    await plain.close()
  })

  it('bounds what nested lists build at load: their minItems multiply', () => {
    fc.assert(fc.property(fc.array(fc.integer({ min: 0, max: 1e6 }), { minLength: 1, maxLength: 5 }), (mins) => {
      const form = mins.reduceRight<object>((items, minItems) => ({ type: 'array', minItems, items }), { type: 'string' })
      const html = renderInputs(form as never)
      // What the script builds at load: each shown list's minItems, times those of the lists around it.
      let built = 0
      let copies = 1
      for (const match of html.matchAll(/data-kind="array" data-min="(\d+)"/g)) {
        copies *= Math.max(Number(match[1]), 1)
        built += copies
      }
      assert.ok(built <= MAX_BUILT, `${built} built for ${JSON.stringify(mins)}`)
    }))
  })
})
