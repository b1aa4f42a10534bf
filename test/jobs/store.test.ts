// The store of one address's jobs (src/jobs/store.ts) when its timers are late: an event loop busy
// past a kept job's expiry must not serve the job, nor count it, a moment longer.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { DEFAULT_BACKGROUND } from '../../src/jobs/settings.ts'
import { JobStore, type Clock } from '../../src/jobs/store.ts'

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
  it('is gone when read, frees its place, and its timer is cancelled', () => {
    const clock = new LateClock()
    const store = new JobStore({ ...DEFAULT_BACKGROUND, keep: 100, maxJobs: 1 }, clock)
    assert.ok(store.reserve())
    const job = store.admit(clock.now())
    assert.ok(job.complete({ ok: true }, clock.now()))
    assert.equal(clock.pending, 1, 'its expiry is set')

    clock.time += 100 - 1
    assert.equal(store.get(job.id), job, 'kept until the last moment of keep')
    assert.ok(!store.reserve(), 'and its place is still taken')

    clock.time += 1
    assert.equal(store.get(job.id), undefined, 'past keep: gone, though the timer has not run')
    assert.equal(clock.pending, 0, 'the timer that would have forgotten it is cancelled')
    assert.equal(store.size, 0)
    assert.ok(store.reserve(), 'its place is free')
  })

  it('a job still working is never expired by the clock', () => {
    const clock = new LateClock()
    const store = new JobStore({ ...DEFAULT_BACKGROUND, keep: 100, maxJobs: 1 }, clock)
    assert.ok(store.reserve())
    const job = store.admit(clock.now())
    clock.time += 10 ** 9
    assert.equal(store.get(job.id), job)
  })
})
