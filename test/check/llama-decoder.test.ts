// The checker acting with llama.cpp (--actor llama-cpp): llama.cpp's own converter makes a grammar
// of s, a model of random weights (gguf.ts) samples the acts under it in a process of its own, and
// the report says how many the address acted on and which lint finding foresaw each refusal.
// Against the example host's addresses, forms llama.cpp refuses, and the bin as users run it.
import assert from 'node:assert/strict'
import { once } from 'node:events'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:http'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import Fastify, { type FastifyInstance } from 'fastify'
import { noteBoard, poll, slow } from '../../example/addresses.js'
import { writeModel } from '../../src/check/gguf.ts'
import { decodeLlama, refusal } from '../../src/check/llama-decoder.ts'
import { main } from '../../src/cli/check.ts'
import gpt, { type GptOptions } from '../../src/index.ts'
import { lint } from '../../src/lint/index.ts'
import { check, checkAddress, formatReport, injectSender, type Report } from '../../src/check/testing.ts'
import { bin, ROOT, without } from '../helpers/bin.ts'
import { need } from '../helpers/test-packages.js'

need('@fugood/llama.node')

const outcome = (report: Report, id: string): string | undefined => report.results.find((r) => r.id === id)?.outcome
const ACTS = 30
const MULTIPLE = { type: 'object', properties: { n: { type: 'integer', multipleOf: 7 } }, required: ['n'], additionalProperties: false }
// What lint says llama.cpp lets through that the address refuses (src/lint/wire.ts, the profile's findings).
const LEAKS = ['decoder-loosens', 'integer-unsafe', 'proto-member']

describe('check with llama.cpp writing the acts (--actor llama-cpp)', () => {
  let app: FastifyInstance
  before(async () => {
    app = Fastify()
    // the example host's three addresses (example/host.js), and two forms llama.cpp refuses
    await app.register(gpt, { ...noteBoard(), rateLimit: false } as unknown as GptOptions)
    await app.register(gpt, { ...poll(), rateLimit: false } as unknown as GptOptions)
    await app.register(gpt, { ...slow({ stepMs: 1, after: 1 }), rateLimit: false } as unknown as GptOptions)
    await app.register(gpt, { prefix: '/unanchored', form: { type: 'object', properties: { a: { type: 'string', pattern: 'ab' } } }, act: () => ({}), rateLimit: false, lint: false })
    await app.register(gpt, { prefix: '/multiple', form: MULTIPLE, act: () => ({}), rateLimit: false, lint: false })
    await app.register(gpt, { prefix: '/long', form: { type: 'object', properties: { a: { type: 'string', minLength: 3000 } } }, act: () => ({}), rateLimit: false, lint: false })
  })
  after(() => app.close())

  for (const [path, form] of [['/', noteBoard().form], ['/poll', poll().form], ['/slow', slow().form]] as const) {
    it(`the example host's ${path}: acted on exactly as lint's llama-cpp profile foresees`, async (t) => {
      const report = await checkAddress(app, { path, actor: 'llama-cpp', acts: ACTS, seed: 4, maxRequests: 400 })
      const { actor } = report
      assert.ok(actor !== undefined)
      assert.equal(actor.decoder, 'llama-cpp')
      assert.match(actor.version, /^@fugood\/llama\.node 1\.7\.15 \(llama\.cpp b\d+, [0-9a-f]+\)$/)
      assert.match(actor.profile, /json-schema-to-grammar\.cpp/)
      assert.equal(actor.written + actor.dropped + (actor.gaveUp?.count ?? 0), ACTS)
      assert.equal(actor.accepted + actor.refused + actor.unanswered, actor.written)
      assert.equal(actor.refusals.length, actor.refused)
      assert.ok(actor.written >= ACTS / 2, JSON.stringify(actor))
      assert.equal(outcome(report, '5.2-decoder'), 'pass')
      assert.equal(report.ok, true)
      // every refusal foreseen by a finding lint makes for llama-cpp; none where it foresees none
      const leaks = lint(form, { decoders: ['llama-cpp'] }).filter((f) => LEAKS.includes(f.rule))
      for (const refusal of actor.refusals) assert.ok(refusal.finding !== undefined && leaks.some((f) => f.pointer === refusal.finding?.pointer), JSON.stringify(refusal))
      if (leaks.length === 0) assert.equal(actor.accepted, actor.written)
      t.diagnostic(`llama-cpp on ${path}: ${actor.written} written, ${actor.accepted} acted on, ${actor.refused} refused, ${leaks.length} findings foresee refusals`)
      assert.match(formatReport(report), new RegExp(`The llama-cpp actor \\(@fugood/llama\\.node [^)]+\\)\\): ${actor.written} bodies written, ${actor.accepted} acted on, ${actor.refused} refused`))
    })
  }

  it('a form lint says llama.cpp loosens: the address refuses what the grammar let through, each refusal foreseen', async () => {
    const [finding] = lint(MULTIPLE, { decoders: ['llama-cpp'] }).filter((f) => f.rule === 'decoder-loosens')
    assert.equal(finding?.pointer, '/properties/n/multipleOf')
    const report = await checkAddress(app, { path: '/multiple', actor: 'llama-cpp', acts: 20, seed: 4 })
    const { actor } = report
    assert.ok(actor !== undefined && actor.refused > 0 && actor.accepted + actor.refused === actor.written, JSON.stringify(actor))
    for (const refusal of actor.refusals) {
      assert.equal(refusal.why, 's refuses it at /properties/n/multipleOf')
      assert.equal(refusal.finding?.pointer, '/properties/n/multipleOf')
    }
    assert.equal(outcome(report, '5.2-decoder'), 'pass')
    assert.match(formatReport(report), new RegExp(`${actor.refused} s refuses it at /properties/n/multipleOf: foreseen by lint, decoder-loosens at /properties/n/multipleOf`))
  })

  it('the same seed writes the same bodies', async () => {
    const once = await checkAddress(app, { path: '/slow', actor: 'llama-cpp', acts: 10, seed: 9 })
    const again = await checkAddress(app, { path: '/slow', actor: 'llama-cpp', acts: 10, seed: 9 })
    assert.deepEqual(again.actor, once.actor)
  })

  it('forms llama.cpp refuses: the converter\'s words, or the grammar parser\'s; no act sent, the rest of the run goes on', async () => {
    const unanchored = await checkAddress(app, { path: '/unanchored', actor: 'llama-cpp', acts: 5 })
    assert.equal(unanchored.actor?.refusedForm, 'JSON schema conversion failed: Pattern must start with \'^\' and end with \'$\'')
    assert.equal(unanchored.actor?.written, 0)
    assert.equal(outcome(unanchored, '5.2-decoder'), 'skip')
    assert.equal(unanchored.ok, true)
    const long = await checkAddress(app, { path: '/long', actor: 'llama-cpp', acts: 5 })
    assert.equal(long.actor?.refusedForm, 'number of repetitions exceeds sane defaults, please reduce the number of repetitions')
    assert.match(formatReport(long), /The llama-cpp actor \(@fugood\/llama\.node [^)]+\)\): refuses s: number of repetitions/)
    // lint foresaw both
    for (const [form, keyword] of [[{ type: 'object', properties: { a: { type: 'string', pattern: 'ab' } } }, 'pattern'], [{ type: 'object', properties: { a: { type: 'string', minLength: 3000 } } }, 'minLength']] as const) {
      assert.ok(lint(form, { decoders: ['llama-cpp'] }).some((f) => f.rule === 'decoder-refuses' && f.pointer === `/properties/a/${keyword}`), keyword)
    }
  })

  it('bounded: its process ended past its time or memory; a model that does not load says so', async () => {
    const task = { form: poll().form, bodies: 1000, seed: 1, maxTokens: 800 }
    assert.deepEqual(await decodeLlama(task, 50), { error: 'the decoder wrote no bodies within 50 ms' })
    assert.deepEqual(await decodeLlama(task, 20_000, 1), { error: 'the decoder held more than 1 MiB' })
    const dir = mkdtempSync(join(tmpdir(), 'not-gguf-'))
    try {
      // a file that is no GGUF model ends the binding's process (a segmentation fault), not the checker
      writeFileSync(join(dir, 'x.gguf'), 'not a model')
      const walked = await decodeLlama({ ...task, bodies: 1, model: join(dir, 'x.gguf') }, 20_000)
      assert.ok('error' in walked && walked.error.startsWith(`the model at ${join(dir, 'x.gguf')} did not load: `), JSON.stringify(walked))
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
    const send = injectSender(app, '/poll')
    await assert.rejects(check(send, 'x', { actor: 'llama-cpp', acts: 0 }), /the llama-cpp actor writes 1 to 1000 acts/)
    await assert.rejects(check(send, 'x', { actor: 'xgrammar', acts: 1, model: 'm.gguf' }), /a model is for the llama-cpp actor, not the xgrammar actor/)
    await assert.rejects(check(send, 'x', { actor: 'outlines' as 'xgrammar', acts: 1 }), /unknown actor "outlines" \(one of: xgrammar, llama-cpp\)/)
  })

  it('reads llama.cpp\'s words for refusing a form from what its process wrote', () => {
    assert.equal(refusal('llama_model_loader: ...\nterminate called after throwing an instance of \'std::invalid_argument\'\n  what():  JSON schema conversion failed:\nUnsupported ref: #\n'), 'JSON schema conversion failed: Unsupported ref: #')
    assert.equal(refusal('parse: error parsing grammar: unknown escape at \\d\nfailed to parse grammar\n'), 'unknown escape at \\d')
    assert.equal(refusal('common_perf_print: total time = 1 ms\n'), undefined)
  })
})

describe('fastify-gpt check --actor llama-cpp, as users run it', () => {
  let app: FastifyInstance
  let base = ''
  let model = ''
  before(async () => {
    app = Fastify()
    await app.register(gpt, { ...poll(), rateLimit: false } as unknown as GptOptions)
    base = await app.listen({ port: 0, host: '127.0.0.1' })
    model = writeModel(3)
  })
  after(async () => {
    await app.close()
    rmSync(dirname(model), { recursive: true, force: true })
  })

  it('acts with llama.cpp and prints the tally, with a model of its own or the one given', async () => {
    const human = await bin(['check', `${base}/poll`, '--actor', 'llama-cpp', '--acts', '6'])
    assert.equal(human.code, 0, human.err)
    assert.match(human.out, /pass {2}MUST {4}5\.2-decoder/)
    assert.match(human.out, /The llama-cpp actor \(@fugood\/llama\.node 1\.7\.15 \(llama\.cpp b\d+, [0-9a-f]+\)\): \d+ bodies written, \d+ acted on, 0 refused/)
    let out = ''
    let err = ''
    const io = { out: (text: string) => { out += text }, err: (text: string) => { err += text } }
    assert.equal(await main([`${base}/poll`, '--actor', 'llama-cpp', '--acts', '4', '--model', model, '--json'], io), 0, err)
    assert.equal((JSON.parse(out) as Report).actor?.decoder, 'llama-cpp')
  })

  it('says in one line what it cannot do, and exits 2', async () => {
    const cases: Array<[string[], RegExp]> = [
      [['--actor', 'llama-cpp'], /^fastify-gpt check: --actor llama-cpp needs --acts N, from 1 to 1000$/m],
      [['--model', model, '--acts', '3'], /^fastify-gpt check: --model is for --actor llama-cpp$/m],
      [['--actor', 'xgrammar', '--acts', '3', '--model', model], /--model is for --actor llama-cpp/],
      [['--actor', 'llama-cpp', '--acts', '3', '--model', join(ROOT, 'no-such.gguf')], /^fastify-gpt check: cannot read the model .*no-such\.gguf$/m],
      [['--actor', 'llama-cpp', '--acts', '3', '--model', ROOT], /cannot read the model/]
    ]
    for (const [args, message] of cases) {
      let err = ''
      const io = { out: () => { assert.fail('no report') }, err: (text: string) => { err += text } }
      assert.equal(await main([`${base}/poll`, ...args], io), 2, args.join(' '))
      assert.match(err, message)
    }
  })

  it('without @fugood/llama.node installed: one line, exit 2, not a request sent', async () => {
    const dir = without('@fugood')
    try {
      let requests = 0
      const server = createServer((_request, response) => { requests++; response.end() }).listen(0, '127.0.0.1')
      await once(server, 'listening')
      try {
        const { port } = server.address() as { port: number }
        const run = await bin(['check', `http://127.0.0.1:${port}/`, '--actor', 'llama-cpp', '--acts', '3'], dir)
        assert.equal(run.code, 2)
        assert.equal(run.err, 'fastify-gpt check: the llama-cpp actor needs @fugood/llama.node, which is not installed: npm install @fugood/llama.node\n')
        assert.equal(run.out, '')
        assert.equal(requests, 0)
      } finally {
        server.close()
      }
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
