// The door to Ajv's internals (src/form/ajv.ts), against the Ajv installed: each touch is checked
// on what this Ajv really does, so that CI's run against the newest Ajv 8 (.ci/run) says which one
// a release broke.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { Ajv2020 } from 'ajv/dist/2020.js'
import { ajvRefusal, envOf, installBounded, knownKeywords, resolveRef, wrapSource, type Env, type GeneratedFunction } from '../../src/form/ajv.ts'

/** What compiling `schema` with strict options throws. */
function thrown (schema: object): unknown {
  try {
    new Ajv2020({ strict: true, logger: false }).compile(schema)
  } catch (error) {
    return error
  }
  assert.fail('compiled')
}

describe('Ajv, through its one door', () => {
  it('tells its compile errors apart: missing $ref by class, the rest as far as their text allows', () => {
    assert.deepEqual(ajvRefusal(thrown({ $ref: '#/$defs/nowhere' })), { kind: 'missing-ref', ref: '#/$defs/nowhere' })
    assert.deepEqual(ajvRefusal(thrown({ type: 'string', maxLenght: 3 })), { kind: 'unknown-keyword', detail: 'unknown keyword: "maxLenght"' })
    assert.deepEqual(ajvRefusal(thrown({ type: 'string', format: 'no-such-format' })), { kind: 'unknown-format', name: 'no-such-format' })
    assert.equal(ajvRefusal(thrown({ $schema: 'http://json-schema.org/draft-04/schema#' })).kind, 'no-schema')
    assert.equal(ajvRefusal(thrown({ properties: { a: true } })).kind, 'strict')
    assert.deepEqual(ajvRefusal(new Error('anything else')), { kind: 'other', message: 'anything else' })
  })

  it('lists the 2020-12 keywords it knows, and $anchor', () => {
    const known = knownKeywords()
    for (const keyword of ['type', 'properties', 'prefixItems', 'unevaluatedProperties', '$dynamicRef', 'dependentSchemas', '$anchor']) assert.ok(known.has(keyword), keyword)
    assert.ok(!known.has('maxLenght'))
  })

  it('hands code.process each compiled function\'s source and SchemaEnv, which wrapSource binds to self.bounded', () => {
    const envs: Env[] = []
    let wrapped = 0
    const ajv = new Ajv2020({
      inlineRefs: false,
      logger: false,
      code: {
        process: (source, env) => {
          envs.push(envOf(env))
          wrapped++
          return wrapSource(source, String(env?.validateName))
        }
      }
    })
    const calls: unknown[] = []
    installBounded(ajv, (inner: GeneratedFunction) => {
      // The generated code sets `.errors` on the wrapper itself: it knows the function by its name.
      return function (data, context) {
        calls.push(context?.instancePath)
        return inner(data, context)
      }
    })
    const validate = ajv.compile({ $id: 'https://example.com/root', type: 'array', items: { $ref: 'item' }, $defs: { item: { $id: 'item', type: 'integer' } } })
    assert.equal(validate([1, 2]), true)
    assert.equal(validate([1, 'x']), false)
    assert.ok(wrapped >= 2)
    assert.ok(calls.includes('/1'), 'the $ref target is called through the wrapper with its instancePath')
    const target = envs.find((env) => (env.schema as { $id?: string }).$id === 'item')
    assert.ok(target !== undefined)
    assert.equal(target.baseId, 'https://example.com/item')
    assert.equal(target.root.baseId, 'https://example.com/root')
    assert.equal(resolveRef(ajv, 'https://example.com/root', 'item'), 'https://example.com/item')
    assert.ok(Object.keys(target.root.refs).includes('https://example.com/item'))
  })

  it('refuses to wrap source it does not recognize, rather than compile a validator without the bound', () => {
    assert.throws(() => wrapSource('return 1', 'validate0'), /unexpected validator code/)
    assert.throws(() => wrapSource('return function validate0(){}; return function validate0(){}', 'validate0'), /unexpected validator code/)
  })
})
