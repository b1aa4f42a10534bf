// The checker acting with a real constrained decoder (--actor xgrammar): XGrammar writes the acts,
// and the report says how many the address acted on and which lint finding foresaw each refusal.
// Against fastify-gpt's own addresses, addresses that break §5.2 one way each, and the bin as
// users run it (with and without the optional package).
import assert from 'node:assert/strict'
import { once } from 'node:events'
import { createServer, type Server } from 'node:http'
import { after, before, describe, it } from 'node:test'
import { Ajv2020 } from 'ajv/dist/2020.js'
import fc from 'fast-check'
import Fastify, { type FastifyInstance } from 'fastify'
import { noteBoard, poll, slow } from '../../example/addresses.js'
import { inForm, MAX_ACTOR_ACTS, rawIn } from '../../src/check/actor.ts'
import { decode } from '../../src/check/decoder.ts'
import { main } from '../../src/cli/check.ts'
import gpt, { type GptOptions } from '../../src/index.ts'
import { lint } from '../../src/lint/index.ts'
import { check, checkAddress, formatReport, injectSender, type Report } from '../../src/check/testing.ts'
import { randomForm } from '../fixtures/lint-forms.ts'
import { bin, without } from '../helpers/bin.ts'
import { need } from '../helpers/test-packages.js'

need('@mlc-ai/web-xgrammar')

const outcome = (report: Report, id: string): string | undefined => report.results.find((r) => r.id === id)?.outcome

/**
 * An address written by hand around the note board's form, wrong one way: `lenient` reads a body
 * with raw control characters in its strings (JSON.parse after blanking them), `stricter` also
 * refuses any note holding an "e". Counts the requests it gets.
 */
async function handMade (fault: 'lenient' | 'stricter'): Promise<{ url: string, server: Server, requests: () => number }> {
  const form = noteBoard().form
  const validate = new Ajv2020().compile(form)
  let requests = 0
  const server = createServer((request, response) => {
    requests++
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      if (request.method === 'GET') {
        response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ p: 'Leave a note.', m: [], s: form }))
        return
      }
      let value: unknown
      try {
        const text = Buffer.concat(chunks).toString('utf8')
        value = JSON.parse(fault === 'lenient' ? [...text].map((c) => c < ' ' ? ' ' : c).join('') : text)
      } catch {
        return response.writeHead(204).end()
      }
      const refused = !validate(value) || (fault === 'stricter' && String((value as { note?: unknown }).note).includes('e'))
      if (refused) return response.writeHead(204).end()
      response.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}')
    })
  }).listen(0, '127.0.0.1')
  await once(server, 'listening')
  const { port } = server.address() as { port: number }
  return { url: `http://127.0.0.1:${port}/`, server, requests: () => requests }
}

describe('check with a decoder writing the acts (--actor xgrammar)', () => {
  let app: FastifyInstance
  let base = ''
  before(async () => {
    app = Fastify()
    await app.register(gpt, { ...noteBoard(), rateLimit: false } as unknown as GptOptions)
    await app.register(gpt, { ...poll(), rateLimit: false } as unknown as GptOptions)
    await app.register(gpt, { ...slow({ stepMs: 1, after: 1 }), rateLimit: false } as unknown as GptOptions)
    // a member the form forbids: XGrammar refuses to compile a `false` schema
    await app.register(gpt, { prefix: '/forbidden', form: { type: 'object', properties: { a: { type: 'integer' }, b: false }, required: ['a'] }, act: () => ({}), rateLimit: false, lint: false })
    base = await app.listen({ port: 0, host: '127.0.0.1' })
  })
  after(() => app.close())

  it('checkAddress over HTTP: the note board acts on most of XGrammar\'s bodies; each one refused is foreseen by lint', async () => {
    const report = await checkAddress(`${base}/`, { actor: 'xgrammar', acts: 40, seed: 3 })
    const { actor } = report
    assert.ok(actor !== undefined)
    assert.match(actor.version, /^@mlc-ai\/web-xgrammar 0\.1\.\d+$/)
    assert.match(actor.profile, /web-xgrammar 0\.1\.27/)
    assert.equal(actor.written + actor.dropped, 40)
    assert.equal(actor.accepted + actor.refused + actor.unanswered, actor.written)
    assert.equal(actor.refusals.length, actor.refused)
    assert.ok(actor.accepted >= 10, JSON.stringify(actor))
    // a conformant address: the decoder's bodies are acted on exactly when s admits them
    assert.equal(outcome(report, '5.2-decoder'), 'pass')
    assert.equal(outcome(report, '5.3-success'), 'pass')
    assert.equal(report.ok, true)
    for (const refusal of actor.refusals) {
      // the note board's bounded strings take raw control characters: not JSON, as lint says
      assert.equal(refusal.why, 'not strict JSON (syntax)', JSON.stringify(refusal))
      assert.equal(refusal.finding?.rule, 'decoder-loosens')
      assert.match(refusal.finding.message, /raw control characters/)
      assert.match(refusal.body, /\\t|\\x01|\\x1f|\\n|\\r/)
    }
    // the same seed writes the same bodies
    const again = await checkAddress(`${base}/`, { actor: 'xgrammar', acts: 40, seed: 3 })
    assert.deepEqual(again.actor, actor)
    const text = formatReport(report)
    assert.match(text, new RegExp(`The xgrammar actor \\(@mlc-ai/web-xgrammar [\\d.]+\\): 40 bodies written, ${actor.accepted} acted on, ${actor.refused} refused`))
    if (actor.refused > 0) assert.match(text, /not strict JSON \(syntax\): foreseen by lint, decoder-loosens at \/properties\/\w+\/maxLength/)
    // lint's verdicts name the converter and version each profile describes
    assert.ok(report.form?.runtimes.every((r) => r.version.length > 0))
    assert.match(report.form?.runtimes.find((r) => r.decoder === 'xgrammar')?.version ?? '', /web-xgrammar 0\.1\.27/)
  })

  // What lint says XGrammar lets through that the address refuses (src/lint/wire.ts, the profile's findings).
  const LEAKS = ['decoder-loosens', 'integer-unsafe', 'proto-member']
  for (const [path, form] of [['/', noteBoard().form], ['/poll', poll().form], ['/slow', slow().form]] as const) {
    it(`the example host's ${path}: acted on exactly as lint's xgrammar profile foresees`, async (t) => {
      const report = await checkAddress(app, { path, actor: 'xgrammar', acts: 30, seed: 4, maxRequests: 400 })
      const { actor } = report
      assert.ok(actor !== undefined)
      assert.equal(actor.written + actor.dropped, 30)
      assert.equal(actor.accepted + actor.refused + actor.unanswered, actor.written)
      assert.ok(actor.written >= 15, JSON.stringify(actor))
      assert.equal(outcome(report, '5.2-decoder'), 'pass')
      assert.equal(report.ok, true)
      // every refusal foreseen by a finding lint makes for xgrammar; none where it foresees none
      const leaks = lint(form, { decoders: ['xgrammar'] }).filter((f) => LEAKS.includes(f.rule))
      for (const refusal of actor.refusals) assert.ok(refusal.finding !== undefined && leaks.some((f) => f.pointer === refusal.finding?.pointer), JSON.stringify(refusal))
      if (leaks.length === 0) assert.equal(actor.accepted, actor.written)
      t.diagnostic(`xgrammar on ${path}: ${actor.written} written, ${actor.accepted} acted on, ${actor.refused} refused, ${leaks.length} findings foresee refusals`)
    })
  }

  it('a form lint calls exact for xgrammar: every body is acted on', async () => {
    const form = poll().form
    assert.ok(!lint(form, { decoders: ['xgrammar'] }).some((f) => f.rule === 'decoder-loosens' || f.rule === 'decoder-refuses'))
    const report = await checkAddress(app, { path: '/poll', actor: 'xgrammar', acts: 20 })
    assert.equal(report.actor?.accepted, 20, JSON.stringify(report.actor))
    assert.deepEqual(report.actor?.refusals, [])
    assert.equal(outcome(report, '5.2-decoder'), 'pass')
  })

  it('a form XGrammar refuses: its own words, no act sent, the rest of the run goes on', async () => {
    const report = await checkAddress(app, { path: '/forbidden', actor: 'xgrammar', acts: 5 })
    assert.match(report.actor?.refusedForm ?? '', /Schema should not be false: it cannot accept any value$/)
    assert.equal(report.actor?.written, 0)
    assert.equal(outcome(report, '5.2-decoder'), 'skip')
    assert.match(report.results.find((r) => r.id === '5.2-decoder')?.detail ?? '', /xgrammar wrote no body: .*Schema should not be false/)
    assert.equal(report.ok, true)
    assert.match(formatReport(report), /The xgrammar actor \(@mlc-ai\/web-xgrammar [\d.]+\): refuses s: .*Schema should not be false/)
  })

  it('an address that reads what is not JSON fails 5.2-decoder, showing the body', async () => {
    const lenient = await handMade('lenient')
    try {
      const report = await checkAddress(lenient.url, { actor: 'xgrammar', acts: 40, seed: 3 })
      const result = report.results.find((r) => r.id === '5.2-decoder')
      assert.equal(result?.outcome, 'fail', JSON.stringify(report.actor))
      assert.match(result.detail ?? '', /^acted on a body it must refuse \(not strict JSON \(syntax\)\)/)
      assert.ok((result.exchanges?.length ?? 0) > 0)
      assert.equal(report.ok, false)
    } finally {
      lenient.server.close()
    }
  })

  it('an address stricter than its form: refusals no finding explains, and 5.2-decoder fails', async () => {
    const stricter = await handMade('stricter')
    try {
      const report = await checkAddress(stricter.url, { actor: 'xgrammar', acts: 40, seed: 5 })
      const unexplained = report.actor?.refusals.filter((r) => r.finding === undefined) ?? []
      assert.ok(unexplained.length > 0, JSON.stringify(report.actor))
      for (const refusal of unexplained) assert.equal(refusal.why, 's admits it')
      assert.match(report.results.find((r) => r.id === '5.2-decoder')?.detail ?? '', /^refused a value s admits \(answered 204\)/)
      assert.match(formatReport(report), /s admits it: unexplained/)
    } finally {
      stricter.server.close()
    }
  })

  it('bounded: the acts are capped, the actor named, the decoder held to the run\'s time limit', async () => {
    const send = injectSender(app, '/')
    await assert.rejects(check(send, 'x', { actor: 'xgrammar', acts: 0 }), /1 to 1000 acts/)
    await assert.rejects(check(send, 'x', { actor: 'xgrammar', acts: MAX_ACTOR_ACTS + 1 }), RangeError)
    await assert.rejects(check(send, 'x', { actor: 'outlines' as 'xgrammar', acts: 1 }), /unknown actor "outlines"/)
    // the decoder's thread is ended when its time is up, whatever it was doing
    const late = await decode({ form: noteBoard().form, bodies: 1000, seed: 1, maxTokens: 800 }, 50)
    assert.deepEqual(late, { error: 'the decoder wrote no bodies within 50 ms' })
    // a request budget spent before the decoder's bodies: those not sent make the run unfinished
    const report = await checkAddress(app, { path: '/poll', actor: 'xgrammar', acts: 30, maxRequests: 50 })
    assert.ok((report.actor?.unanswered ?? 0) > 0, JSON.stringify(report.actor))
    assert.match(report.unfinished ?? '', /of the decoder's bodies were not sent: the request budget \(50\) is spent/)
  })

  it('property: on random forms, our own address acts on a body exactly when s admits it, and lint foresees every refusal', async () => {
    let forms = 0
    await fc.assert(fc.asyncProperty(randomForm, fc.integer({ min: 1, max: 1000 }), async (form, seed) => {
      const host = Fastify()
      try {
        await host.register(gpt, { form: form as object, act: () => ({ ok: true }), rateLimit: false, lint: false })
        await host.ready()
      } catch {
        await host.close()
        return // a form the address refuses is no address
      }
      try {
        const report = await checkAddress(host, { actor: 'xgrammar', acts: 6, seed, maxRequests: 400 })
        const { actor } = report
        assert.ok(actor !== undefined)
        if (actor.refusedForm !== undefined) return
        forms++
        assert.notEqual(outcome(report, '5.2-decoder'), 'fail', JSON.stringify({ form, actor, result: report.results.find((r) => r.id === '5.2-decoder') }))
        assert.equal(actor.accepted + actor.refused + actor.unanswered, actor.written)
        for (const refusal of actor.refusals) assert.ok(refusal.finding !== undefined, JSON.stringify({ form, refusal }))
        const exact = !lint(form, { decoders: ['xgrammar'] }).some((f) => ['decoder-loosens', 'integer-unsafe', 'proto-member'].includes(f.rule))
        if (exact) assert.equal(actor.refused, 0, JSON.stringify({ form, actor }))
      } finally {
        await host.close()
      }
    }), { numRuns: 8, seed: 20261202 })
    assert.ok(forms >= 4, `${forms} forms acted on`)
  })

  it('finds the member whose string holds a raw control character, to name the finding about it', () => {
    assert.deepEqual(rawIn('{"note": "a\tb", "author": "x"}'), ['note'])
    assert.deepEqual(rawIn('{"note": "a\\"b", "author": "x\u0001"}'), ['author'])
    assert.deepEqual(rawIn('{"a": [{"b": "\n"}]}'), ['a', 'b'])
    assert.equal(rawIn('{"a": "\t"'), undefined)
    assert.equal(rawIn('{"a": "b"}'), undefined)
  })

  it('follows the validator\'s path through $refs to the keyword\'s place in s', () => {
    const form = { $defs: { n: { type: 'integer', maximum: 3 } }, properties: { a: { $ref: '#/$defs/n' }, b: { $ref: '#' }, c: { $ref: 'other' } } }
    assert.equal(inForm(form, '/properties/a/$ref/maximum'), '/$defs/n/maximum')
    assert.equal(inForm(form, '/properties/b/$ref/properties/a/$ref/type'), '/$defs/n/type')
    assert.equal(inForm(form, '/properties/c/$ref/type'), undefined)
    assert.equal(inForm(form, '/properties/a/type'), '/properties/a/type')
  })
})

describe('fastify-gpt check --actor, as users run it', () => {
  let app: FastifyInstance
  let base = ''
  before(async () => {
    app = Fastify()
    await app.register(gpt, { ...noteBoard(), rateLimit: false } as unknown as GptOptions)
    base = await app.listen({ port: 0, host: '127.0.0.1' })
  })
  after(() => app.close())

  it('acts with XGrammar and prints the tally; --json carries the versions', async () => {
    const human = await bin(['check', `${base}/`, '--actor', 'xgrammar', '--acts', '10'])
    assert.equal(human.code, 0, human.err)
    assert.match(human.out, /pass {2}MUST {4}5\.2-decoder/)
    assert.match(human.out, /The xgrammar actor \(@mlc-ai\/web-xgrammar [\d.]+\): 10 bodies written, \d+ acted on, \d+ refused/)
    const json = await bin(['check', `${base}/`, '--actor=xgrammar', '--acts=10', '--json'])
    assert.equal(json.code, 0, json.err)
    const report = JSON.parse(json.out) as Report
    assert.match(report.actor?.version ?? '', /^@mlc-ai\/web-xgrammar /)
    assert.ok(report.form?.runtimes.every((r) => typeof r.version === 'string' && r.version.length > 0))
  })

  it('says in one line what it cannot do, and exits 2', async () => {
    const cases: Array<[string[], RegExp]> = [
      [['--actor', 'outlines', '--acts', '3'], /^fastify-gpt check: --actor takes xgrammar or llama-cpp, not "outlines"$/m],
      [['--actor', 'xgrammar'], /^fastify-gpt check: --actor xgrammar needs --acts N, from 1 to 1000$/m],
      [['--actor', 'xgrammar', '--acts', '0'], /needs --acts N, from 1 to 1000/],
      [['--actor', 'xgrammar', '--acts', '1001'], /needs --acts N, from 1 to 1000/]
    ]
    for (const [args, message] of cases) {
      const run = await bin(['check', `${base}/`, ...args])
      assert.equal(run.code, 2, run.err)
      assert.match(run.err, message)
      assert.equal(run.out, '')
    }
  })

  it('in process too: the same one-line refusals, and the actor\'s tally', async () => {
    let err = ''
    let out = ''
    const io = { out: (text: string) => { out += text }, err: (text: string) => { err += text } }
    assert.equal(await main([`${base}/`, '--actor', 'outlines', '--acts', '3'], io), 2)
    assert.equal(await main([`${base}/`, '--actor', 'xgrammar', '--acts', '1001'], io), 2)
    assert.match(err, /--actor takes xgrammar or llama-cpp, not "outlines"[\s\S]*--actor xgrammar needs --acts N, from 1 to 1000/)
    assert.equal(out, '')
    assert.equal(await main([`${base}/`, '--actor', 'xgrammar', '--acts', '4'], io), 0)
    assert.match(out, /The xgrammar actor \(@mlc-ai\/web-xgrammar [\d.]+\): 4 bodies written/)
  })

  it('without @mlc-ai/web-xgrammar installed: one line, exit 2, not a request sent', async () => {
    // the package as a user installs it, beside every dependency but the optional one
    const dir = without('@mlc-ai')
    const address = await handMade('lenient')
    try {
      const run = await bin(['check', address.url, '--actor', 'xgrammar', '--acts', '3'], dir)
      assert.equal(run.code, 2)
      assert.equal(run.err, 'fastify-gpt check: the xgrammar actor needs @mlc-ai/web-xgrammar, which is not installed: npm install @mlc-ai/web-xgrammar\n')
      assert.equal(run.out, '')
      assert.equal(address.requests(), 0)
      // without the actor the same copy checks as ever: only the actor needs the package
      const plain = await bin(['check', address.url, '--max-requests', '40'], dir)
      assert.notEqual(plain.err, run.err)
      assert.ok(address.requests() > 0)
    } finally {
      address.server.close()
    }
  })
})
