// Progress an act reports before its hand-off (src/jobs/early.ts): however much the act yields
// then, what is held and what is replayed into the job are bounded by the job's window, and the
// events kept have the seqs they would have had.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import fc from 'fast-check'
import Fastify from 'fastify'
import gpt from '../../src/index.ts'
import { EarlyProgress } from '../../src/jobs/early.ts'
import { Job, RETAINED } from '../../src/jobs/job.ts'
import { eventually, gate } from '../helpers/jobs.ts'
import { settledHeap } from './heap.ts'

describe('progress before the hand-off', () => {
  it('keeps the job\'s window of it, not all of it, and the first kept event has the seq it would have had', async () => {
    const events = 20_000
    const g = gate()
    let yielded = 0
    const app = Fastify()
    await app.register(gpt, {
      form: { type: 'object' },
      rateLimit: false,
      background: { after: 60_000 },
      async * act () {
        for (let i = 1; i <= events; i++) {
          yield { i, pad: JSON.stringify({ i, pad: 'x'.repeat(990) }) } // a flat string of its own, not one sharing its parts
          yielded = i
          if (i % 500 === 0) await new Promise((resolve) => setImmediate(resolve))
        }
        await g.promise
        return { events }
      }
    })
    const before = await settledHeap()
    // Handed off after 2 s (Prefer: wait), by which time the act has yielded everything.
    const answer = app.inject({ method: 'POST', url: '/', payload: '{}', headers: { 'content-type': 'application/json', prefer: 'wait=2' } })
    await eventually(() => yielded === events, 'every value yielded')
    const held = await settledHeap() - before
    // 1000 values of about 1 KB; all 20,000 would be 20 MB.
    assert.ok(held < 8 * 1048576, `before its hand-off the act's progress holds ${(held / 1048576).toFixed(1)} MB`)
    const { href } = (await answer).json()
    g.open()
    await eventually(async () => (await app.inject(href)).json().status === 'completed', 'the job completes')
    const lines = (await app.inject(`${href}/events`)).body.split('\n').filter(Boolean).map((line) => JSON.parse(line))
    assert.equal(lines.length, RETAINED)
    assert.deepEqual(lines.slice(0, -1).map((line) => [line.seq, line.progress.i]), Array.from({ length: RETAINED - 1 }, (_, i) => [events - RETAINED + 2 + i, events - RETAINED + 2 + i]))
    assert.deepEqual(lines.at(-1), { seq: events + 1, status: 'completed', result: { events } })
    await app.close()
  })

  it('replayed into a job, gives the job a reference fed every value would have: the same events, seqs and progress (fast-check)', () => {
    const value = fc.oneof(fc.integer(), fc.string({ maxLength: 8 }), fc.record({ message: fc.string({ maxLength: 8 }) }), fc.constant(undefined), fc.constant(10n))
    fc.assert(fc.property(fc.array(value, { maxLength: 2600, size: 'max' }), (values) => {
      const reference = new Job(0, 1000)
      for (const v of values) reference.progress(v)
      const early = new EarlyProgress()
      for (const v of values) early.push(v)
      assert.ok(early.length <= RETAINED, 'it holds at most the window')
      const job = new Job(0, 1000)
      let replayed = 0
      const progress = job.progress.bind(job)
      job.progress = (v: unknown): boolean => { replayed++; return progress(v) }
      early.replay(job)
      assert.ok(replayed <= RETAINED, 'its replay costs at most the window')
      assert.equal(job.version, reference.version)
      assert.deepEqual(job.since(0), reference.since(0))
      assert.equal(job.progressed, reference.progressed)
      assert.equal(early.length, 0, 'emptied by the replay')
    }), { numRuns: 40 })
  })
})
