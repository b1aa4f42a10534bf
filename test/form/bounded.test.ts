import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { Validator } from '@cfworker/json-schema'
import fc from 'fast-check'
import { bounded, ERRORS_PER_CALL, work, wrapSource } from '../../src/form/bounded.ts'
import { compileForm, freezeJson, type Json, type JsonObject } from '../../src/form/compile.ts'
import { array, blocks, deepest, list, nested, nodes, randomBody, randomForm, refs, shared, unrolled } from '../fixtures/forms.ts'
import { host } from '../helpers/host.ts'

/** Validates and reports the work done, checked against the bound of src/form/bounded.ts. */
function decide (form: JsonObject, body: Json, allErrors = false): { valid: boolean, evaluations: number, calls: number } {
  const validate = compileForm(freezeJson(form, '/'), '/', { allErrors })
  const before = { ...work }
  const valid = validate(body)
  const evaluations = work.evaluations - before.evaluations
  const calls = work.calls - before.calls
  // Each compiled function runs at most once per node of the body.
  assert.ok(evaluations <= (refs(form) + 1) * nodes(body), `${evaluations} evaluations for ${nodes(body)} nodes`)
  // And each run calls at most its own $refs, once per child of its node.
  assert.ok(calls <= 2 * refs(form) * nodes(body), `${calls} calls for ${nodes(body)} nodes`)
  return { valid, evaluations, calls }
}

/** The verdict of an independent implementation of draft 2020-12. */
const independent = (form: JsonObject, body: Json): boolean => new Validator(form as object, '2020-12', true).validate(body).valid

describe('§7.4 validation costs polynomial time, whatever the form', () => {
  const attacks: Array<[string, JsonObject, (inner: Json) => Json, Json, Json]> = [
    ['a recursive union of sections and lists', blocks, list, 1, 'text'],
    ['the same union unrolled (§4.2)', unrolled(40), list, 1, 'text'],
    ['two alternatives sharing a recursive subschema', shared(2), array, 1, 'text'],
    ['five alternatives sharing a recursive subschema', shared(5), array, 1, 'text']
  ]

  for (const [name, form, wrap, bad, good] of attacks) {
    it(`${name}: the deepest body the address takes is decided with bounded work`, async () => {
      const depth = deepest(wrap)
      assert.ok(depth >= 30, `depth ${depth}`)
      for (const allErrors of [false, true]) {
        assert.equal(decide(form, nested(depth, bad, wrap), allErrors).valid, false)
        assert.equal(decide(form, nested(depth, good, wrap), allErrors).valid, true)
      }
      // At a depth a plain validator still finishes, an independent one agrees.
      for (const depth of [1, 2, 5]) {
        assert.equal(independent(form, nested(depth, bad, wrap)), false)
        assert.equal(independent(form, nested(depth, good, wrap)), true)
      }
    })

    it(`${name}: the address answers the deepest rejected body with the bare 204, and explains it briefly`, async () => {
      const depth = deepest(wrap)
      const body = JSON.stringify(nested(depth, bad, wrap))
      const { app } = await host({ form })
      const rejected = await app.inject({ method: 'POST', url: '/', payload: body })
      assert.equal(rejected.statusCode, 204)
      assert.equal(rejected.body, '')
      assert.equal((await app.inject({ method: 'POST', url: '/', payload: JSON.stringify(nested(depth, good, wrap)) })).statusCode, 200)

      const explained = await host({ form, explain: true })
      const problem = await explained.app.inject({ method: 'POST', url: '/', payload: body })
      assert.equal(problem.statusCode, 422)
      assert.ok(problem.body.length < 16_384, `${problem.body.length} bytes of explanation`)
    })
  }

  it('passes on at most a few errors per $ref, and at least one for a failure', () => {
    const validate = compileForm(freezeJson(shared(5), '/'), '/', { allErrors: true })
    assert.equal(validate(nested(30, 1, array)), false)
    // The root's five $refs pass on their few each; the union and the string alternative add two.
    const count = validate.errors?.length ?? 0
    assert.ok(count >= 1 && count <= 5 * ERRORS_PER_CALL + 2, `${count} errors`)
  })
})

describe('§5.2 (3) the verdicts stay those of draft 2020-12', () => {
  it('agrees with an independent validator on random recursive union-heavy forms, within the bound', () => {
    fc.assert(fc.property(randomForm, fc.array(randomBody, { minLength: 1, maxLength: 8 }), (form, bodies) => {
      for (const body of bodies) {
        for (const allErrors of [false, true]) {
          assert.equal(decide(form, body, allErrors).valid, independent(form, body), JSON.stringify({ form, body }))
        }
      }
    }), { numRuns: 300 })
  })
})

describe('the memory of one validation', () => {
  it('fails closed when a subschema meets itself on the same value', () => {
    const again: Parameters<typeof bounded>[0] = (data) => outer(data, { instancePath: '' })
    const outer = bounded(again)
    assert.equal(outer({}), false)
  })

  it('is fresh for every validation', () => {
    let verdict = true
    const outer = bounded(() => verdict)
    const root = bounded((data) => outer(data, { instancePath: '' }))
    assert.equal(root({}), true)
    verdict = false
    assert.equal(root({}), false)
  })

  it('refuses generated code of a shape it does not know', () => {
    assert.throws(() => wrapSource('return 1', 'validate0'), /unexpected validator code/)
  })
})
