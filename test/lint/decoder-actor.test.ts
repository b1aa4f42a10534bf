// A real constrained decoder acting on live addresses: XGrammar (@mlc-ai/web-xgrammar) compiles
// each form with a small vocabulary, and random walks of its matcher write bodies as a model
// sampling under the grammar would (src/check/xgrammar.ts). Each body is POSTed to an address
// listening on a port. Where lint says XGrammar enforces the form exactly, every body is acted on;
// every body refused (the bare 204, draft §5.3) is explained by one of lint's findings for xgrammar.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import fc from 'fast-check'
import { Validator } from '@cfworker/json-schema'
import Fastify, { type FastifyInstance } from 'fastify'
import { noteBoard, poll } from '../../example/addresses.js'
import { random } from '../../src/check/generate.ts'
import gpt from '../../src/index.ts'
import { compileForm, freezeJson, type Json } from '../../src/form/compile.ts'
import { lint, type Finding } from '../../src/lint/index.ts'
import { parse, ParseError } from '../../src/parse/parse.ts'
import { randomForm } from '../fixtures/lint-forms.ts'

import * as xgrammar from '../helpers/xgrammar.ts'

const closed = (properties: Record<string, Json>, required = Object.keys(properties)): Json =>
  ({ type: 'object', properties, required, additionalProperties: false })
// The README's forms, and forms that each show one kind of slip.
const FORMS: Array<[string, Json, number]> = [
  ['example note board', noteBoard().form as Json, 50],
  ['example poll', poll().form as Json, 10],
  ['README note', closed({ note: { type: 'string', minLength: 1, maxLength: 280 } }), 20],
  ['README tree', { type: 'object', properties: { name: { type: 'string' }, children: { type: 'array', items: { $ref: '#' } } }, required: ['name'], additionalProperties: false }, 20],
  ['README integer', { type: 'integer' }, 10],
  ['bounded', closed({ n: { type: 'integer', minimum: 0, maximum: 100 }, k: { enum: ['a', 'b'] }, ok: { type: 'boolean' } }), 20],
  ['open', { type: 'object', properties: { a: { type: 'integer', minimum: 0, maximum: 9 } }, additionalProperties: { type: 'integer', minimum: 0, maximum: 9 }, maxProperties: 4 }, 20],
  ['pattern', closed({ code: { type: 'string', pattern: '^[^x]{1,6}$' } }), 20],
  ...fc.sample(randomForm, { numRuns: 16, seed: 20261201 }).map((form, i): [string, Json, number] => [`random ${i}`, form, 8])
]

/** Why the address refused a body, as its parser or its validator says. */
function refusal (text: string, validate: (value: unknown) => boolean): string {
  let value: unknown
  try {
    value = parse(Buffer.from(text))
  } catch (error) {
    return error instanceof ParseError ? error.reason : 'parse'
  }
  return validate(value) ? 'accepted' : 'invalid'
}

/** The keywords that refuse a value, as JSON Pointers into the form (from an independent validator). */
const failing = (form: Json, text: string): string[] =>
  new Validator(form as object, '2020-12', false).validate(JSON.parse(text)).errors.map((error) => error.keywordLocation.replace(/^#/, ''))

/** Whether a finding lint made for xgrammar (or for every actor) explains a refusal of this kind. */
const EXPLAINS: Record<string, (finding: Finding) => boolean> = {
  // raw control characters in a string: the text is not JSON
  syntax: (f) => f.message.includes('raw control characters') || f.message.includes('matched against the JSON text'),
  surrogate: (f) => f.message.includes('lone surrogate') || f.message.includes('matched against the JSON text'),
  duplicate: (f) => f.message.includes('member name may repeat'),
  number: (f) => f.rule === 'integer-unsafe' || f.message.includes('overflow'),
  proto: (f) => f.rule === 'proto-member',
  depth: (f) => f.rule === 'depth-beyond-limit',
  // a value the form refuses: a keyword lint says XGrammar does not enforce, on the way to the one that refuses it
  invalid: (f) => f.rule === 'decoder-loosens'
}

interface Address { readonly label: string, readonly form: Json, readonly bodies: number, readonly validate: (value: unknown) => boolean, readonly findings: Finding[], readonly url: string }

describe('XGrammar acting on live addresses', () => {
  let app: FastifyInstance
  const addresses: Address[] = []
  before(async () => {
    app = Fastify()
    const registered: Array<Omit<Address, 'url'>> = []
    for (const [label, form, bodies] of FORMS) {
      let validate
      try {
        validate = compileForm(freezeJson(form, label), label)
      } catch {
        continue // a form the address refuses is no address
      }
      const prefix = `/a${registered.length}`
      await app.register(gpt, { prefix, form: form as object, act: () => ({ ok: true }), rateLimit: false, lint: false })
      registered.push({ label, form, bodies, validate, findings: lint(form, { decoders: ['xgrammar'] }) })
    }
    const base = await app.listen({ port: 0, host: '127.0.0.1' })
    registered.forEach((address, i) => addresses.push({ ...address, url: `${base}/a${i}` }))
  })
  after(() => app.close())

  it('acts on every address; each refusal is one lint foresaw, and a form lint calls exact refuses nothing', async (t) => {
    const started = Date.now()
    const tally = { bodies: 0, accepted: 0, refused: {} as Record<string, number>, exactForms: 0, unexplained: [] as string[] }
    const slipsOfNoteBoard: string[] = []
    for (const [i, address] of addresses.entries()) {
      const acted = await xgrammar.act(address.form, { bodies: address.bodies, next: random(20261201 + i) })
      // lint says which forms the converter refuses: test/lint/xgrammar.test.ts holds it to that
      if ('error' in acted) continue
      const exact = !address.findings.some((f) => f.rule === 'decoder-loosens' || f.rule === 'integer-unsafe' || f.rule === 'proto-member')
      if (exact) tally.exactForms++
      for (const text of acted.texts) {
        tally.bodies++
        const response = await fetch(address.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: text })
        const status = response.status
        await response.arrayBuffer()
        const why = refusal(text, address.validate)
        // the address and its own parser and validator, called here, agree on every body
        assert.equal(status, why === 'accepted' ? 200 : 204, `${address.label}: ${JSON.stringify(text)} answered ${status}, ${why}`)
        if (status === 200) {
          tally.accepted++
          continue
        }
        tally.refused[why] = (tally.refused[why] ?? 0) + 1
        if (address.label === 'example note board') slipsOfNoteBoard.push(why)
        const explained = !exact && address.findings.some((f) => EXPLAINS[why]?.(f) === true) && (why !== 'invalid' || failing(address.form, text).some((at) =>
          // the keyword that refuses the body, or one above it, is one lint says XGrammar loosens (past a $ref, any it loosens)
          at.includes('/$ref') || address.findings.some((f) => f.rule === 'decoder-loosens' && (at === f.pointer || at.startsWith(`${f.pointer}/`)))))
        if (!explained) tally.unexplained.push(`${address.label}: ${why} ${JSON.stringify(text)} ${JSON.stringify(address.form)}`)
      }
    }
    t.diagnostic(`${addresses.length} addresses, ${Date.now() - started} ms: ${JSON.stringify(tally)}`)
    assert.deepEqual(tally.unexplained, [])
    // The walks did act, and did slip where lint says they would: the note board's bounded strings
    // take raw control characters.
    assert.ok(tally.bodies >= 250 && tally.accepted >= 100 && tally.exactForms >= 2, JSON.stringify(tally))
    assert.ok(slipsOfNoteBoard.includes('syntax'), JSON.stringify(tally))
  })
})
