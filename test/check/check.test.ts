// The checker (fastify-gpt/testing) on addresses that pass and on addresses written to break one
// rule each: every fault fails exactly the checks it breaks, and nothing else.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import fc from 'fast-check'
import Fastify from 'fastify'
import gpt, { type GptOptions } from '../../src/index.ts'
import { checkAddress, formatReport, injectSender, type Report, type Response, type Send } from '../../src/check/testing.ts'
import { check } from '../../src/check/run.ts'
import { noteBoard, poll } from '../../example/addresses.js'
import { faultyHost, type Fault } from '../helpers/faulty.ts'
import { host } from '../helpers/host.ts'

const failed = (report: Report): string[] => report.results.filter((r) => r.outcome === 'fail').map((r) => r.id).sort()
const outcome = (report: Report, id: string): string | undefined => report.results.find((r) => r.id === id)?.outcome

async function exampleHost (): Promise<ReturnType<typeof Fastify>> {
  const app = Fastify()
  await app.register(gpt, noteBoard() as unknown as GptOptions)
  await app.register(gpt, poll() as unknown as GptOptions)
  return app
}

describe('addresses that keep the draft pass every check', () => {
  it('the example host: the note board and the poll, with acts too', async (t) => {
    const app = await exampleHost()
    t.after(() => app.close())
    const board = await checkAddress(app, { path: '/' })
    assert.deepEqual(failed(board), [])
    assert.equal(board.ok, true)
    assert.ok(board.counts.pass >= 25, `${board.counts.pass} passed`)
    // within the example host's rate limit (60 a minute) and the default budget
    assert.ok(board.requests < 60)
    assert.equal(board.rateLimited, 0)
    // The linter's word on the form comes with the report: advice, never a failed check.
    assert.deepEqual(board.form?.runtimes.map((r) => r.decoder), ['openai-strict', 'anthropic', 'gemini', 'llama-cpp', 'xgrammar', 'outlines', 'llguidance'])
    assert.equal(board.form?.runtimes.find((r) => r.decoder === 'openai-strict')?.verdict, 'refused', 'an optional member: OpenAI strict refuses')
    assert.match(formatReport(board), /The form \(fastify-gpt lint: advice for its author, not checks\): \d+ errors?, \d+ warnings?\n {2}exact: .*\n {2}loosened: .*\n {2}refused: .*openai-strict/)

    const votes = await checkAddress(app, { path: '/poll', acts: 6 })
    assert.deepEqual(failed(votes), [])
    for (const id of ['5.2-admitted', '5.3-success', '6-actor', '5.1-content-type', '5.2-form-enum']) assert.equal(outcome(votes, id), 'pass', id)
  })

  it('the address the other tests use (test/helpers/host.ts), strict, with acts', async (t) => {
    const { app, seen } = await host()
    t.after(() => app.close())
    const report = await checkAddress(app, { acts: 6, strict: true })
    assert.deepEqual(failed(report), [])
    assert.equal(report.ok, true)
    // only the acts acted: every body it must refuse was refused
    assert.equal(seen.bodies.length, 6)
    for (const id of ['5.2-form-minimum', '5.2-form-maximum', '5.2-form-type', '5.2-form-maxLength']) assert.equal(outcome(report, id), 'pass', id)
  })

  it('the hand-written address the faults start from', async (t) => {
    const { app, acts } = await faultyHost('none')
    t.after(() => app.close())
    const report = await checkAddress(app, { acts: 6 })
    assert.deepEqual(failed(report), [])
    assert.equal(acts.length, 6)
    assert.equal(outcome(report, '5.2-duplicate-nested'), 'pass')
  })

  it('a form using much of 2020-12: references, unions, recursion, formats, numbers', async (t) => {
    const form = {
      $defs: {
        leaf: { $anchor: 'leaf', type: 'string', pattern: '^[a-z]*$', maxLength: 6 },
        node: { anyOf: [{ $ref: '#leaf' }, { type: 'object', properties: { kids: { type: 'array', items: { $ref: '#/$defs/node' }, maxItems: 2 } }, required: ['kids'], additionalProperties: false }] }
      },
      type: 'object',
      properties: {
        when: { type: 'string', format: 'date-time' },
        id: { type: 'string', format: 'uuid' },
        ratio: { type: 'number', exclusiveMinimum: 0, exclusiveMaximum: 1 },
        step: { type: 'integer', multipleOf: 5, minimum: 10 },
        flag: { type: 'boolean' },
        nothing: { type: 'null' },
        kind: { const: 'note' },
        pair: { type: 'array', prefixItems: [{ type: 'integer' }, { type: 'string' }], minItems: 2, maxItems: 2 },
        tags: { type: 'array', items: { enum: ['a', 'b', 'c'] }, uniqueItems: true, minItems: 1 },
        extra: { type: 'object', minProperties: 1, maxProperties: 2, additionalProperties: { type: 'integer' } },
        tree: { $ref: '#/$defs/node' },
        both: { allOf: [{ type: 'string' }, { minLength: 2 }] },
        free: true,
        either: { type: ['string', 'integer'], not: { const: 0 } }
      },
      required: ['when', 'id', 'ratio', 'step', 'kind', 'pair', 'tags', 'extra', 'tree', 'both'],
      additionalProperties: false
    }
    const app = Fastify()
    t.after(() => app.close())
    await app.register(gpt, { form, act: () => ({ ok: true }), rateLimit: false })
    const report = await checkAddress(app, { acts: 8, seed: 7 })
    assert.deepEqual(failed(report), [])
    for (const keyword of ['pattern', 'format', 'exclusiveMinimum', 'multipleOf', 'const', 'uniqueItems', 'minProperties', 'maxProperties', 'minItems']) {
      assert.equal(outcome(report, `5.2-form-${keyword}`), 'pass', keyword)
    }
    assert.equal(outcome(report, '5.2-form-not'), 'skip')
    assert.equal(outcome(report, '5.2-admitted'), 'pass')
  })

  it('any small form: fastify-gpt (Ajv) and the checker (an independent validator) never disagree', async () => {
    const text = fc.record({ type: fc.constant('string'), minLength: fc.integer({ min: 0, max: 3 }), maxLength: fc.integer({ min: 3, max: 8 }) })
    const integer = fc.record({ type: fc.constant('integer'), minimum: fc.integer({ min: -5, max: 0 }), maximum: fc.integer({ min: 0, max: 5 }) })
    const choice = fc.record({ enum: fc.uniqueArray(fc.constantFrom('a', 'b', 'c', 1, true, null), { minLength: 1, maxLength: 3 }) })
    const list = fc.record({ type: fc.constant('array'), items: text, maxItems: fc.integer({ min: 1, max: 3 }), uniqueItems: fc.boolean() })
    const member = fc.oneof(text, integer, choice, list)
    const form = fc.dictionary(fc.constantFrom('a', 'b', 'type', 'c d'), member, { minKeys: 1, maxKeys: 3 }).chain((properties) =>
      fc.subarray(Object.keys(properties)).map((required) => ({ type: 'object', properties, required, additionalProperties: false })))
    await fc.assert(fc.asyncProperty(form, async (s) => {
      const app = Fastify()
      await app.register(gpt, { form: s, act: () => ({ ok: true }), rateLimit: false })
      try {
        const report = await checkAddress(app, { acts: 3 })
        assert.deepEqual(failed(report), [], JSON.stringify(report.results.filter((r) => r.outcome === 'fail'), null, 1))
      } finally {
        await app.close()
      }
    }), { numRuns: 25 })
  })
})

describe('addresses written to break one rule fail exactly the checks they break', () => {
  const cases: [Fault, number, string[]][] = [
    ['duplicates', 0, ['5.2-duplicate', '5.2-duplicate-escaped', '5.2-duplicate-nested', '5.2-utf8']],
    ['explains', 0, ['5.3-bare-204', '5.3-uniform']],
    ['coerces', 0, ['5.2-form-type']],
    ['cookie', 0, ['3.2-same-cookie']],
    ['trailing', 0, ['5.2-trailing']],
    ['media', 0, ['3.3-accept-other', '5.1-content-type']],
    ['media', 6, ['3.3-accept-other', '5.1-content-type']],
    ['ignores', 0, ['5.2-form-maxLength']],
    ['stricter', 6, ['5.2-admitted']],
    ['gated', 6, ['6-actor']],
    ['text', 6, ['5.3-success']]
  ]
  for (const [fault, acts, expected] of cases) {
    it(`${fault}${acts > 0 ? `, with ${acts} acts` : ''}: ${expected.join(', ')}`, async (t) => {
      const { app } = await faultyHost(fault)
      t.after(() => app.close())
      const report = await checkAddress(app, { acts })
      assert.deepEqual(failed(report), expected)
      const must = report.results.some((r) => r.outcome === 'fail' && r.level === 'MUST')
      assert.equal(report.ok, !must)
      assert.equal((await checkAddress(app, { acts, strict: true })).ok, false)
      // each failure shows what was sent and what came back
      for (const result of report.results.filter((r) => r.outcome === 'fail')) {
        assert.ok(result.detail !== undefined && result.exchanges !== undefined && result.exchanges.length > 0, result.id)
      }
    })
  }

  it('a failure of §5.2 names the body sent and the act it caused', async (t) => {
    const { app, acts } = await faultyHost('duplicates')
    t.after(() => app.close())
    const report = await checkAddress(app)
    const duplicate = report.results.find((r) => r.id === '5.2-duplicate')
    const [exchange] = duplicate?.exchanges ?? []
    assert.match(exchange?.request.body ?? '', /^\{"(\w+)":(.+),"\1":\2,/)
    assert.equal(exchange?.response?.status, 200)
    assert.equal(duplicate?.section, '5.2')
    assert.equal(duplicate?.level, 'MUST')
    // the address acted on the bodies it should have refused, and on nothing else
    assert.equal(acts.length, 4)
  })

  it('a disagreement shows the value, the independent verdict and the answer', async (t) => {
    const { app } = await faultyHost('stricter')
    t.after(() => app.close())
    const report = await checkAddress(app, { acts: 2 })
    const result = report.results.find((r) => r.id === '5.2-admitted')
    assert.match(result?.detail ?? '', /^s admits \{.*\} \(the independent validator: valid\), yet the address answered 204/)
  })
})

/** A stand-in address: `answer` decides each response; the checks see nothing else. */
function fake (answer: (request: Parameters<Send>[0], count: number) => Response): Send & { calls: number } {
  const send = Object.assign(async (request: Parameters<Send>[0]) => answer(request, send.calls++), { calls: 0 })
  return send
}

const json = (value: unknown, headers: Record<string, string> = {}): Response =>
  ({ status: 200, headers: { 'content-type': 'application/json', ...headers }, body: Buffer.from(JSON.stringify(value)) })
const bare = (status: number, headers: Record<string, string> = {}): Response => ({ status, headers, body: new Uint8Array(0) })

describe('arrivals that break §3 and §4', () => {
  const good = { p: 'x', m: [{ role: 'user', content: 'hi' }], s: { type: 'integer' } }
  const cases: [string, Response, string[]][] = [
    ['a 404 (its body is no arrival: knock-ons are skipped, not failed)', bare(404), ['3.1-bare-get']],
    ['text/plain', { ...json(good), headers: { 'content-type': 'text/plain' } }, ['3.2-json']],
    ['a duplicate member', { ...json(good), body: Buffer.from('{"p":"","p":"","m":[],"s":{}}') }, ['3.2-json', '3.2-members']],
    ['an array', json([good]), ['3.2-members']],
    ['p missing', json({ m: [], s: {} }), ['3.2-members']],
    ['m of strings', json({ p: '', m: ['hi'], s: {} }), ['3.2-members']],
    ['s a string', json({ p: '', m: [], s: 'integer' }), ['3.2-members']],
    ['s not a schema', json({ p: '', m: [], s: { type: 'int' } }), ['4-form-valid']],
    ['GPT-Type not a field value', json(good, { 'gpt-type': ' note board ' }), ['3.2-gpt-type']]
  ]
  for (const [name, arrival, expected] of cases) {
    it(`${name}: ${expected.join(', ')}`, async () => {
      const send = fake((request) => request.method === 'GET' ? arrival : bare(204))
      assert.deepEqual(failed(await check(send, 'fake')), expected)
    })
  }

  it('a page in place of the JSON, or the JSON gone after the page', async () => {
    const page = { status: 200, headers: { 'content-type': 'text/html' }, body: Buffer.from('<p>hi') }
    const only = fake((request) => request.headers['accept'] === undefined ? page : json(good))
    const onlyPage = failed(await check(only, 'fake'))
    assert.ok(onlyPage.includes('3.2-json') && onlyPage.includes('3.2-members') && !onlyPage.includes('3.1-bare-get'), onlyPage.join())
    let seenPage = false
    const replaced = fake((request) => {
      if (request.method === 'POST') return bare(204)
      if (request.headers['accept'] === 'text/html') seenPage = true
      return seenPage ? page : json(good)
    })
    assert.deepEqual(failed(await check(replaced, 'fake')), ['3.3-html'])
    const refused = fake((request) => request.method === 'POST' ? bare(204) : request.headers['accept'] === 'text/html' ? bare(406) : json(good))
    assert.deepEqual(failed(await check(refused, 'fake')), ['3.3-html'])
  })

  it('no answer at all fails §3.1 and checks nothing else', async () => {
    const send: Send = async () => { throw new Error('connect ECONNREFUSED') }
    const report = await check(send, 'fake')
    assert.deepEqual(report.results.map((r) => [r.id, r.outcome]), [['3.1-bare-get', 'fail']])
    assert.match(report.results[0]?.exchanges?.[0]?.unanswered ?? '', /ECONNREFUSED/)
    assert.equal(report.ok, false)
  })
})

describe('manners: pace, budget, rate limits', () => {
  it('waits out a 429 as Retry-After asks, and reports it as a rate limit, not a failure', async (t) => {
    const app = await exampleHost()
    t.after(() => app.close())
    const inject = injectSender(app, '/poll')
    const limited = fake(() => bare(0))
    const send: Send = (request) => limited.calls++ === 3 ? Promise.resolve(bare(429, { 'retry-after': '7' })) : inject(request)
    const waits: number[] = []
    const report = await check(send, 'poll', { sleep: async (ms) => { waits.push(ms) } })
    assert.deepEqual(waits, [7000])
    assert.equal(report.rateLimited, 1)
    assert.deepEqual(failed(report), [])
  })

  it('gives up on a Retry-After longer than it will wait, and on endless 429s, without failing', async () => {
    for (const retryAfter of ['3600', new Date(Date.now() + 3_600_000).toUTCString(), undefined]) {
      const send = fake(() => bare(429, retryAfter === undefined ? {} : { 'retry-after': retryAfter }))
      const waits: number[] = []
      const report = await check(send, 'fake', { maxWait: 60, sleep: async (ms) => { waits.push(ms) } })
      assert.deepEqual(failed(report), [])
      assert.equal(outcome(report, '3.1-bare-get'), 'skip')
      assert.ok(report.results.every((r) => r.outcome === 'skip'))
      // a long wait is not waited; without Retry-After, a second at a time, a few times
      assert.deepEqual(waits, retryAfter === undefined ? [1000, 1000, 1000] : [])
    }
  })

  it('never sends more than its budget, and says which checks it could not run', async (t) => {
    const { app, acts } = await faultyHost('none')
    t.after(() => app.close())
    let sent = 0
    const inject = injectSender(app)
    const report = await check((request) => { sent++; return inject(request) }, 'inject', { maxRequests: 12, acts: 5 })
    assert.equal(sent, 12)
    assert.equal(report.requests, 12)
    const skipped = report.results.filter((r) => r.outcome === 'skip' && /budget \(12\) is spent/.test(r.detail ?? ''))
    assert.ok(skipped.length > 5)
    assert.deepEqual(failed(report), [])
    assert.equal(acts.length, 0)
  })

  it('paces itself: one wait of the interval between two requests', async (t) => {
    const { app } = await faultyHost('none')
    t.after(() => app.close())
    const waits: number[] = []
    const report = await checkAddress(app, { interval: 25, sleep: async (ms) => { waits.push(ms) } })
    assert.equal(waits.length, report.requests - 1)
    assert.ok(waits.every((ms) => ms === 25))
  })

  it('refuses options that are not non-negative integers', async () => {
    const send = fake(() => bare(204))
    await assert.rejects(check(send, 'fake', { acts: -1 }), RangeError)
    await assert.rejects(check(send, 'fake', { maxRequests: 1.5 }), RangeError)
    assert.equal(send.calls, 0)
  })
})
