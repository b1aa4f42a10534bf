// The store of one address's jobs (src/jobs/store.ts): what `maxJobs` counts (acts running, each
// client its share), how finished jobs are kept and dropped, what a 503's Retry-After says, and
// its timers running late.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import fc from 'fast-check'
import type { Job } from '../../src/jobs/job.ts'
import { DEFAULT_BACKGROUND } from '../../src/jobs/settings.ts'
import { clientShare, JobStore, type Clock, type Place } from '../../src/jobs/store.ts'
import { FakeClock } from './clock.ts'

/** A clock whose timers have not fired yet, whatever the time: it counts those still pending. */
class LateClock implements Clock {
  time = 5_000
  pending = 0
  now = (): number => this.time
  after (): () => void {
    this.pending++
    let live = true
    return () => { if (live) { live = false; this.pending-- } }
  }
}

describe('a kept job past its expiry, before its timer has run', () => {
  it('is gone when read, is no longer counted, and its timer is cancelled', () => {
    const clock = new LateClock()
    const store = new JobStore({ ...DEFAULT_BACKGROUND, keep: 100, maxJobs: 1 }, clock)
    const job = store.admit(store.reserve('a')!)
    assert.ok(job.complete({ ok: true }, clock.now()))
    assert.equal(clock.pending, 1, 'its expiry is set')
    assert.deepEqual([store.running, store.finished], [0, 1], 'finished: kept, holding no place')

    clock.time += 100 - 1
    assert.equal(store.get(job.id), job, 'kept until the last moment of keep')

    clock.time += 1
    assert.equal(store.get(job.id), undefined, 'past keep: gone, though the timer has not run')
    assert.equal(clock.pending, 0, 'the timer that would have forgotten it is cancelled')
    assert.deepEqual([store.running, store.finished], [0, 0])
  })

  it('a job still working is never expired by the clock', () => {
    const clock = new LateClock()
    const store = new JobStore({ ...DEFAULT_BACKGROUND, keep: 100, maxJobs: 1 }, clock)
    const job = store.admit(store.reserve('a')!)
    clock.time += 10 ** 9
    assert.equal(store.get(job.id), job)
  })
})

describe('a job forgotten while it works (Redis no longer holding it, or it could not be stored there)', () => {
  it('is cancelled, and frees its place without being kept', () => {
    const store = new JobStore({ ...DEFAULT_BACKGROUND, maxJobs: 1 }, new FakeClock())
    const job = store.admit(store.reserve('a')!)
    store.forget(job.id)
    assert.equal(job.status, 'cancelled')
    assert.equal(job.controller.signal.aborted, true)
    assert.deepEqual([store.running, store.finished], [0, 0])
    assert.ok(store.reserve('a') !== undefined, 'its place is free')
    store.release({ client: 'nobody', started: 0 }) // a place the store never gave: nothing to give back
    assert.equal(store.running, 1)
  })
})

type Op =
  | { op: 'reserve', client: number }
  | { op: 'release', place: number }
  | { op: 'admit', place: number }
  | { op: 'finish', job: number }
  | { op: 'forget', job: number }
  | { op: 'tick', ms: number }

const CLIENTS = ['10.0.0.1', '10.0.0.2', '10.0.0.3', '::1']
const ops: fc.Arbitrary<Op> = fc.oneof(
  { maxDepth: 1 }, // constraints first: an object here would otherwise be read as them
  { arbitrary: fc.record({ op: fc.constant('reserve' as const), client: fc.nat({ max: CLIENTS.length - 1 }) }), weight: 4 },
  { arbitrary: fc.record({ op: fc.constant('release' as const), place: fc.nat({ max: 30 }) }), weight: 1 },
  { arbitrary: fc.record({ op: fc.constant('admit' as const), place: fc.nat({ max: 30 }) }), weight: 3 },
  { arbitrary: fc.record({ op: fc.constant('finish' as const), job: fc.nat({ max: 30 }) }), weight: 3 },
  { arbitrary: fc.record({ op: fc.constant('forget' as const), job: fc.nat({ max: 30 }) }), weight: 1 },
  { arbitrary: fc.record({ op: fc.constant('tick' as const), ms: fc.oneof(fc.nat({ max: 200 }), fc.constant(1000)) }), weight: 1 }
)

/** The model of one act: deciding, then answered (released) or a job; a job working, finished, then gone. */
interface Act {
  readonly place: Place
  readonly client: string
  state: 'deciding' | 'released' | 'working' | 'finished' | 'gone'
  job?: Job
  /** The order of its end among all ends, and when it expires. */
  rank?: number
  expires?: number
}

describe('what maxJobs counts, against a model', () => {
  it('acts running, each client at most its share; finished jobs kept within maxJobs, the flooder\'s oldest dropped first', () => {
    fc.assert(fc.property(fc.array(ops, { maxLength: 200, size: 'large' }), fc.integer({ min: 1, max: 6 }), fc.option(fc.integer({ min: 1, max: 5000 })), (script, maxJobs, actTimeout) => {
      const keep = 3000
      const clock = new FakeClock()
      const store = new JobStore({ ...DEFAULT_BACKGROUND, keep, maxJobs, poll: 2500 }, clock)
      const acts: Act[] = []
      let ends = 0
      const running = (client?: string): Act[] => acts.filter((a) => (a.state === 'deciding' || a.state === 'working') && (client === undefined || a.client === client))
      const finished = (): Act[] => acts.filter((a) => a.state === 'finished')
      const pick = (i: number, states: Array<Act['state']>): Act | undefined => {
        const some = acts.filter((a) => states.includes(a.state))
        return some[i % Math.max(some.length, 1)]
      }

      for (const step of script) {
        switch (step.op) {
          case 'reserve': {
            const client = CLIENTS[step.client]!
            const full = running().length >= maxJobs
            const mine = running(client).length >= clientShare(maxJobs)
            const expected = full || mine
            // A refusal says when the soonest of the acts in its way must end.
            const blocking = full ? running() : running(client)
            const retry = actTimeout === null
              ? Math.ceil(2500 / 1000)
              : Math.max(1, Math.ceil((Math.min(...blocking.map((a) => a.place.started + actTimeout)) - clock.now()) / 1000))
            const place = store.reserve(client)
            assert.equal(place === undefined, expected, `${client}: ${running(client).length} of its own running, ${running().length} of ${maxJobs}`)
            if (place === undefined) assert.equal(store.retryAfter(client, actTimeout ?? undefined), retry)
            else acts.push({ place, client, state: 'deciding' })
            break
          }
          case 'release': {
            const act = pick(step.place, ['deciding'])
            if (act === undefined) break
            store.release(act.place)
            act.state = 'released'
            break
          }
          case 'admit': {
            const act = pick(step.place, ['deciding'])
            if (act === undefined) break
            act.job = store.admit(act.place)
            act.state = 'working'
            break
          }
          case 'finish': {
            const act = pick(step.job, ['working'])
            if (act === undefined) break
            act.job!.complete({ ok: true }, clock.now())
            act.state = 'finished'
            act.rank = ends++
            act.expires = clock.now() + keep
            const kept = finished()
            if (kept.length > maxJobs) {
              // The client holding the most finished jobs loses its oldest; between equals, the oldest of theirs.
              const by = new Map<string, Act[]>()
              for (const a of kept) by.set(a.client, [...(by.get(a.client) ?? []), a])
              const lists = [...by.values()].map((list) => list.sort((x, y) => x.rank! - y.rank!))
              lists.sort((x, y) => y.length - x.length || x[0]!.rank! - y[0]!.rank!)
              lists[0]![0]!.state = 'gone'
            }
            break
          }
          case 'forget': {
            const act = pick(step.job, ['working', 'finished'])
            if (act === undefined) break
            store.forget(act.job!.id)
            assert.equal(act.job!.done, true, 'a job forgotten while working is cancelled')
            act.state = 'gone'
            break
          }
          case 'tick':
            clock.tick(step.ms)
            for (const a of finished()) if (a.expires! <= clock.now()) a.state = 'gone'
            break
        }

        assert.equal(store.running, running().length, 'acts running')
        assert.equal(store.finished, finished().length, 'finished jobs kept')
        assert.ok(store.finished <= maxJobs)
        for (const a of acts) {
          if (a.job !== undefined) assert.equal(store.get(a.job.id), a.state === 'gone' ? undefined : a.job, `a ${a.state} job`)
        }
      }
      store.close()
      assert.equal(store.running, running().filter((a) => a.state === 'deciding').length, 'closing cancels every job')
      for (const a of acts) if (a.job !== undefined) assert.equal(a.job.done, true)
    }), { numRuns: 500 })
  })

  it('a client\'s share is a quarter of maxJobs, at least one', () => {
    assert.deepEqual([1, 2, 4, 5, 20, 100].map(clientShare), [1, 1, 1, 2, 5, 25])
  })
})
