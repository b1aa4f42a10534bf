// Idempotency-Key on one host: the act runs once per key and body, a retry gets the kept bytes.
import assert from 'node:assert/strict'
import { subscribe, unsubscribe } from 'node:diagnostics_channel'
import { describe, it } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import Fastify, { type FastifyInstance, type LightMyRequestResponse } from 'fastify'
import gpt, { GPT_ERR_OPTION_INVALID, type GptAddress, type GptOptions } from '../../src/index.ts'
import { host, noteForm, registrationError } from '../helpers/host.ts'
import { eventually, slowHost } from '../helpers/jobs.ts'

const post = (app: FastifyInstance, payload: string, headers: Record<string, string> = {}, url = '/', remoteAddress = '127.0.0.1'): Promise<LightMyRequestResponse> =>
  app.inject({ method: 'POST', url, payload, headers: { 'content-type': 'application/json', ...headers }, remoteAddress })

/** Everything a client sees of a response but its date. */
const shape = (response: LightMyRequestResponse): { status: number, headers: Record<string, unknown>, body: string } => {
  const { date, ...headers } = response.headers
  return { status: response.statusCode, headers, body: response.body }
}

const KEY = { 'idempotency-key': '"8e03978e-40d5-43e8-bc93-6894a57f9324"' }

/** A host whose act counts its runs and answers with the count, a header of its own set. */
async function counting (options: Partial<GptOptions> = {}): Promise<{ app: FastifyInstance, runs: () => number }> {
  let runs = 0
  const { app } = await host({
    idempotency: true,
    act: (body, request, reply) => {
      runs++
      reply.header('x-order', `o-${runs}`)
      return { run: runs, body }
    },
    ...options
  })
  return { app, runs: () => runs }
}

describe('an address with idempotency', () => {
  it('runs an act once per key: a retry with the same bytes gets the first answer, byte for byte, marked as replayed', async () => {
    const { app, runs } = await counting()
    const first = await post(app, '{"note":"a"}', KEY)
    assert.equal(first.statusCode, 200)
    assert.equal(first.headers['x-order'], 'o-1')
    for (let i = 0; i < 3; i++) {
      const again = shape(await post(app, '{"note":"a"}', KEY))
      const { 'idempotent-replayed': replayed, ...headers } = again.headers
      assert.equal(replayed, 'true')
      assert.deepEqual({ ...again, headers }, shape(first))
    }
    assert.equal(runs(), 1)
    await app.close()
  })

  it('answers other bytes under a used key with a bare 422, and runs nothing', async () => {
    const { app, runs } = await counting()
    await post(app, '{"note":"a"}', KEY)
    // the same value in other bytes is another body: the key names these bytes
    for (const other of ['{"note":"b"}', '{ "note":"a"}', '{"note":"a","stars":1}']) {
      const response = await post(app, other, KEY)
      assert.deepEqual([response.statusCode, response.body, response.headers['content-type']], [422, '', undefined])
    }
    assert.equal(runs(), 1)
    await app.close()
  })

  it('answers a retry while the first is still running with 409 and Retry-After, then the kept answer', async () => {
    let release = (): void => {}
    const { app } = await host({ idempotency: true, act: () => new Promise((resolve) => { release = () => resolve({ done: true }) }) })
    const first = post(app, '{"note":"a"}', KEY)
    await sleep(20)
    const during = await post(app, '{"note":"a"}', KEY)
    assert.deepEqual([during.statusCode, during.headers['retry-after'], during.body], [409, '1', ''])
    release()
    assert.equal((await first).body, '{"done":true}')
    const after = await post(app, '{"note":"a"}', KEY)
    assert.deepEqual([after.statusCode, after.body, after.headers['idempotent-replayed']], [200, '{"done":true}', 'true'])
    await app.close()
  })

  it('keeps nothing for a body the form refuses: the bare 204, and the key is still free', async () => {
    const { app, runs } = await counting()
    for (const refused of ['{"note":""}', '{"note":"a","x":1}', 'nope', '']) {
      const response = await post(app, refused, KEY)
      assert.deepEqual([response.statusCode, response.body], [204, ''])
    }
    assert.equal((await post(app, '{"note":"a"}', KEY)).statusCode, 200)
    assert.equal(runs(), 1)
    await app.close()
  })

  it('gives a retry its kept answer whatever the form has become: update() narrowed it, or changed its entity tag', async () => {
    let address: GptAddress | undefined
    const { app, runs } = await counting({ ifMatch: true, onAddress: (made: GptAddress) => { address = made } })
    const arrival = (await app.inject('/')).headers.etag as string
    const first = await post(app, '{"note":"a long note"}', { ...KEY, 'if-match': arrival })
    assert.equal(first.statusCode, 200)
    address!.update({ form: { ...noteForm, properties: { ...noteForm.properties, note: { type: 'string', maxLength: 5 } } } })
    const again = await post(app, '{"note":"a long note"}', { ...KEY, 'if-match': arrival })
    assert.deepEqual([again.statusCode, again.body, again.headers['idempotent-replayed']], [200, first.body, 'true'], 'not the bare 204, nor a 412: those bytes were accepted once')
    assert.equal(runs(), 1)
    // anything else is judged as ever: by the form now, by its tag now
    assert.equal((await post(app, '{"note":"other long"}', KEY)).statusCode, 204)
    assert.equal((await post(app, '{"note":"abc"}', { 'idempotency-key': '"fresh"', 'if-match': arrival })).statusCode, 412)
    assert.equal((await post(app, '{"note":"abc"}', { 'idempotency-key': '"fresh"', 'if-match': address!.etag })).statusCode, 200)
    assert.equal((await post(app, '{"note":"abcdef"}', { 'idempotency-key': '"fresh-2"' })).statusCode, 204, 'a refused body under a fresh key')
    assert.equal(runs(), 2)
    await app.close()
  })

  it('leaves a request without the header as it is, byte for byte, and runs it every time', async () => {
    const plain = await counting({ idempotency: false })
    const kept = await counting()
    for (const body of ['{"note":"a"}', '{"note":"a"}', '{"note":""}', '{"x":1}']) {
      assert.deepEqual(shape(await post(kept.app, body)), shape(await post(plain.app, body)))
    }
    assert.equal(kept.runs(), 2)
    await plain.app.close()
    await kept.app.close()
  })

  it('ignores the header where the option is off', async () => {
    const { app, runs } = await counting({ idempotency: false })
    await post(app, '{"note":"a"}', KEY)
    const second = await post(app, '{"note":"a"}', KEY)
    assert.equal(second.headers['idempotent-replayed'], undefined)
    assert.equal(runs(), 2)
    await app.close()
  })

  it('refuses a malformed key with a bare 400 and keeps nothing', async () => {
    const { app, runs } = await counting()
    const bad = ['""', '"a', 'a b', '"a";p=1', '"x", "y"', 'a,b', `"${'k'.repeat(256)}"`, '"é"', '"\\a"', ' ']
    for (const key of bad) {
      const response = await post(app, '{"note":"a"}', { 'idempotency-key': key })
      assert.deepEqual([key, response.statusCode, response.body], [key, 400, ''])
    }
    assert.equal(runs(), 0)
    // a bare key and its String are one key; escapes are read
    await post(app, '{"note":"a"}', { 'idempotency-key': 'k-1' })
    assert.equal((await post(app, '{"note":"a"}', { 'idempotency-key': '"k-1"' })).headers['idempotent-replayed'], 'true')
    await post(app, '{"note":"a"}', { 'idempotency-key': '"a\\"b"' })
    assert.equal((await post(app, '{"note":"a"}', { 'idempotency-key': '"a\\"b"' })).headers['idempotent-replayed'], 'true')
    assert.equal((await post(app, '{"note":"a"}', { 'idempotency-key': `"${'k'.repeat(255)}"` })).statusCode, 200)
    assert.equal(runs(), 3)
    await app.close()
  })

  it('forgets a key `keep` ms after its act ended: then the act runs again', async () => {
    const { app, runs } = await counting({ idempotency: { keep: 100 } })
    await post(app, '{"note":"a"}', KEY)
    await post(app, '{"note":"a"}', KEY)
    assert.equal(runs(), 1)
    await sleep(150)
    const fresh = await post(app, '{"note":"a"}', KEY)
    assert.deepEqual([fresh.statusCode, fresh.headers['idempotent-replayed'], runs()], [200, undefined, 2])
    await app.close()
  })

  it('keeps a failed act\'s bare 500 and a timed-out act\'s bare 503: the act ran, so a retry does not run it', async () => {
    let runs = 0
    const failing = await host({ idempotency: true, act: () => { runs++; throw new Error('down') } })
    assert.equal((await post(failing.app, '{"note":"a"}', KEY)).statusCode, 500)
    const again = await post(failing.app, '{"note":"a"}', KEY)
    assert.deepEqual([again.statusCode, again.body, again.headers['idempotent-replayed'], runs], [500, '', 'true', 1])
    await failing.app.close()
    const slow = await host({ idempotency: true, actTimeout: 20, act: () => { runs++; return sleep(200) } })
    assert.equal((await post(slow.app, '{"note":"a"}', KEY)).statusCode, 503)
    const late = await post(slow.app, '{"note":"a"}', KEY)
    assert.deepEqual([late.statusCode, late.headers['idempotent-replayed'], runs], [503, 'true', 2])
    await slow.app.close()
  })

  it('keeps no answer the address did not make: an act that answered by itself replays as a bare 500', async () => {
    let runs = 0
    const { app } = await host({ idempotency: true, act: (body, request, reply) => { runs++; reply.code(201).send('made here') } })
    assert.equal((await post(app, '{"note":"a"}', KEY)).statusCode, 201)
    const again = await post(app, '{"note":"a"}', KEY)
    assert.deepEqual([again.statusCode, again.headers['idempotent-replayed'], runs], [500, 'true', 1])
    await app.close()
  })

  it('past maxKeys keys held, a new key is a 503 with Retry-After and runs nothing; a kept one still replays', async () => {
    const { app, runs } = await counting({ idempotency: { maxKeys: 2, keep: 60_000 } })
    // each from a client of its own: one client holds a quarter (here one key)
    await post(app, '{"note":"a"}', { 'idempotency-key': 'a' }, '/', '10.0.0.1')
    await post(app, '{"note":"a"}', { 'idempotency-key': 'b' }, '/', '10.0.0.2')
    const full = await post(app, '{"note":"a"}', { 'idempotency-key': 'c' }, '/', '10.0.0.3')
    assert.deepEqual([full.statusCode, full.headers['retry-after'], runs()], [503, '60', 2])
    assert.equal((await post(app, '{"note":"a"}', { 'idempotency-key': 'a' })).headers['idempotent-replayed'], 'true')
    assert.equal((await post(app, '{"note":"a"}')).statusCode, 200) // no key: as ever
    await app.close()
  })

  it('lets one client hold at most a quarter of maxKeys and of maxBytes, so it never refuses another client\'s fresh key', async () => {
    const { app, runs } = await counting({ idempotency: { maxKeys: 8, maxBytes: 4000, keep: 60_000 } })
    const from = (client: string, key: string, note = 'a'): Promise<LightMyRequestResponse> => post(app, JSON.stringify({ note }), { 'idempotency-key': key }, '/', client)
    assert.equal((await from('10.0.0.1', 'k1')).statusCode, 200)
    assert.equal((await from('10.0.0.1', 'k2')).statusCode, 200)
    const third = await from('10.0.0.1', 'k3')
    assert.deepEqual([third.statusCode, third.body], [503, ''], 'a quarter of 8 keys is 2')
    assert.match(String(third.headers['retry-after']), /^[1-9]\d*$/)
    assert.equal((await from('10.0.0.2', 'k3')).statusCode, 200, 'another client\'s fresh key')
    assert.equal((await from('10.0.0.1', 'k1')).headers['idempotent-replayed'], 'true', 'its kept answers still replay')
    // bytes: answers of about 1,300 bytes; a quarter of 4,000 is 1,000, so one answer fills a client's share
    const big = 'x'.repeat(1200)
    const longForm = await counting({ form: { type: 'object', properties: { note: { type: 'string' } } }, idempotency: { maxKeys: 100, maxBytes: 4000, keep: 60_000 } })
    const fromBig = (client: string, key: string): Promise<LightMyRequestResponse> => post(longForm.app, JSON.stringify({ note: big }), { 'idempotency-key': key }, '/', client)
    assert.equal((await fromBig('10.0.0.5', 'b1')).statusCode, 200)
    assert.equal((await fromBig('10.0.0.5', 'b2')).statusCode, 503, 'its share of the bytes held')
    for (const [n, client] of ['10.0.0.6', '10.0.0.7', '10.0.0.8'].entries()) assert.equal((await fromBig(client, `c${n}`)).statusCode, 200, client)
    assert.equal((await fromBig('10.0.0.9', 'd')).statusCode, 503, 'maxBytes held in all')
    assert.equal(runs(), 3)
    await app.close()
    await longForm.app.close()
  })

  it('tells a client past its share when its own oldest kept answer goes, not another client\'s', async () => {
    const { LocalKeys } = await import('../../src/idempotency/keys.ts')
    let now = 0
    const keys = new LocalKeys({ keep: 60_000, maxKeys: 8, maxBytes: 1_000_000, lease: 10_000 }, () => now)
    const keep = (client: string, key: string): void => {
      const claim = keys.claim(key, 'x', client)
      assert.equal(claim.kind, 'claimed')
      if (claim.kind === 'claimed') claim.ticket.done({ status: 200, headers: {}, body: '{}' })
    }
    keep('other', 'o') // goes at 60 s
    now = 30_000
    keep('flood', 'f1') // goes at 90 s
    keep('flood', 'f2')
    assert.deepEqual(keys.claim('f3', 'x', 'flood'), { kind: 'full', retryAfter: 60 }, 'a quarter of 8 is 2; its oldest goes in 60 s')
    now = 60_000
    assert.deepEqual(keys.claim('f3', 'x', 'flood'), { kind: 'full', retryAfter: 30 })
    now = 90_000
    assert.equal(keys.claim('f3', 'x', 'flood').kind, 'claimed')
  })

  it('keeps the outcome of a job that ended before its handle was kept (an amend before the answer)', async () => {
    const { installIdempotency } = await import('../../src/idempotency/index.ts')
    const { DEFAULT_IDEMPOTENCY } = await import('../../src/idempotency/option.ts')
    const installed = installIdempotency(DEFAULT_IDEMPOTENCY, '/', undefined, Fastify().log)
    const headers = { 'idempotency-key': '"early"' }
    const bytes = Buffer.from('{"note":"a"}')
    const passage = await installed!.guard.pass(headers, bytes, 'http', 'c')
    assert.ok(passage !== undefined && 'ticket' in passage)
    passage.ticket.amend({ status: 200, headers: {}, body: '{"result":1}' })
    passage.ticket.done({ status: 200, headers: { link: '</jobs/x>; rel="monitor"' }, body: '{"handle":1}' })
    const kept = await installed!.guard.kept(headers, bytes, 'http')
    assert.deepEqual(kept?.answer, { status: 200, headers: { 'idempotent-replayed': 'true' }, body: '{"result":1}' })
    await installed!.close()
  })

  it('keys each address apart', async () => {
    const app = Fastify()
    let runs = 0
    const address: GptOptions = { form: noteForm, idempotency: true, rateLimit: false, act: () => ++runs }
    await app.register(gpt, { ...address, prefix: '/a' })
    await app.register(gpt, { ...address, prefix: '/b' })
    await post(app, '{"note":"a"}', KEY, '/a')
    await post(app, '{"note":"a"}', KEY, '/b')
    assert.equal(runs, 2)
    await app.close()
  })

  it('refuses a bad option at registration, naming it', async () => {
    for (const idempotency of [null, 1, 'yes', [], { keep: 0 }, { keep: 1.5 }, { keep: 2 ** 31 }, { maxKeys: -1 }, { lease: '10' }, { ttl: 5 }]) {
      const error = await registrationError({ form: noteForm, idempotency }, '/orders')
      assert.ok(error instanceof GPT_ERR_OPTION_INVALID, String(error))
      assert.match((error as Error).message, /\/orders.*"idempotency/)
    }
  })

  it('answers a retry of an act that became a job with the same handle, and starts no second job', async () => {
    const { app, stepper } = await slowHost({ after: 10_000 }, { idempotency: true })
    const headers = { ...KEY, prefer: 'respond-async' }
    const first = await post(app, '{"steps":2}', headers, '/slow')
    assert.equal(first.statusCode, 200)
    const again = await post(app, '{"steps":2}', headers, '/slow')
    assert.deepEqual([again.body, again.headers['link'], again.headers['idempotent-replayed']], [first.body, first.headers['link'], 'true'])
    assert.equal(stepper.signals.length, 1)
    // the job address named by the handle is the one job
    assert.equal((await app.inject(JSON.parse(first.body).href)).statusCode, 200)
    for (const g of stepper.gates) g.open()
    await app.close()
  })

  it('answers a retry after the job ended with what it came to, and after it is forgotten too (a key outlives its job)', async () => {
    const { app, stepper } = await slowHost({ after: 10_000, keep: 200 }, { idempotency: true })
    const headers = { ...KEY, prefer: 'respond-async' }
    const first = await post(app, '{"steps":1}', headers, '/slow')
    const href = JSON.parse(first.body).href as string
    stepper.gates[1]!.open()
    await eventually(async () => (await app.inject(href)).json().status === 'completed', 'the job completed')
    const done = await post(app, '{"steps":1}', headers, '/slow')
    assert.deepEqual([done.statusCode, done.body, done.headers['idempotent-replayed'], done.headers['content-type']], [200, '{"steps":1}', 'true', 'application/json; charset=utf-8'])
    await eventually(async () => (await app.inject(href)).statusCode === 404, 'the job forgotten after its keep')
    const later = await post(app, '{"steps":1}', headers, '/slow')
    assert.deepEqual([later.statusCode, later.body], [200, '{"steps":1}'], 'the result, not a handle to a job that is gone')
    assert.equal(stepper.signals.length, 1, 'run once')
    await app.close()
  })

  it('answers a retry after the job failed with the bare 500, as a failed act', async () => {
    const { app, stepper } = await slowHost({ after: 100 }, { idempotency: true, actTimeout: 300 })
    const headers = { ...KEY, prefer: 'respond-async' }
    const first = await post(app, '{"steps":1}', headers, '/slow')
    const href = JSON.parse(first.body).href as string
    await eventually(async () => (await app.inject(href)).json().status === 'failed', 'the job failed at actTimeout')
    const again = await post(app, '{"steps":1}', headers, '/slow')
    assert.deepEqual([again.statusCode, again.body], [500, ''])
    assert.equal(stepper.signals.length, 1)
    stepper.gates[1]!.open()
    await app.close()
  })

  it('frees the key of an act refused for maxJobs (it never ran): a retry runs it', async () => {
    const { app, stepper } = await slowHost({ maxJobs: 1 }, { idempotency: true })
    const async = { prefer: 'respond-async' }
    await post(app, '{"steps":1}', { ...async, 'idempotency-key': 'first' }, '/slow')
    const busy = await post(app, '{"steps":1}', { ...async, ...KEY }, '/slow')
    assert.equal(busy.statusCode, 503)
    stepper.gates[1]!.open()
    await sleep(30)
    const retried = await post(app, '{"steps":1}', { ...async, ...KEY }, '/slow')
    assert.deepEqual([retried.statusCode, retried.headers['idempotent-replayed']], [200, undefined])
    assert.equal(stepper.signals.length, 2)
    await app.close()
  })

  it('tells operators of each act not run for its key (fastify-gpt.refusal, stage idempotency), and the actor only the bare status', async () => {
    const { app } = await counting()
    const seen: Array<{ stage: string, via: string }> = []
    const listener = (message: unknown): void => { seen.push(message as { stage: string, via: string }) }
    subscribe('fastify-gpt.refusal', listener)
    try {
      await post(app, '{"note":"a"}', KEY)
      await post(app, '{"note":"a"}', KEY) // a replay: no refusal
      await post(app, '{"note":"b"}', KEY)
      await post(app, '{"note":"a"}', { 'idempotency-key': '""' })
    } finally {
      unsubscribe('fastify-gpt.refusal', listener)
    }
    assert.deepEqual(seen.map(({ stage, via }) => [stage, via]), [['idempotency', 'http'], ['idempotency', 'http']])
    await app.close()
  })
})
