// The keys' state machine (claim, run, keep, replay, conflict, free, expire) against a model: runs
// of random moves, the same on the keys in this process (a clock of the test's) and in a real
// redis-server, each claim's outcome held to what the model says.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import fc from 'fast-check'
import type { Ticket } from '../../src/address/guard.ts'
import { LocalKeys, type Claim, type Keys, type Kept } from '../../src/idempotency/keys.ts'
import { SharedKeys } from '../../src/idempotency/shared.ts'
import { redisServer, until, type RedisServer } from '../helpers/redis.ts'

type Move =
  | { readonly kind: 'claim', readonly key: string, readonly fingerprint: string }
  | { readonly kind: 'look', readonly key: string, readonly fingerprint: string }
  | { readonly kind: 'done' | 'free', readonly ticket: number }
  | { readonly kind: 'wait', readonly ms: number }

interface Held { readonly fingerprint: string, kept: Kept | undefined, expires: number }

/** What a claim comes to, by the model: the keys as a map, kept answers forgotten `keep` after they were kept. */
class Model {
  readonly held = new Map<string, Held>()
  now = 0
  constructor (readonly keep: number, readonly maxKeys: number) {}
  claim (key: string, fingerprint: string): Claim['kind'] {
    for (const [name, entry] of this.held) if (entry.expires <= this.now) this.held.delete(name)
    const entry = this.held.get(key)
    if (entry === undefined) {
      if (this.held.size >= this.maxKeys) return 'full'
      this.held.set(key, { fingerprint, kept: undefined, expires: Infinity })
      return 'claimed'
    }
    if (entry.fingerprint !== fingerprint) return 'mismatch'
    return entry.kept === undefined ? 'running' : 'done'
  }

  /** The answer a retry is given before its body is judged: kept for these very bytes, else none. */
  look (key: string, fingerprint: string): Kept | undefined {
    for (const [name, entry] of this.held) if (entry.expires <= this.now) this.held.delete(name)
    const entry = this.held.get(key)
    return entry?.fingerprint === fingerprint ? entry.kept : undefined
  }
}

const moves = (waits: boolean): fc.Arbitrary<Move[]> => fc.array(fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('claim' as const), key: fc.constantFrom('a', 'b', 'c'), fingerprint: fc.constantFrom('x', 'y') }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('look' as const), key: fc.constantFrom('a', 'b', 'c'), fingerprint: fc.constantFrom('x', 'y') }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constantFrom('done' as const, 'free' as const), ticket: fc.nat(5) }) },
  ...(waits ? [{ weight: 1, arbitrary: fc.record({ kind: fc.constant('wait' as const), ms: fc.constantFrom(10, 60, 200) }) }] : [])
), { maxLength: 40 })

/** Plays the moves on `keys` and on the model; every claim must come to what the model says, a replay to the answer kept. */
async function play (keys: Keys, model: Model, run: Move[], prefix: string, wait: (ms: number) => void): Promise<void> {
  const open: Array<{ ticket: Ticket, key: string }> = []
  let answers = 0
  for (const move of run) {
    if (move.kind === 'wait') {
      wait(move.ms)
      model.now += move.ms
    } else if (move.kind === 'look') {
      assert.deepEqual(await keys.kept(prefix + move.key, move.fingerprint), model.look(prefix + move.key, move.fingerprint), JSON.stringify({ move, run }))
    } else if (move.kind === 'claim') {
      const expected = model.claim(prefix + move.key, move.fingerprint)
      const claim = await keys.claim(prefix + move.key, move.fingerprint, move.key)
      assert.equal(claim.kind, expected, JSON.stringify({ move, run }))
      if (claim.kind === 'claimed') open.push({ ticket: claim.ticket, key: prefix + move.key })
      if (claim.kind === 'done') assert.deepEqual(claim.kept, model.held.get(prefix + move.key)?.kept)
    } else if (open.length > 0) {
      const { ticket, key } = open.splice(move.ticket % open.length, 1)[0]!
      const entry = model.held.get(key)!
      if (move.kind === 'done') {
        const kept = { status: 200, headers: { 'x-n': String(++answers) }, body: `{"n":${answers}}` }
        ticket.done(kept)
        entry.kept = kept
        entry.expires = model.now + model.keep
      } else {
        ticket.free()
        model.held.delete(key)
      }
    }
  }
}

describe('the keys\' state machine against a model', () => {
  it('in this process: claim, keep, replay, conflict, free, full and expiry', async () => {
    await fc.assert(fc.asyncProperty(moves(true), async (run) => {
      let now = 1_000
      const keys = new LocalKeys({ keep: 100, maxKeys: 2, maxBytes: 1_000_000, lease: 10_000 }, () => now)
      await play(keys, new Model(100, 2), run, '', (ms) => { now += ms })
    }), { numRuns: 300, seed: 20261203 })
  })

  describe('in Redis', () => {
    let redis: RedisServer
    let server: RedisServer['client']
    before(async () => {
      redis = await redisServer()
      server = redis.client
    })
    /** A client of the server, once it is ready (before, a claim is `away`). */
    const ready = async (): Promise<ReturnType<RedisServer['client']>> => {
      const client = server()
      await until(() => client.status === 'ready', 'the client is ready')
      return client
    }
    after(async () => { await redis.stop() })

    it('claim, keep, replay, conflict, free and full, each one atomic step of a script', async () => {
      const client = await ready()
      let round = 0
      await fc.assert(fc.asyncProperty(moves(false), async (run) => {
        // an address of its own each run: its keys and its ledger, bounded as in this process
        const keys = new SharedKeys(client, `machine:r${++round}:`, { keep: 60_000, maxKeys: 2, maxBytes: 1_000_000, lease: 10_000 }, () => {})
        await keys.start() // a store new to these keys, as an instance marks it when it starts
        await play(keys, new Model(60_000, 2), run, '', () => {})
        await keys.close()
      }), { numRuns: 100, seed: 20261203 })
    })

    it('reads a claim whose lease lapsed (its process gone mid-act) as a bare 500, never free to run again', async () => {
      const warned: string[] = []
      const keys = new SharedKeys(await ready(), 'lapse:', { keep: 60_000, maxKeys: 1, maxBytes: 1_000_000, lease: 60 }, (message) => warned.push(message))
      await keys.start() // a store new to these keys, as an instance marks it when it starts
      const claimed = await keys.claim('k', 'x', 'c')
      assert.equal(claimed.kind, 'claimed')
      await keys.close() // its renewals stop, as when its process dies
      assert.equal((await keys.claim('k', 'x', 'c')).kind, 'running')
      await new Promise((resolve) => setTimeout(resolve, 120))
      assert.deepEqual(await keys.claim('k', 'x', 'c'), { kind: 'done', kept: { status: 500, headers: {}, body: '' } })
      assert.equal((await keys.claim('k', 'y', 'c')).kind, 'mismatch')
      // its process, were it only slow, answers too late: the answer is not taken, and it says so
      if (claimed.kind === 'claimed') claimed.ticket.done({ status: 200, headers: {}, body: '1' })
      await until(() => warned.length === 1, 'a warning')
      assert.match(warned[0]!, /lease lapsed/)
      assert.deepEqual(await keys.claim('k', 'x', 'c'), { kind: 'done', kept: { status: 500, headers: {}, body: '' } })
    })

    it('renews a running act\'s lease, so a long act keeps its key', async () => {
      const keys = new SharedKeys(await ready(), 'renew:', { keep: 60_000, maxKeys: 1, maxBytes: 1_000_000, lease: 60 }, () => {})
      await keys.start() // a store new to these keys, as an instance marks it when it starts
      const claimed = await keys.claim('k', 'x', 'c')
      await new Promise((resolve) => setTimeout(resolve, 250))
      assert.equal((await keys.claim('k', 'x', 'c')).kind, 'running')
      if (claimed.kind === 'claimed') claimed.ticket.done({ status: 200, headers: {}, body: '1' })
      assert.deepEqual(await keys.claim('k', 'x', 'c'), { kind: 'done', kept: { status: 200, headers: {}, body: '1' } })
      await keys.close()
    })

    it('amends a kept answer (a job\'s handle, once the job ended), in this process and in Redis alike; a running claim is not amended', async () => {
      const all: Keys[] = [new LocalKeys({ keep: 60_000, maxKeys: 10, maxBytes: 1_000_000, lease: 10_000 }), new SharedKeys(await ready(), 'amend:', { keep: 60_000, maxKeys: 1, maxBytes: 1_000_000, lease: 10_000 }, () => {})]
      for (const keys of all) {
        await keys.start?.()
        const claimed = await keys.claim('k', 'x', 'c')
        assert.equal(claimed.kind, 'claimed')
        if (claimed.kind !== 'claimed') continue
        claimed.ticket.amend({ status: 200, headers: {}, body: 'early' })
        assert.equal((await keys.claim('k', 'x', 'c')).kind, 'running', 'nothing kept before the answer')
        claimed.ticket.done({ status: 200, headers: { link: '</j>; rel="monitor"' }, body: 'handle' })
        claimed.ticket.amend({ status: 200, headers: {}, body: 'result' })
        await new Promise((resolve) => setTimeout(resolve, 30)) // the shared keys' scripts are sent, not awaited
        assert.deepEqual(await keys.claim('k', 'x', 'c'), { kind: 'done', kept: { status: 200, headers: {}, body: 'result' } })
        assert.deepEqual(await keys.kept('k', 'x'), { status: 200, headers: {}, body: 'result' })
        await keys.close()
      }
    })

    it('answers `away` while Redis is, and reads a stored answer it did not write as a bare 500', async () => {
      const client = await ready()
      const keys = new SharedKeys(client, 'odd:', { keep: 60_000, maxKeys: 1, maxBytes: 1_000_000, lease: 10_000 }, () => {})
      await keys.start() // a store new to these keys, as an instance marks it when it starts
      for (const odd of ['not json', '{"status":"200","headers":{},"body":""}', '{"status":200,"headers":[],"body":""}', '{"status":200,"headers":{"a":1},"body":""}']) {
        await client.hset('odd:k', 'fingerprint', 'x', 'answer', odd)
        assert.deepEqual(await keys.claim('k', 'x', 'c'), { kind: 'done', kept: { status: 500, headers: {}, body: '' } }, odd)
      }
      const down = new SharedKeys(redis.client({ port: 1 }), 'odd:', { keep: 60_000, maxKeys: 1, maxBytes: 1_000_000, lease: 10_000 }, () => {})
      assert.deepEqual(await down.claim('k', 'x', 'c'), { kind: 'away', retryAfter: 1 })
      // Redis gone between the claim and the answer: the answer is not stored, and that is said
      // once, however often it is sent again (every third of the lease)
      const warned: string[] = []
      const lost = await ready()
      const leaving = new SharedKeys(lost, 'gone:', { keep: 60_000, maxKeys: 1, maxBytes: 1_000_000, lease: 90 }, (message) => warned.push(message))
      await leaving.start() // a store new to these keys, as an instance marks it when it starts
      const claimed = await leaving.claim('k', 'x', 'c')
      lost.disconnect()
      if (claimed.kind === 'claimed') claimed.ticket.done({ status: 200, headers: {}, body: '1' })
      await until(() => warned.length === 1, 'a warning')
      await new Promise((resolve) => setTimeout(resolve, 150))
      assert.equal(warned.length, 1)
      assert.match(warned[0]!, /not stored/)
      await leaving.close()
    })
  })
})
