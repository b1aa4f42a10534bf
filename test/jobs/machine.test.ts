// The job state machine under random interleavings: progress, results, failures, cancels,
// timeouts, the clock running out kept jobs, streams opening at any cursor and clients leaving.
// Whatever the order: no job is lost before its time, none answers twice, every stream sees each
// event once and in order, and every control act the current form does not admit is a bare 204.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { Validator } from '@cfworker/json-schema'
import fc from 'fast-check'
import Fastify from 'fastify'
import gpt from '../../src/index.ts'
import { DEFAULT_BACKGROUND, type BackgroundSettings } from '../../src/jobs/settings.ts'
import type { Job, JobEvent } from '../../src/jobs/job.ts'
import { clientShare, JobStore } from '../../src/jobs/store.ts'
import { FakeClock } from './clock.ts'
import { gate, type Gate } from '../helpers/jobs.ts'

type Op =
  | { op: 'start' }
  | { op: 'progress', job: number, value: unknown }
  | { op: 'complete', job: number, value: unknown }
  | { op: 'fail', job: number }
  | { op: 'cancel', job: number }
  | { op: 'forget', job: number }
  | { op: 'open', job: number, cursor: number }
  | { op: 'leave', stream: number }
  | { op: 'tick', ms: number }

const jobIndex = fc.nat({ max: 7 })
const ops: fc.Arbitrary<Op> = fc.oneof(
  fc.constant({ op: 'start' as const }),
  fc.record({ op: fc.constant('progress' as const), job: jobIndex, value: fc.jsonValue({ maxDepth: 2 }) }),
  fc.record({ op: fc.constant('complete' as const), job: jobIndex, value: fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.constant(10n)) }),
  fc.record({ op: fc.constant('fail' as const), job: jobIndex }),
  fc.record({ op: fc.constant('cancel' as const), job: jobIndex }),
  fc.record({ op: fc.constant('forget' as const), job: jobIndex }),
  fc.record({ op: fc.constant('open' as const), job: jobIndex, cursor: fc.nat({ max: 12 }) }),
  fc.record({ op: fc.constant('leave' as const), stream: fc.nat({ max: 15 }) }),
  fc.record({ op: fc.constant('tick' as const), ms: fc.oneof(fc.nat({ max: 50 }), fc.constant(100), fc.constant(101)) })
)

/** What the model expects of one job. */
interface Expected {
  readonly job: Job
  /** Every event, as the job reported it to a listener from the start. */
  readonly seen: JobEvent[]
  ended: boolean
  expires: number | undefined
  forgotten: boolean
}

/** A stream opened on a job: what it was sent, and whether its client left. */
interface Stream {
  readonly expected: Expected
  readonly lines: number[]
  terminals: number
  left: boolean
  stop: () => void
}

describe('the job state machine', () => {
  it('no job lost, none answers twice, every stream in order, under any interleaving', () => {
    fc.assert(fc.property(fc.array(ops, { maxLength: 80 }), fc.integer({ min: 1, max: 6 }), (script, maxJobs) => {
      const settings: BackgroundSettings = { ...DEFAULT_BACKGROUND, keep: 100, maxJobs }
      const clock = new FakeClock()
      const store = new JobStore(settings, clock)
      const jobs: Expected[] = []
      const streams: Stream[] = []
      const ends: Expected[] = []

      for (const step of script) {
        const target = 'job' in step ? jobs[step.job % Math.max(jobs.length, 1)] : undefined
        switch (step.op) {
          case 'start': {
            const running = jobs.filter((e) => !e.ended && !e.forgotten).length
            const place = store.reserve('one client')
            // maxJobs counts acts running, never finished jobs; one client holds its share of them.
            assert.equal(place !== undefined, running < Math.min(maxJobs, clientShare(maxJobs)), `reserve with ${running} running of ${maxJobs}`)
            if (place === undefined) break
            const job = store.admit(place)
            const expected: Expected = { job, seen: [], ended: false, expires: undefined, forgotten: false }
            job.subscribe((event) => { expected.seen.push(event) })
            jobs.push(expected)
            break
          }
          case 'progress':
            if (target !== undefined) assert.equal(target.job.progress(step.value), !target.ended)
            break
          case 'complete':
          case 'fail':
          case 'cancel': {
            if (target === undefined) break
            const ended = step.op === 'complete' ? target.job.complete(step.value, clock.now()) : target.job[step.op](clock.now())
            assert.equal(ended, !target.ended, 'a job ends once, and only once')
            if (ended) {
              target.ended = true
              target.expires = clock.now() + settings.keep
              ends.push(target)
              // At most maxJobs finished jobs are kept: one more drops the oldest to have ended.
              const kept = ends.filter((e) => !e.forgotten && e.expires! > clock.now())
              if (kept.length > maxJobs) kept[0]!.forgotten = true
              const status = step.op === 'complete' ? (typeof step.value === 'bigint' ? 'failed' : 'completed') : step.op === 'fail' ? 'failed' : 'cancelled'
              assert.equal(target.job.status, status)
              assert.equal(target.job.controller.signal.aborted, status !== 'completed')
            }
            break
          }
          case 'forget':
            if (target !== undefined && target.ended) {
              store.forget(target.job.id)
              target.forgotten = true
            }
            break
          case 'open': {
            if (target === undefined || store.get(target.job.id) === undefined) break
            const stream: Stream = { expected: target, lines: [], terminals: 0, left: false, stop: () => {} }
            const send = (event: JobEvent): void => {
              assert.equal(stream.left, false, 'nothing is sent to a client that left')
              stream.lines.push(event.seq)
              if (event.status !== 'working') stream.terminals++
            }
            for (const event of target.job.since(step.cursor)) send(event)
            if (!target.job.done) stream.stop = target.job.subscribe(send)
            streams.push({ ...stream, lines: stream.lines })
            streams[streams.length - 1] = stream
            break
          }
          case 'leave': {
            const stream = streams[step.stream % Math.max(streams.length, 1)]
            if (stream !== undefined) {
              stream.left = true
              stream.stop()
            }
            break
          }
          case 'tick':
            clock.tick(step.ms)
            break
        }

        // After every step, for every job:
        for (const expected of jobs) {
          const { job, seen } = expected
          // seqs run 1, 2, 3...; the only final event is the last one, and there is one once ended.
          assert.deepEqual(seen.map((event) => event.seq), seen.map((_, i) => i + 1))
          const finals = seen.filter((event) => event.status !== 'working')
          assert.equal(finals.length, expected.ended ? 1 : 0)
          if (expected.ended) assert.equal(seen.at(-1)!.status, job.status)
          // A job is there until it is forgotten or its time is up, and not a moment longer.
          const due = expected.expires !== undefined && expected.expires <= clock.now()
          assert.equal(store.get(job.id) === job, !expected.forgotten && !due, `job ${job.id} held`)
          // The arrival's `result` only for a completed job.
          assert.equal(job.result !== undefined, job.status === 'completed')
        }
        for (const stream of streams) {
          // A stream's events are each job event after its cursor, once, in order, ending at most once.
          const { lines } = stream
          assert.deepEqual(lines, [...new Set(lines)].sort((a, b) => a - b))
          for (let i = 1; i < lines.length; i++) assert.equal(lines[i], lines[i - 1]! + 1, 'no event skipped')
          assert.ok(stream.terminals <= 1)
        }
      }
      store.close()
    }), { numRuns: 400 })
  })
})

describe('control acts at a job address (draft §5.3)', () => {
  it('are answered 200 exactly when the form the arrival shows admits them, else the bare 204', async () => {
    const gates: Gate[] = []
    const app = Fastify()
    await app.register(gpt, {
      form: { type: 'object' },
      rateLimit: false,
      background: { maxJobs: 1000 },
      act: async () => { const g = gate(); gates.push(g); await g.promise; return { ok: true } }
    })
    const control = fc.oneof(
      fc.constant('{"do":"cancel"}'),
      fc.constant('{"do":"forget"}'),
      fc.jsonValue({ maxDepth: 3 }).map((value) => JSON.stringify(value)),
      fc.record({ do: fc.oneof(fc.constantFrom('cancel', 'forget', 'CANCEL', ' cancel'), fc.string()) }, { requiredKeys: [] }).map((value) => JSON.stringify(value)),
      fc.dictionary(fc.constantFrom('do', 'x', '__proto__'), fc.constantFrom('cancel', 'forget', 1, null)).map((value) => JSON.stringify(value))
    )
    await fc.assert(fc.asyncProperty(fc.array(fc.oneof(control, fc.constant('finish')), { minLength: 1, maxLength: 6 }), async (acts) => {
      const { href } = (await app.inject({ method: 'POST', url: '/', payload: '{}', headers: { prefer: 'respond-async' } })).json()
      const mine = gates.at(-1)!
      for (const act of acts) {
        if (act === 'finish') {
          mine.open()
          await new Promise((resolve) => setImmediate(resolve))
          continue
        }
        const before = await app.inject(href)
        const response = await app.inject({ method: 'POST', url: href, payload: act, headers: { 'content-type': 'application/json' } })
        if (before.statusCode === 404) {
          assert.equal(response.statusCode, 404)
          continue
        }
        // Judged against the published s by a validator of its own, never by the one under test.
        const admitted = new Validator(before.json().s, '2020-12', true).validate(JSON.parse(act)).valid
        if (!admitted) {
          assert.deepEqual([response.statusCode, response.body, response.headers['content-type']], [204, '', undefined], act)
          assert.equal((await app.inject(href)).body, before.body, 'a refused act changes nothing')
          continue
        }
        assert.equal(response.statusCode, 200, act)
        const after = await app.inject(href)
        if (JSON.parse(act).do === 'cancel') assert.equal(after.json().status, 'cancelled')
        else assert.equal(after.statusCode, 404)
      }
    }), { numRuns: 60 })
    for (const g of gates) g.open()
    await app.close()
  })
})
