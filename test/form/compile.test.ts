import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { compileForm, freezeJson } from '../../src/form/compile.ts'
import { host, registrationError } from '../helpers/host.ts'

/** Asserts that registering `form` fails with `code`, naming the address and the detail. */
async function refused (form: unknown, code: string, detail: RegExp, prefix = '/poll'): Promise<void> {
  const error = await registrationError({ form }, prefix)
  assert.ok(error instanceof Error, 'registration must fail')
  assert.equal((error as Error & { code: string }).code, code)
  assert.match(error.message, new RegExp(`address ${prefix}:`))
  assert.match(error.message, detail)
}

describe('§4 the form', () => {
  it('accepts the reference vocabulary of §4.1', async () => {
    const form = {
      $defs: { leaf: { type: 'string', maxLength: 10 } },
      type: 'object',
      description: 'a tree',
      properties: {
        kind: { const: 'tree' },
        color: { enum: ['red', 'blue'] },
        tags: { type: 'array', items: { $ref: '#/$defs/leaf' }, minItems: 1, maxItems: 3 },
        name: { type: 'string', minLength: 1 },
        either: { anyOf: [{ type: 'string' }, { type: 'integer' }] }
      },
      required: ['kind'],
      additionalProperties: false
    }
    const { app } = await host({ form })
    assert.equal((await app.inject({ method: 'POST', url: '/', payload: '{"kind":"tree","tags":["a"],"either":3}' })).statusCode, 200)
    assert.equal((await app.inject({ method: 'POST', url: '/', payload: '{"kind":"tree","tags":[]}' })).statusCode, 204)
    assert.equal((await app.inject({ method: 'POST', url: '/', payload: '{"kind":"tree","either":1.5}' })).statusCode, 204)
  })

  it('§4.2 enforces a recursion bounded by the form itself', async () => {
    const node = (next?: string): unknown => ({
      anyOf: next === undefined
        ? [{ type: 'string' }]
        : [{ type: 'string' }, { type: 'object', properties: { content: { type: 'array', items: { $ref: `#/$defs/${next}` } } }, required: ['content'], additionalProperties: false }]
    })
    const form = { $defs: { n1: node('n2'), n2: node('n3'), n3: node() }, $ref: '#/$defs/n1' }
    const { app } = await host({ form })
    const post = async (payload: string): Promise<number> => (await app.inject({ method: 'POST', url: '/', payload })).statusCode
    assert.equal(await post('{"content":[{"content":["leaf"]}]}'), 200)
    assert.equal(await post('{"content":[{"content":[{"content":["too deep"]}]}]}'), 204)
  })

  it('accepts valid 2020-12 forms that a stricter Ajv setup would refuse', async () => {
    const forms = [
      { type: ['string', 'null'] },
      { type: 'object', required: ['a'] },
      { type: 'array', prefixItems: [{ type: 'string' }] },
      { properties: { a: { type: 'string' } } },
      { type: 'object', properties: { a: {} }, patternProperties: { '^a$': {} } },
      true,
      { oneOf: [{ type: 'string' }, { type: 'number' }] },
      { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'string', format: 'ipv4' },
      { type: 'object', unevaluatedProperties: false, allOf: [{ properties: { a: { type: 'string' } } }] }
    ]
    for (const form of forms) {
      const error = await registrationError({ form: typeof form === 'boolean' ? { not: { not: {} } } : form })
      assert.equal(error, undefined, `${JSON.stringify(form)} must register: ${String(error)}`)
    }
  })

  it('checks property names the validator could mistake for inherited ones', async () => {
    const names = ['constructor', 'toString', 'hasOwnProperty', 'valueOf', '"', '\\', '\u2028', '$ref', 'a.b', '0']
    const properties = Object.fromEntries(names.map((name) => [name, { const: 1 }]))
    const { app, seen } = await host({ form: { type: 'object', properties, required: names, additionalProperties: false } })
    const body = Object.fromEntries(names.map((name) => [name, 1]))
    assert.equal((await app.inject({ method: 'POST', url: '/', payload: JSON.stringify(body) })).statusCode, 200)
    assert.deepEqual(seen.bodies, [body])
    for (const name of names) {
      const partial = { ...body }
      delete partial[name]
      const response = await app.inject({ method: 'POST', url: '/', payload: JSON.stringify(partial) })
      assert.equal(response.statusCode, 204, `missing ${JSON.stringify(name)} must be rejected`)
    }
  })
})

describe('§5.2 (4) fail closed: a form that would not be enforced is refused at registration', () => {
  it('refuses an unknown keyword, at any depth', async () => {
    await refused({ type: 'string', maxLenght: 3 }, 'GPT_ERR_FORM_UNKNOWN_KEYWORD', /maxLenght/)
    await refused({ properties: { a: { items: { properties: { b: { type: 'string', maxLenght: 3 } } } } } }, 'GPT_ERR_FORM_UNKNOWN_KEYWORD',
      /"maxLenght" at \/properties\/a\/items\/properties\/b is not a keyword of JSON Schema 2020-12 \(did you mean "maxLength"\?\)/)
    await refused({ $defs: { x: { addtionalProperties: false } } }, 'GPT_ERR_FORM_UNKNOWN_KEYWORD', /at \/\$defs\/x .*did you mean "additionalProperties"/)
    await refused({ zzz: 1 }, 'GPT_ERR_FORM_UNKNOWN_KEYWORD', /"zzz" at the form is not a keyword of JSON Schema 2020-12$/)
    await refused({ id: 'x' }, 'GPT_ERR_FORM_UNKNOWN_KEYWORD', /write "\$id"/)
    await refused({ type: 'object', properties: { a: { type: 'string', pattern2: 'x' } } }, 'GPT_ERR_FORM_UNKNOWN_KEYWORD', /pattern2/)
    await refused({ type: 'array', additionalItems: false }, 'GPT_ERR_FORM_UNKNOWN_KEYWORD', /additionalItems/)
  })

  it('refuses annotations a reader would take for constraints', async () => {
    await refused({ type: 'string', contentMediaType: 'application/json' }, 'GPT_ERR_FORM_UNKNOWN_KEYWORD', /contentMediaType/)
    await refused({ properties: { a: { contentEncoding: 'base64' } } }, 'GPT_ERR_FORM_UNKNOWN_KEYWORD', /contentEncoding at \/properties\/a|"contentEncoding" at \/properties\/a/)
    await refused({ $dynamicRef: '#x' }, 'GPT_ERR_FORM_UNKNOWN_KEYWORD', /\$dynamicRef/)
  })

  it('does not mistake a property named like a keyword for the keyword', async () => {
    const error = await registrationError({ form: { type: 'object', properties: { contentEncoding: { type: 'string' }, maxLenght: {} } } })
    assert.equal(error, undefined)
  })

  it('refuses an unknown format, and formats checked by nothing', async () => {
    await refused({ type: 'string', format: 'emial' }, 'GPT_ERR_FORM_UNKNOWN_FORMAT', /emial/)
    await refused({ type: 'string', format: 'uri-path' }, 'GPT_ERR_FORM_UNKNOWN_FORMAT', /uri-path/)
    await refused({ type: 'string', format: 'binary' }, 'GPT_ERR_FORM_UNKNOWN_FORMAT', /binary/)
  })

  it('says an unknown format is refused, where it is, and which formats are checked: never Ajv\'s "ignored"', async () => {
    const error = await registrationError({ form: { type: 'object', properties: { host: { type: 'string', format: 'hostname' } } } }) as Error
    assert.match(error.message, /"hostname" at \/properties\/host\/format: it cannot be checked exactly, so it is refused \(checked: date, date-time, /)
    assert.doesNotMatch(error.message, /ignored/)
  })

  it('refuses formats the validator checks only approximately', async () => {
    for (const format of ['hostname', 'idn-hostname', 'idn-email']) {
      await refused({ type: 'string', format }, 'GPT_ERR_FORM_UNKNOWN_FORMAT', new RegExp(format))
    }
  })

  it('follows $anchor, within the $id it belongs to', async () => {
    const form = {
      $id: 'https://example.org/poll',
      type: 'object',
      properties: { choice: { $ref: '#choice' }, note: { $ref: 'notes#text' } },
      $defs: {
        choice: { $anchor: 'choice', enum: ['tabs', 'spaces'] },
        notes: { $id: 'notes', $defs: { text: { $anchor: 'text', type: 'string', maxLength: 5 } } }
      }
    }
    const { app } = await host({ form })
    const status = async (body: unknown): Promise<number> =>
      (await app.inject({ method: 'POST', url: '/', payload: JSON.stringify(body) })).statusCode
    assert.equal(await status({ choice: 'tabs', note: 'short' }), 200)
    assert.equal(await status({ choice: 'both' }), 204)
    assert.equal(await status({ note: 'too long' }), 204)
    await refused({ $ref: '#nowhere', $defs: { a: { $anchor: 'somewhere' } } }, 'GPT_ERR_FORM_UNRESOLVED_REF', /nowhere/)
  })

  it('checks uuid and regex exactly', async () => {
    const uuid = await host({ form: { type: 'string', format: 'uuid' } })
    const post = async (app: typeof uuid.app, value: string): Promise<number> =>
      (await app.inject({ method: 'POST', url: '/', payload: JSON.stringify(value) })).statusCode
    assert.equal(await post(uuid.app, '2eb8aa08-aa98-11ea-b4aa-73b441d16380'), 200)
    assert.equal(await post(uuid.app, 'urn:uuid:2eb8aa08-aa98-11ea-b4aa-73b441d16380'), 204)
    const regex = await host({ form: { type: 'string', format: 'regex' } })
    assert.equal(await post(regex.app, '^[a-z]+$'), 200)
    assert.equal(await post(regex.app, '\\a'), 204, 'not a pattern under the u flag')
  })

  it('checks date-time and duration through the address, as RFC 3339 writes them', async () => {
    const form = { type: 'object', properties: { at: { type: 'string', format: 'date-time' }, for: { type: 'string', format: 'duration' } } }
    const { app } = await host({ form })
    const status = async (body: unknown): Promise<number> =>
      (await app.inject({ method: 'POST', url: '/', payload: JSON.stringify(body) })).statusCode
    assert.equal(await status({ at: '2026-11-30T09:30:00+01:00', for: 'PT45M' }), 200)
    assert.equal(await status({ at: '2026-11-31T09:30:00Z' }), 204, 'no 31 November')
    assert.equal(await status({ at: '2026-11-30 09:30:00Z' }), 204, 'a space is no separator')
    assert.equal(await status({ for: 'PT1.5H' }), 204, 'no fractions')
  })

  it('checks multipleOf on the decimals as written, not in floating point', async () => {
    const { app } = await host({ form: { type: 'number', multipleOf: 0.01 } })
    const status = async (payload: string): Promise<number> => (await app.inject({ method: 'POST', url: '/', payload })).statusCode
    assert.equal(await status('19.99'), 200, '19.99 / 0.01 is 1998.9999999999998 in floating point')
    assert.equal(await status('0.07'), 200)
    assert.equal(await status('0.015'), 204)
    const half = await host({ form: { type: 'number', multipleOf: 0.5 } })
    assert.equal((await half.app.inject({ method: 'POST', url: '/', payload: '1e308' })).statusCode, 200, 'no overflow')
    assert.equal((await half.app.inject({ method: 'POST', url: '/', payload: '1.25' })).statusCode, 204)
  })

  it('refuses keywords the validator would mis-evaluate', async () => {
    await refused({ type: 'array', unevaluatedItems: false }, 'GPT_ERR_FORM_UNKNOWN_KEYWORD', /unevaluatedItems/)
    await refused({ if: { required: ['a'] }, else: { required: ['b'] }, unevaluatedProperties: false }, 'GPT_ERR_FORM_UNKNOWN_KEYWORD', /unevaluatedProperties/)
  })

  it('refuses keywords that check nothing as written, saying which and where', async () => {
    await refused({ then: { type: 'string' } }, 'GPT_ERR_FORM_NO_EFFECT', /"then" has no effect without "if" beside it, at the form/)
    await refused({ properties: { a: { else: false } } }, 'GPT_ERR_FORM_NO_EFFECT', /"else" has no effect without "if" beside it, at \/properties\/a$/)
    await refused({ items: { if: { type: 'string' } } }, 'GPT_ERR_FORM_NO_EFFECT', /"if" has no effect without "then" or "else" beside it, at \/items$/)
    await refused({ type: 'array', minContains: 2 }, 'GPT_ERR_FORM_NO_EFFECT', /"minContains" has no effect without "contains"/)
    await refused({ $defs: { a: { maxContains: 2 } } }, 'GPT_ERR_FORM_NO_EFFECT', /"maxContains" has no effect without "contains" beside it, at \/\$defs\/a/)
    await refused({ contains: {}, minContains: 0 }, 'GPT_ERR_FORM_NO_EFFECT', /"contains" has no effect with "minContains": 0/)
    await refused({ contains: {}, minContains: 3, maxContains: 2 }, 'GPT_ERR_FORM_NO_EFFECT', /no array can satisfy both/)
  })

  it('enforces the formats it accepts', async () => {
    const { app } = await host({ form: { type: 'string', format: 'date' } })
    assert.equal((await app.inject({ method: 'POST', url: '/', payload: '"2026-11-30"' })).statusCode, 200)
    assert.equal((await app.inject({ method: 'POST', url: '/', payload: '"2026-02-30"' })).statusCode, 204)
  })

  it('refuses a $ref that does not resolve', async () => {
    await refused({ $ref: '#/$defs/missing' }, 'GPT_ERR_FORM_UNRESOLVED_REF', /missing/)
    await refused({ $ref: 'https://example.com/schema.json' }, 'GPT_ERR_FORM_UNRESOLVED_REF', /example\.com/)
  })

  it('audits every subschema a $ref reaches, even in a place that is no schema location', async () => {
    for (const place of ['default', 'examples', 'const', 'enum']) {
      const holder = (schema: object): unknown => place === 'default' || place === 'const' ? schema : [schema]
      const at = place === 'default' || place === 'const' ? `#/${place}` : `#/${place}/0`
      await refused({ type: 'object', $ref: at, [place]: holder({ contentMediaType: 'text/html' }) }, 'GPT_ERR_FORM_UNKNOWN_KEYWORD', new RegExp(`contentMediaType" at /${place}`))
      await refused({ $ref: at, [place]: holder({ $dynamicRef: '#x' }) }, 'GPT_ERR_FORM_UNKNOWN_KEYWORD', /\$dynamicRef/)
      await refused({ $ref: at, [place]: holder({ type: 'array', unevaluatedItems: false }) }, 'GPT_ERR_FORM_UNKNOWN_KEYWORD', /unevaluatedItems/)
    }
    await refused({ $ref: '#/default', default: { required: ['__proto__'] } }, 'GPT_ERR_FORM_PROPERTY_NAME', /__proto__/)
    await refused({ $ref: '#/default', default: { maxLenght: 1 } }, 'GPT_ERR_FORM_UNKNOWN_KEYWORD', /"maxLenght", in a subschema a \$ref reaches/)
    await refused({ $ref: '#/default', default: { then: {} } }, 'GPT_ERR_FORM_NO_EFFECT', /"then" without "if" is ignored, in a subschema a \$ref reaches/)
    // A member named like an inherited one, required only through such a $ref, is still checked.
    const { app } = await host({ form: { type: 'object', $ref: '#/default', default: { required: ['toString'] } } })
    assert.equal((await app.inject({ method: 'POST', url: '/', payload: '{}' })).statusCode, 204)
    assert.equal((await app.inject({ method: 'POST', url: '/', payload: '{"toString":1}' })).statusCode, 200)
  })

  it('refuses keywords the validator would enforce that draft 2020-12 does not have', async () => {
    await refused({ dependencies: { a: ['b'] } }, 'GPT_ERR_FORM_UNKNOWN_KEYWORD', /dependencies.*dependentRequired/)
    await refused({ properties: { a: { dependencies: { b: { required: ['c'] } } } } }, 'GPT_ERR_FORM_UNKNOWN_KEYWORD', /dependencies" at \/properties\/a/)
    await refused({ type: 'string', nullable: true }, 'GPT_ERR_FORM_UNKNOWN_KEYWORD', /nullable/)
  })

  it('refuses a $ref cycle that comes back to a schema on the same value', async () => {
    await refused({ anyOf: [{ type: 'string' }, { $ref: '#' }] }, 'GPT_ERR_FORM_REF_CYCLE', /the \$ref at \/anyOf\/1\/\$ref: back at the root/)
    await refused({ $defs: { a: { not: { $ref: '#/$defs/b' } }, b: { allOf: [{ $ref: '#/$defs/a' }] } }, $ref: '#/$defs/a' },
      'GPT_ERR_FORM_REF_CYCLE', /^(?=.*\/\$defs\/a\/not\/\$ref)(?=.*, then the \$ref at )(?=.*\/\$defs\/b\/allOf\/0\/\$ref)/)
    await refused({ $defs: { a: { if: true, then: { $ref: '#/$defs/a' } } }, $ref: '#/$defs/a' }, 'GPT_ERR_FORM_REF_CYCLE', /then\/\$ref/)
    // dependentSchemas applies to the very object whose member it names: no value is consumed.
    await refused({ type: 'object', dependentSchemas: { 'a/b': { $ref: '#' } } }, 'GPT_ERR_FORM_REF_CYCLE', /the \$ref at \/dependentSchemas\/a~1b\/\$ref: back at the root/)
    await refused({ $defs: { a: { $ref: '#/$defs/b' }, b: { $ref: '#/$defs/a' } }, $ref: '#/$defs/a' }, 'GPT_ERR_FORM_UNRESOLVED_REF', /ran out of stack following its \$refs: they lead only to one another/)
    // Through an array or an object the value is consumed: that recursion is a tree, and is enforced.
    const { app } = await host({ form: { anyOf: [{ type: 'string' }, { type: 'array', items: { $ref: '#' } }] } })
    assert.equal((await app.inject({ method: 'POST', url: '/', payload: '[["a"],[]]' })).statusCode, 200)
    assert.equal((await app.inject({ method: 'POST', url: '/', payload: '[[1]]' })).statusCode, 204)
  })

  it('enforces $refs to the root, written "#" or "#/"', async () => {
    for (const root of ['#', '#/']) {
      const form = { type: 'object', properties: { children: { type: 'array', items: { $ref: root } } }, additionalProperties: false }
      const { app } = await host({ form })
      assert.equal((await app.inject({ method: 'POST', url: '/', payload: '{"children":[{"children":[]}]}' })).statusCode, 200)
      assert.equal((await app.inject({ method: 'POST', url: '/', payload: '{"children":[{"children":[1]}]}' })).statusCode, 204)
    }
  })

  it('§7.4 runs patterns in time linear in the string, whatever the pattern', async () => {
    const { app } = await host({ form: { type: 'object', properties: { a: { type: 'string', pattern: '^(a+)+$' } }, patternProperties: { '(x|x)*y': { type: 'string' } } } })
    const post = async (body: unknown): Promise<number> => (await app.inject({ method: 'POST', url: '/', payload: JSON.stringify(body) })).statusCode
    // V8's backtracking takes seconds on the first from 30 characters on; here it is one pass.
    assert.equal(await post({ a: 'a'.repeat(60_000) + '!' }), 204)
    assert.equal(await post({ a: 'a'.repeat(60_000) }), 200)
    assert.equal(await post({ ['x'.repeat(60_000)]: 1 }), 200)
    assert.equal(await post({ ['x'.repeat(60_000) + 'y']: 1 }), 204)
  })

  it('refuses a pattern it cannot run in linear time, or that is not ECMA-262 under the u flag, saying where and how to write it', async () => {
    await refused({ properties: { a: { pattern: '(a)\\1' } } }, 'GPT_ERR_FORM_PATTERN', /"\(a\)\\\\1" at \/properties\/a\/pattern: the backreference/)
    await refused({ patternProperties: { '^(?!x)': {} } }, 'GPT_ERR_FORM_PATTERN', /at \/patternProperties\/\^\(\?!x\): the negative lookahead|at \/patternProperties\/\^\(\?!x\): the lookahead/)
    await refused({ pattern: '^[\\w-.]+$' }, 'GPT_ERR_FORM_PATTERN', /at \/pattern: .*put the "-" first or last in the class, or escape it as \\-/)
    await refused({ pattern: '^[a-z]+\\-[0-9]+$' }, 'GPT_ERR_FORM_PATTERN', /at \/pattern: .*write "-" for "\\-"/)
    await refused({ $ref: '#/default', default: { pattern: '(?<=a)b' } }, 'GPT_ERR_FORM_PATTERN', /in a subschema a \$ref reaches: the lookbehind/)
  })

  it('refuses a form that is not a valid 2020-12 schema', async () => {
    await refused({ type: 'text' }, 'GPT_ERR_FORM_INVALID', /type/)
    await refused({ minLength: -1 }, 'GPT_ERR_FORM_INVALID', /minLength/)
    await refused({ required: 'a' }, 'GPT_ERR_FORM_INVALID', /required/)
    await refused({ $schema: 'http://json-schema.org/draft-07/schema#' }, 'GPT_ERR_FORM_INVALID', /2020-12/)
    await refused({ $schema: 'https://json-schema.org/draft/2020-12/meta/core' }, 'GPT_ERR_FORM_INVALID', /2020-12/)
    await refused({ $schema: 7 }, 'GPT_ERR_FORM_INVALID', /no schema with key or ref 7/)
    await refused({ properties: { a: { type: 'string', maxLength: 1.5 } } }, 'GPT_ERR_FORM_INVALID', /form\/properties\/a\/maxLength must be integer/)
  })

  it('takes the 2020-12 meta-schema\'s URI with or without its empty fragment', async () => {
    for (const $schema of ['https://json-schema.org/draft/2020-12/schema', 'https://json-schema.org/draft/2020-12/schema#']) {
      assert.equal(compileForm(freezeJson({ $schema, type: 'string' }, '/'), '/')('x'), true)
    }
  })

  it('refuses "__proto__", which no body can carry', async () => {
    await refused(JSON.parse('{"properties":{"__proto__":{"type":"string"}}}'), 'GPT_ERR_FORM_PROPERTY_NAME', /__proto__/)
    await refused({ required: ['__proto__'] }, 'GPT_ERR_FORM_PROPERTY_NAME', /__proto__/)
    await refused({ dependentRequired: { a: ['__proto__'] } }, 'GPT_ERR_FORM_PROPERTY_NAME', /__proto__/)
  })

  it('refuses requiring the empty name, which the validator would not check', async () => {
    await refused({ type: 'object', required: [''] }, 'GPT_ERR_FORM_PROPERTY_NAME', /empty name/)
    await refused({ properties: { a: { required: ['b', ''] } } }, 'GPT_ERR_FORM_PROPERTY_NAME', /\/properties\/a\/required/)
    await refused({ dependentRequired: { a: [''] } }, 'GPT_ERR_FORM_PROPERTY_NAME', /empty name/)
  })

  it('still checks a property named "" where it is not required', async () => {
    const { app } = await host({ form: { type: 'object', properties: { '': { const: 1 } }, additionalProperties: false } })
    assert.equal((await app.inject({ method: 'POST', url: '/', payload: '{"":1}' })).statusCode, 200)
    assert.equal((await app.inject({ method: 'POST', url: '/', payload: '{"":2}' })).statusCode, 204)
  })

  it('refuses a form that is not plain JSON', async () => {
    const cyclic: Record<string, unknown> = { type: 'object' }
    cyclic['properties'] = { a: cyclic }
    await refused(cyclic, 'GPT_ERR_FORM_NOT_JSON', /itself/)
    await refused({ type: 'number', maximum: Infinity }, 'GPT_ERR_FORM_NOT_JSON', /maximum is Infinity/)
    await refused({ type: 'string', pattern: /a/ }, 'GPT_ERR_FORM_NOT_JSON', /pattern is not a plain object/)
    await refused({ const: () => 1 }, 'GPT_ERR_FORM_NOT_JSON', /function/)
    await refused({ enum: [1, undefined] }, 'GPT_ERR_FORM_NOT_JSON', /undefined/)
    await refused([], 'GPT_ERR_OPTION_INVALID', /form/)
  })

  it('names the root address as /', async () => {
    const error = await registrationError({ form: { type: 'text' } })
    assert.match(String(error), /address \/:/)
  })
})
