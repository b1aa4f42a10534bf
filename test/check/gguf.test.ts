// The model the llama-cpp actor samples with: a GGUF file of random weights, written by our own
// code, that llama.cpp (@fugood/llama.node) loads and runs under a grammar of its own converter.
import assert from 'node:assert/strict'
import { readFileSync, rmSync } from 'node:fs'
import { dirname } from 'node:path'
import { after, describe, it } from 'node:test'
import { BOS, BYTE_BASE, DIMENSIONS, EOS, gguf, SPACE, vocabulary, WHOLE, writable, writeModel } from '../../src/check/gguf.ts'
import { installed, load, sample, UNPARSED, type Completion, type Llama } from '../../src/check/llama-cpp.ts'
import { random } from '../../src/check/generate.ts'
import { need } from '../helpers/test-packages.js'

describe('a GGUF model of random weights (gguf.ts)', () => {
  const file = writeModel(7)
  after(() => rmSync(dirname(file), { recursive: true, force: true }))

  it('is a GGUF v3 file: magic, version, the tensors and metadata it counts, a few hundred KB', () => {
    const bytes = readFileSync(file)
    assert.equal(bytes.subarray(0, 4).toString('latin1'), 'GGUF')
    assert.equal(bytes.readUInt32LE(4), 3)
    assert.equal(Number(bytes.readBigUInt64LE(8)), 3 + 9 * DIMENSIONS.layers)
    assert.equal(Number(bytes.readBigUInt64LE(16)), 20)
    assert.ok(bytes.length > 100_000 && bytes.length < 1_000_000, String(bytes.length))
    // the same seed, the same model; another seed, other weights of the same shape
    assert.deepEqual(gguf(7), bytes)
    const other = gguf(8)
    assert.equal(other.length, bytes.length)
    assert.notDeepEqual(other, bytes)
  })

  it('holds a token for every character of one byte, the specials, and characters of several bytes', () => {
    const tokens = vocabulary()
    assert.equal(tokens[BOS], '<s>')
    assert.equal(tokens[EOS], '</s>')
    for (let b = 0; b < 128; b++) assert.equal(tokens[BYTE_BASE + b], `<0x${b.toString(16).toUpperCase().padStart(2, '0')}>`)
    assert.deepEqual(tokens.slice(BYTE_BASE + 128), [...WHOLE, SPACE])
    assert.ok(WHOLE.some((c) => Buffer.byteLength(c) === 2) && WHOLE.some((c) => Buffer.byteLength(c) === 3) && WHOLE.some((c) => Buffer.byteLength(c) === 4))
    assert.ok(writable('{"a": "é 中 😀\\n"}'))
    assert.ok(!writable('ü') && !writable('a😁b'))
  })

  it('loads in llama.cpp and writes tokens, free and under the grammar of a form', async () => {
    need('@fugood/llama.node')
    assert.match(installed() ?? '', /^@fugood\/llama\.node 1\.7\.15 \(llama\.cpp b\d+, [0-9a-f]+\)$/)
    const llama = load()
    const context = await llama.loadModel({ model: file, n_ctx: 256, n_threads: 1 })
    try {
      const free = await context.completion({ prompt: 'a text with spaces', n_predict: 6, seed: 1, ignore_eos: true }) as Completion & { tokens_predicted: number }
      assert.ok(free.tokens_predicted >= 4 && free.tokens_predicted <= 6 && free.text.length > 0, JSON.stringify(free))
    } finally {
      await context.release()
    }
    const form = { type: 'object', properties: { n: { type: 'integer' }, s: { type: 'string', maxLength: 5 } }, required: ['n', 's'], additionalProperties: false }
    const walked = await sample(llama, file, form, { next: random(2), bodies: 8, maxTokens: 200 })
    assert.ok(!('error' in walked))
    assert.equal(walked.texts.length + walked.dropped + (walked.gaveUp?.count ?? 0), 8)
    assert.ok(walked.texts.length >= 4, JSON.stringify(walked))
    for (const text of walked.texts) {
      const value = JSON.parse(text) as { n: unknown, s: string }
      assert.deepEqual(Object.keys(value), ['n', 's'])
      assert.ok(Number.isInteger(value.n) && [...value.s].length <= 5, text)
    }
  })
})

describe('sampling, when the binding fails (llama-cpp.ts)', () => {
  /** A binding whose completions answer or throw as `script` says, in turn; counts the contexts opened. */
  function scripted (script: ReadonlyArray<Completion | string>): Llama & { opened: number } {
    let at = 0
    const fake = {
      opened: 0,
      loadModel: async () => {
        fake.opened++
        return {
          completion: async () => {
            const next = script[at++] as Completion | string
            if (typeof next === 'string') throw new Error(next)
            return next
          },
          release: async () => {}
        }
      }
    }
    return fake
  }
  const ok = (text: string): Completion => ({ text, stopped_eos: true })

  it('a context marked busy: the same body again, on a fresh context; a fault of the sampler: given up, counted', async () => {
    const llama = scripted(['Another completion is in progress', ok('{}'), 'Unexpected empty grammar stack after accepting piece: ~ (129)', { text: '{"a', stopped_eos: false }, 'boom'])
    const walked = await sample(llama, 'm.gguf', {}, { next: random(1), bodies: 4, maxTokens: 10 })
    assert.deepEqual(walked, { texts: ['{}'], dropped: 1, gaveUp: { count: 2, why: 'Unexpected empty grammar stack after accepting piece: ~ (129)' } })
    assert.equal(llama.opened, 4)
  })

  it('busy past its retries: given up; a grammar that does not parse: the form refused', async () => {
    const busy = 'Another completion is in progress'
    assert.deepEqual(await sample(scripted([busy, busy, busy, busy, ok('1')]), 'm', {}, { next: random(1), bodies: 2, maxTokens: 10 }),
      { texts: ['1'], dropped: 0, gaveUp: { count: 1, why: busy } })
    assert.deepEqual(await sample(scripted([ok('1'), UNPARSED]), 'm', {}, { next: random(1), bodies: 3, maxTokens: 10 }), { error: UNPARSED })
  })
})
