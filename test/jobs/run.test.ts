// An act with background (src/jobs/run.ts) over requests: one that answers by itself through the
// reply has nothing to hand off; what `maxJobs` counts (acts running, each client its share) and
// what a refusal's Retry-After says; how many finished jobs are kept, and whose go first.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import Fastify, { type FastifyInstance, type LightMyRequestResponse } from 'fastify'
import gpt, { type GptOptions } from '../../src/index.ts'
import { eventually, gate, type Gate } from '../helpers/jobs.ts'

describe('background: an act that sent its own answer before the hand-off', () => {
  it('answers with what the act sent, no job address, and frees its place for the next act', async () => {
    const app = Fastify()
    const g = gate()
    let acts = 0
    await app.register(gpt, {
      form: { type: 'object' },
      rateLimit: false,
      background: { maxJobs: 1 },
      act: async (_body, _request, reply) => {
        acts++
        await reply.code(200).send({ answered: acts })
        await g.promise // goes on after its answer: past the hand-off
        return { never: 'sent' }
      }
    })
    for (const expected of [1, 2, 3]) {
      const response = await app.inject({ method: 'POST', url: '/', payload: '{}', headers: { 'content-type': 'application/json', prefer: 'respond-async' } })
      assert.equal(response.statusCode, 200)
      assert.deepEqual(response.json(), { answered: expected })
      assert.equal(response.headers['link'], undefined, 'no job address')
      assert.equal(response.headers['preference-applied'], undefined)
    }
    g.open()
    await app.close()
  })
})

type Mode = 'sync' | 'settled' | 'gated' | 'quick'

/**
 * A host whose act does what the body says: answers at once (`sync`), from a promise already
 * settled (`settled`), after the test opens a gate (`gated`), or after a turn of the event loop
 * (`quick`, a job that ends as soon as it starts).
 */
async function modes (background: Record<string, number>, more: Record<string, unknown> = {}): Promise<{ app: FastifyInstance, gates: Gate[] }> {
  const gates: Gate[] = []
  const app = Fastify()
  await app.register(gpt, {
    prefix: '/m',
    form: { type: 'object', properties: { mode: { enum: ['sync', 'settled', 'gated', 'quick'] } }, required: ['mode'] },
    rateLimit: false,
    background,
    act: ({ mode }: { mode: Mode }) => {
      if (mode === 'sync') return { mode }
      if (mode === 'settled') return Promise.resolve({ mode })
      if (mode === 'quick') return new Promise((resolve) => setImmediate(() => { resolve({ mode }) }))
      const g = gate()
      gates.push(g)
      return g.promise.then(() => ({ mode }))
    },
    ...more
  } as unknown as GptOptions)
  return { app, gates }
}

const act = (app: FastifyInstance, mode: Mode, client = '10.0.0.1', prefer = 'respond-async'): Promise<LightMyRequestResponse> =>
  app.inject({ method: 'POST', url: '/m', payload: JSON.stringify({ mode }), remoteAddress: client, headers: { 'content-type': 'application/json', prefer } })

describe('background: what maxJobs counts (acts running, never finished jobs)', () => {
  it('a kept finished job never refuses an act, fast or slow', async () => {
    const { app, gates } = await modes({ maxJobs: 1, keep: 600_000 })
    const first = await act(app, 'gated')
    assert.match(first.json().href, /^\/m\/jobs\//)
    assert.equal((await act(app, 'sync', '10.0.0.2')).statusCode, 503, 'the one place is taken while it runs')
    gates[0]!.open()
    await eventually(async () => (await app.inject(first.json().href)).json().status === 'completed', 'the job completes')
    for (let i = 0; i < 3; i++) assert.deepEqual((await act(app, 'sync')).json(), { mode: 'sync' }, 'a fast act runs beside a kept job')
    assert.equal((await app.inject(first.json().href)).json().status, 'completed', 'which is still kept')
    const second = await act(app, 'quick')
    assert.match(second.json().href, /^\/m\/jobs\//, 'and so does a slow one')
    await eventually(async () => (await app.inject(second.json().href)).statusCode === 200 && (await app.inject(first.json().href)).statusCode === 404,
      'one finished job kept of maxJobs 1: the older one goes')
    await app.close()
  })

  it('respond-async on an act whose result is already there: the plain answer, no job, no place held', async () => {
    const { app } = await modes({ maxJobs: 1 })
    for (const mode of ['sync', 'settled'] as const) {
      const response = await act(app, mode)
      assert.equal(response.statusCode, 200)
      assert.deepEqual(response.json(), { mode })
      assert.equal(response.headers.link, undefined)
      assert.equal(response.headers['preference-applied'], undefined)
    }
    const job = await act(app, 'quick')
    assert.equal(job.headers['preference-applied'], 'respond-async', 'an act still pending is handed off at once')
    await app.close()
  })

  it('one client holds at most a quarter of maxJobs running; another client still acts', async () => {
    const { app, gates } = await modes({ maxJobs: 8, poll: 2500 })
    for (let i = 0; i < 2; i++) assert.equal((await act(app, 'gated')).statusCode, 200)
    const refused = await act(app, 'gated')
    assert.equal(refused.statusCode, 503, 'its share of 8 is 2')
    assert.equal(refused.headers['retry-after'], '3', 'without actTimeout: a poll\'s interval')
    assert.equal((await act(app, 'sync')).statusCode, 503, 'a fast act too: it cannot be known fast before it runs')
    assert.equal(gates.length, 2, 'a refused act never runs')
    for (let i = 0; i < 2; i++) assert.equal((await act(app, 'gated', '10.0.0.2')).statusCode, 200, 'another client has places')
    gates[0]!.open()
    await eventually(async () => (await act(app, 'sync')).statusCode === 200, 'a place of its own again once one of its jobs ends')
    for (const g of gates) g.open()
    await app.close()
  })

  it('with actTimeout, Retry-After is the soonest a running act in the way must end', async () => {
    const { app, gates } = await modes({ maxJobs: 2, after: 10 }, { actTimeout: 30_000 })
    assert.equal((await act(app, 'gated', '10.0.0.1', 'wait=0')).statusCode, 200)
    await new Promise((resolve) => setTimeout(resolve, 1100))
    assert.equal((await act(app, 'gated', '10.0.0.2')).statusCode, 200)
    // Its own share (1 of 2) is held by its job, which must end 30 s after it started.
    const own = Number((await act(app, 'sync', '10.0.0.2')).headers['retry-after'])
    assert.ok(own >= 29 && own <= 30, `Retry-After ${own}`)
    // Every place held: the first job, a second older, ends first.
    const any = Number((await act(app, 'sync', '10.0.0.3')).headers['retry-after'])
    assert.ok(any >= 27 && any <= 29, `Retry-After ${any}`)
    for (const g of gates) g.open()
    await app.close()
  })

  it('finished jobs kept: at most maxJobs, and one more drops the oldest of the client holding the most', async () => {
    const { app } = await modes({ maxJobs: 2, keep: 600_000 })
    const finished = async (client: string): Promise<string> => {
      const { href } = (await act(app, 'quick', client)).json()
      await eventually(async () => (await app.inject(href)).json().status === 'completed', 'the job completes')
      return href
    }
    const kept = async (href: string): Promise<boolean> => (await app.inject(href)).statusCode === 200
    const a1 = await finished('10.0.0.1')
    const a2 = await finished('10.0.0.1')
    const b1 = await finished('10.0.0.2')
    assert.deepEqual([await kept(a1), await kept(a2), await kept(b1)], [false, true, true], 'the flooder loses its oldest first')
    const a3 = await finished('10.0.0.1')
    assert.deepEqual([await kept(a2), await kept(a3), await kept(b1)], [false, true, true], 'and again')
    const b2 = await finished('10.0.0.2')
    assert.deepEqual([await kept(a3), await kept(b1), await kept(b2)], [true, false, true], 'as many each: the oldest of them')
    await app.close()
  })
})
