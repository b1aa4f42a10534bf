// POST and tools/call are one pipeline: for every example form, a thousand bodies each, made by the
// checker's own generator (values the form admits, and near-misses that break one keyword) and
// byte-level changes of them (a duplicated member, bytes after the value, invalid UTF-8, another
// spacing), sent both ways as the same bytes: tools/call acts exactly when POST does, the act sees
// the same value, and every refusal is the same bytes. Validity is told by the independent judge
// (@cfworker/json-schema) only to build near-misses; the verdict compared is the address's own.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { Validator, type Schema } from '@cfworker/json-schema'
import Fastify from 'fastify'
import { generate, random } from '../../src/check/generate.ts'
import { nearMisses } from '../../src/check/near-miss.ts'
import gpt from '../../src/index.ts'
import { REFUSAL } from '../../src/mcp/call.ts'
import mcp from '../../src/mcp/index.ts'
import { noteBoard, poll, slow } from '../../example/addresses.js'
import { blocks } from '../fixtures/forms.ts'

const BODIES = 1000

const FORMS: ReadonlyArray<{ readonly name: string, readonly form: Record<string, unknown> }> = [
  { name: 'board', form: noteBoard().form },
  { name: 'poll', form: poll().form },
  { name: 'slow', form: slow().form },
  { name: 'blocks', form: blocks }, // recursive, through $defs, and not an object: wrapped
  { name: 'numbers', form: { type: 'array', items: { type: 'number', minimum: -5, maximum: 5 }, maxItems: 4 } },
  { name: 'text', form: { type: 'string', minLength: 1, maxLength: 12, pattern: '^[a-z ]+$' } }
]

/** @cfworker/json-schema as the checker's judge takes it: valid, and which keywords failed. */
function judgeOf (form: Record<string, unknown>): (value: unknown) => { valid: boolean, keywords: Set<string>, locations: string[] } {
  const validator = new Validator(form as Schema, '2020-12', false)
  return (value) => {
    const { valid, errors } = validator.validate(value)
    return { valid, keywords: new Set(errors.map((error) => error.keyword)), locations: errors.map((error) => error.keywordLocation) }
  }
}

/** A body's bytes, changed as the strict parser must refuse (or, for spacing, must not). */
function mutate (text: string, kind: number): Buffer {
  switch (kind) {
    case 0: return Buffer.from(text.startsWith('{') && text !== '{}' ? `{"x":1,"x":2,${text.slice(1)}` : `[${text},${text}]`) // a duplicate, or another shape
    case 1: return Buffer.from(`${text} 1`) // bytes after the value
    case 2: { // not UTF-8: inside the first string (JSON read loosely), else before the last byte (not JSON at all)
      const at = text.indexOf('"') + 1 || text.length - 1
      return Buffer.concat([Buffer.from(text.slice(0, at)), Buffer.from([0xff]), Buffer.from(text.slice(at))])
    }
    default: return Buffer.from(` \n${text.replaceAll(',', ' ,\t')} `) // spacing: the same value
  }
}

/** The bodies of one form: admitted values and near-misses, half of each changed at the byte level. */
function bodiesOf (form: Record<string, unknown>): Buffer[] {
  const admits = judgeOf(form)
  const bodies: Buffer[] = []
  for (let seed = 1; bodies.length < BODIES && seed < BODIES * 4; seed++) {
    const generated = generate(form, random(seed), seed % 2 === 0)
    if (generated === undefined) continue
    const text = JSON.stringify(generated.value)
    bodies.push(seed % 3 === 0 ? mutate(text, seed % 4) : Buffer.from(text))
    const misses = nearMisses(generated, admits, 1).found
    const miss = misses[seed % Math.max(1, misses.length)]
    if (miss !== undefined) bodies.push(Buffer.from(JSON.stringify(miss.value)))
  }
  return bodies.slice(0, BODIES)
}

/** Whether JSON.parse takes the bytes (as UTF-8, a bad byte read as U+FFFD). */
function readsLoosely (bytes: Buffer): boolean {
  try {
    JSON.parse(bytes.toString('utf8'))
    return true
  } catch {
    return false
  }
}

describe('POST and tools/call, one pipeline', () => {
  for (const { name, form } of FORMS) {
    it(`${name}: ${BODIES} bodies acted on and refused alike, the act seeing the same value, every refusal the same bytes`, async (t) => {
      const seen: unknown[] = []
      const app = Fastify()
      t.after(() => app.close())
      await app.register(gpt, { prefix: `/${name}`, form, act: (body: unknown) => { seen.push(body); return { ok: true } }, rateLimit: false, lint: false })
      await app.register(mcp, { rateLimit: false })
      const wrapped = form['type'] !== 'object'
      const bodies = bodiesOf(form)
      assert.equal(bodies.length, BODIES)
      let acted = 0
      for (const body of bodies) {
        const posted = await app.inject({ method: 'POST', url: `/${name}`, headers: { 'content-type': 'application/json' }, payload: body })
        const fromPost = seen.splice(0)
        const args = wrapped ? Buffer.concat([Buffer.from('{"value":'), body, Buffer.from('}')]) : body
        const envelope = Buffer.concat([Buffer.from(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"${name}","arguments":`), args, Buffer.from('}}')])
        const called = await app.inject({ method: 'POST', url: '/mcp', headers: { 'content-type': 'application/json' }, payload: envelope })
        const fromCall = seen.splice(0)
        const shown = body.toString('latin1').slice(0, 200)
        if (!readsLoosely(body)) {
          // Not JSON even read loosely (bytes after the value, a byte outside every string): the
          // request is no call at all, and has no id to answer; POST refuses the body alike.
          assert.equal(posted.statusCode, 204, shown)
          assert.equal(called.statusCode, 400, shown)
          assert.equal(called.json().error.code, -32700)
          assert.deepEqual([...fromPost, ...seen.splice(0)], [])
          continue
        }
        assert.equal(called.statusCode, 200, shown)
        const { result } = called.json() as { result: { isError?: boolean } }
        if (posted.statusCode === 204) {
          assert.equal(result.isError, true, `POST refused, tools/call acted: ${shown}`)
          assert.ok(called.body.endsWith(`"result":${REFUSAL}}`), `a refusal of its own: ${called.body.slice(0, 300)}`)
          assert.deepEqual(fromCall, [])
          continue
        }
        assert.equal(posted.statusCode, 200, shown)
        assert.notEqual(result.isError, true, `POST acted, tools/call refused: ${shown}`)
        assert.equal(fromPost.length, 1)
        assert.deepEqual(fromCall, fromPost, shown)
        // deepEqual takes -0 for 0: each number as the act saw it, sign included
        assert.equal(JSON.stringify(fromCall, (_key, v: unknown) => Object.is(v, -0) ? '-0' : v), JSON.stringify(fromPost, (_key, v: unknown) => Object.is(v, -0) ? '-0' : v))
        acted++
      }
      // Both outcomes, often: a run where everything is refused (or acted on) proves little.
      assert.ok(acted > BODIES / 10 && acted < BODIES * 0.9, `acted on ${acted} of ${BODIES}`)
    })
  }
})
