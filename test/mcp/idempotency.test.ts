// tools/call under an Idempotency-Key: the address's guard, the same as its POST's, runs the act
// once per key and arguments' bytes; a retry (a new JSON-RPC id) gets the same result.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import gpt, { type GptOptions } from '../../src/index.ts'
import { FAILED, MALFORMED, MISMATCHED } from '../../src/mcp/call.ts'
import { bridged, callText, noteForm, raw, type Bridged } from './bridge-host.ts'

let host: Bridged
let runs = 0
let release = (): void => {}

before(async () => {
  host = await bridged(async (app) => {
    const add = (prefix: string, options: Partial<GptOptions>): unknown => app.register(gpt, { prefix, rateLimit: false, form: noteForm, idempotency: true, act: () => ({ run: ++runs }), ...options } as unknown as GptOptions)
    await add('/note', {})
    await add('/wait', { act: () => new Promise((resolve) => { release = () => resolve({ run: ++runs }) }) })
    await add('/full', { idempotency: { maxKeys: 1 } })
    await add('/job', { background: { maxJobs: 1, after: 10 }, act: () => new Promise((resolve) => { release = () => resolve({ run: ++runs }) }) })
    await add('/word', { form: { type: 'string' }, act: (word) => `${String(word)} ${++runs}` })
    await add('/fails', { act: () => { runs++; throw new Error('boom') } })
  })
})
after(async () => { await host.close() })

const call = (name: string, args: string, meta?: Record<string, unknown>, id = 1, headers: Record<string, string> = {}): ReturnType<typeof raw> =>
  raw(host.port, { body: callText(name, args, meta, id), headers })
const resultOf = (body: string): unknown => (JSON.parse(body) as { result: unknown }).result

describe('tools/call with an idempotency key', () => {
  it('runs the act once for a key in `_meta`, or in the request\'s header; a retry with another id gets the same result', async () => {
    const before = runs
    const first = await call('note', '{"note":"a"}', { 'fastify-gpt/idempotency-key': 'm-1' })
    const again = await call('note', '{"note":"a"}', { 'fastify-gpt/idempotency-key': 'm-1' }, 2)
    assert.deepEqual(resultOf(again.body), resultOf(first.body))
    const byHeader = await call('note', '{"note":"a"}', undefined, 3, { 'idempotency-key': '"h-1"' })
    const byHeaderAgain = await call('note', '{"note":"a"}', undefined, 4, { 'idempotency-key': '"h-1"' })
    assert.deepEqual(resultOf(byHeaderAgain.body), resultOf(byHeader.body))
    assert.equal(runs - before, 2)
    // without a key, every call runs
    await call('note', '{"note":"a"}')
    await call('note', '{"note":"a"}')
    assert.equal(runs - before, 4)
  })

  it('takes the fingerprint of the arguments\' bytes (a wrapped form\'s value), not of the call', async () => {
    const before = runs
    const first = await call('word', '{"value":"hi"}', { 'fastify-gpt/idempotency-key': 'w' })
    const spaced = await call('word', '{"value":"hi"}', { 'fastify-gpt/idempotency-key': 'w', progressToken: 7 }, 9)
    assert.deepEqual(resultOf(spaced.body), resultOf(first.body))
    assert.deepEqual(resultOf((await call('word', '{"value":"ho"}', { 'fastify-gpt/idempotency-key': 'w' })).body), JSON.parse(MISMATCHED))
    assert.equal(runs - before, 1)
  })

  it('answers other arguments under the key, and a malformed key, each with one result, and runs nothing', async () => {
    await call('note', '{"note":"a"}', { 'fastify-gpt/idempotency-key': 'm-2' })
    const before = runs
    assert.deepEqual(resultOf((await call('note', '{"note":"b"}', { 'fastify-gpt/idempotency-key': 'm-2' })).body), JSON.parse(MISMATCHED))
    assert.deepEqual(resultOf((await call('note', '{"note":"b"}', { 'fastify-gpt/idempotency-key': '' })).body), JSON.parse(MALFORMED))
    assert.equal(runs, before)
  })

  it('answers a `_meta` key that is not a string as a malformed key, whatever the header says, and runs nothing', async () => {
    const before = runs
    for (const key of [12345, true, {}, [], null, '']) {
      for (const headers of [{}, { 'idempotency-key': '"h-ok"' }]) {
        const answered = await call('note', '{"note":"a"}', { 'fastify-gpt/idempotency-key': key }, 5, headers)
        assert.deepEqual(resultOf(answered.body), JSON.parse(MALFORMED), `${JSON.stringify(key)} with ${JSON.stringify(headers)}`)
      }
    }
    assert.equal(runs, before)
  })

  it('answers a retry while the first runs with 409 and Retry-After, then the result', async () => {
    const meta = { 'fastify-gpt/idempotency-key': 'slow' }
    const first = call('wait', '{"note":"a"}', meta)
    await new Promise((resolve) => setTimeout(resolve, 30))
    const during = await call('wait', '{"note":"a"}', meta, 2)
    assert.deepEqual([during.status, during.headers['retry-after']], [409, '1'])
    assert.match(during.body, /"code":-32000.*idempotency key/)
    release()
    const done = await first
    assert.deepEqual(resultOf((await call('wait', '{"note":"a"}', meta, 3)).body), resultOf(done.body))
  })

  it('keeps a call\'s result apart from a POST\'s answer under the same key', async () => {
    const before = runs
    await call('note', '{"note":"a"}', { 'fastify-gpt/idempotency-key': 'both' })
    const posted = await host.app.inject({ method: 'POST', url: '/note', payload: '{"note":"a"}', headers: { 'content-type': 'application/json', 'idempotency-key': 'both' } })
    assert.equal(posted.headers['idempotent-replayed'], undefined)
    assert.equal(runs - before, 2)
  })

  it('past maxKeys, a call with a new key is answered 503 with Retry-After and runs nothing', async () => {
    await call('full', '{"note":"a"}', { 'fastify-gpt/idempotency-key': 'one' })
    const before = runs
    const full = await call('full', '{"note":"a"}', { 'fastify-gpt/idempotency-key': 'two' })
    assert.deepEqual([full.status, full.headers['retry-after'], runs], [503, String(24 * 3600), before])
  })

  it('frees the key of a call refused for maxJobs (it never ran): a retry runs it', async () => {
    const job = await call('job', '{"note":"a"}', { 'fastify-gpt/idempotency-key': 'j-1' })
    assert.match(job.body, /resource_link/)
    const busy = await call('job', '{"note":"b"}', { 'fastify-gpt/idempotency-key': 'j-2' })
    assert.equal(busy.status, 503)
    release()
    await new Promise((resolve) => setTimeout(resolve, 30))
    const retried = await call('job', '{"note":"b"}', { 'fastify-gpt/idempotency-key': 'j-2' })
    assert.match(retried.body, /resource_link/) // it ran, and became a job
    release()
  })

  it('keeps the bare 500 of a call whose act failed, and answers a retry with the failed result without running it again', async () => {
    const before = runs
    const meta = { 'fastify-gpt/idempotency-key': 'f-1' }
    assert.deepEqual(resultOf((await call('fails', '{"note":"a"}', meta)).body), JSON.parse(FAILED))
    const again = await call('fails', '{"note":"a"}', meta, 2)
    assert.deepEqual(resultOf(again.body), JSON.parse(FAILED))
    assert.equal(runs - before, 1)
  })
})
