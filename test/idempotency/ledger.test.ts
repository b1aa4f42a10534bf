// The ledger of an address's keys in Redis (src/idempotency/ledger.ts): maxKeys, maxBytes and a
// client's quarter of each hold across instances as in one process, and what the ledger counts is
// what the keys hold, as they are claimed, answered, amended, freed, lapse and expire.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import type { Ticket } from '../../src/address/guard.ts'
import type { Claim, IdempotencySettings } from '../../src/idempotency/keys.ts'
import { ledgerKeys, TRIM } from '../../src/idempotency/ledger.ts'
import { SharedKeys } from '../../src/idempotency/shared.ts'
import { redisServer, until, type RedisServer } from '../helpers/redis.ts'

let redis: RedisServer
let admin: ReturnType<RedisServer['client']>
before(async () => { redis = await redisServer(); admin = await redis.ready() })
after(async () => { await redis.stop() })

let addresses = 0
/** Two instances of one new address (one prefix), each with a client of its own. */
async function address (settings: Partial<IdempotencySettings> = {}): Promise<{ prefix: string, a: SharedKeys, b: SharedKeys, close: () => Promise<void> }> {
  const prefix = `ledger${++addresses}:`
  const all = { keep: 60_000, maxKeys: 8, maxBytes: 1_000_000, lease: 10_000, ...settings }
  const instances = await Promise.all([0, 1].map(async () => {
    const keys = new SharedKeys(await redis.ready(), prefix, all, () => {})
    await keys.start()
    return keys
  }))
  const [a, b] = instances as [SharedKeys, SharedKeys]
  return { prefix, a, b, close: async () => { await a.close(); await b.close() } }
}

const ticketOf = (claim: Claim): Ticket => {
  assert.equal(claim.kind, 'claimed', JSON.stringify(claim))
  return (claim as { ticket: Ticket }).ticket
}

/** What the ledger counts for the address and for `client`, and what its keys' hashes hold. */
async function counted (prefix: string, client: string): Promise<{ keys: number, bytes: number, clientKeys: number, clientBytes: number, stored: number }> {
  const [ledger, , total, held, mine] = ledgerKeys(prefix, client)
  const hashes = (await admin.keys(`${prefix}http:*`))
  let stored = 0
  for (const hash of hashes) stored += await admin.hstrlen(hash, 'answer')
  return {
    keys: await admin.zcard(ledger),
    bytes: Number(await admin.get(total) ?? 0),
    clientKeys: await admin.zcard(mine),
    clientBytes: Number(await admin.hget(held, client) ?? 0),
    stored
  }
}

/** An answer whose stored JSON is about `size` bytes. */
const answerOf = (size: number): { status: number, headers: Record<string, string>, body: string } => ({ status: 200, headers: {}, body: 'x'.repeat(size) })

describe('the keys of an address in Redis, bounded across its instances', () => {
  it('past maxKeys across both instances, a new key is full, with Retry-After until the oldest kept answer goes; a kept one still replays', async () => {
    const { a, b, close } = await address({ maxKeys: 4 })
    // four clients, one key each: a quarter of 4 is 1
    for (const [n, keys] of [a, b, a, b].entries()) ticketOf(await keys.claim(`http:k${n}`, 'x', `10.0.0.${n}`)).done(answerOf(10))
    await sleep(30) // the answers are sent, not awaited
    for (const keys of [a, b]) assert.deepEqual(await keys.claim('http:k9', 'x', '10.0.0.9'), { kind: 'full', retryAfter: 60 })
    assert.equal((await b.claim('http:k0', 'x', '10.0.0.9')).kind, 'done')
    await close()
  })

  it('lets one client hold a quarter of the keys, wherever it claims them, and never refuses another client\'s fresh key', async () => {
    const { prefix, a, b, close } = await address({ maxKeys: 8 })
    const first = ticketOf(await a.claim('http:k1', 'x', 'flood'))
    ticketOf(await b.claim('http:k2', 'x', 'flood'))
    const full = await a.claim('http:k3', 'x', 'flood')
    // its oldest is a running act's, which holds its key keep + lease from its claim
    assert.deepEqual(full, { kind: 'full', retryAfter: 70 }, 'a quarter of 8 is 2')
    assert.equal((await b.claim('http:k3', 'x', 'other')).kind, 'claimed')
    first.free()
    await until(async () => (await counted(prefix, 'flood')).clientKeys === 1, 'the freed key leaves the ledger')
    assert.equal((await a.claim('http:k4', 'x', 'flood')).kind, 'claimed', 'a key freed is a place again')
    await close()
  })

  it('counts the bytes of each stored answer, for the address and its client, and refuses past a quarter of maxBytes or maxBytes', async () => {
    const { prefix, a, b, close } = await address({ maxKeys: 100, maxBytes: 4000 })
    ticketOf(await a.claim('http:b1', 'x', 'big')).done(answerOf(1200))
    await until(async () => (await counted(prefix, 'big')).bytes > 0, 'the answer is kept')
    const held = await counted(prefix, 'big')
    assert.ok(held.stored > 1200 && held.stored < 1300, String(held.stored))
    assert.deepEqual(held, { keys: 1, bytes: held.stored, clientKeys: 1, clientBytes: held.stored, stored: held.stored }, 'the ledger counts the stored length')
    assert.deepEqual(await b.claim('http:b2', 'x', 'big'), { kind: 'full', retryAfter: 60 }, 'its quarter of 4,000 bytes held')
    for (const client of ['c1', 'c2']) ticketOf(await b.claim(`http:${client}`, 'x', client)).done(answerOf(1200))
    await until(async () => (await counted(prefix, 'big')).keys === 3, 'the answers are kept')
    // 3,700 bytes held: under maxBytes, a fourth answer takes it past
    ticketOf(await a.claim('http:c3', 'x', 'c3')).done(answerOf(1200))
    await until(async () => (await counted(prefix, 'big')).bytes > 4000, 'the answer is kept')
    assert.equal((await a.claim('http:c4', 'x', 'c4')).kind, 'full', 'maxBytes held in all')
    await close()
  })

  it('counts an amended answer at its new size, under the client that held it', async () => {
    const { prefix, a, close } = await address()
    const ticket = ticketOf(await a.claim('http:job', 'x', 'jobs'))
    ticket.done(answerOf(100))
    ticket.amend(answerOf(2000))
    await until(async () => (await counted(prefix, 'jobs')).stored > 2000, 'the amended answer is stored')
    const held = await counted(prefix, 'jobs')
    assert.deepEqual([held.keys, held.bytes, held.clientKeys, held.clientBytes], [1, held.stored, 1, held.stored])
    await close()
  })

  it('forgets a key once its hash expires, a few a claim: the address\'s and its client\'s counts go with it', async () => {
    const { prefix, a, b, close } = await address({ keep: 1_000, lease: 10_000, maxKeys: 1_000 })
    const many = 3 * TRIM + 5
    for (let i = 0; i < many; i++) ticketOf(await (i % 2 === 0 ? a : b).claim(`http:e${i}`, 'x', 'old')).done(answerOf(50))
    await until(async () => (await counted(prefix, 'old')).keys === many && (await counted(prefix, 'old')).bytes > 0, 'the answers are kept')
    await until(async () => (await admin.keys(`${prefix}http:*`)).length === 0, 'Redis expires the hashes')
    // a claim of another client trims at most TRIM of the address's gone keys
    ticketOf(await a.claim('http:new', 'x', 'new'))
    assert.equal((await counted(prefix, 'old')).keys, many - TRIM + 1)
    // the old client's claim trims TRIM of the address's and TRIM of its own
    ticketOf(await b.claim('http:again', 'x', 'old'))
    const left = await counted(prefix, 'old')
    assert.deepEqual([left.keys, left.clientKeys], [many - 3 * TRIM + 2, many - 3 * TRIM + 1])
    for (let i = 0; i < 3; i++) await a.claim(`http:new${i}`, 'x', 'new')
    const none = await counted(prefix, 'old')
    assert.deepEqual([none.clientKeys, none.clientBytes], [1, 0], 'the old client holds its running key only')
    assert.equal(await admin.exists(ledgerKeys(prefix, 'old')[4]), 1)
    await close()
  })

  it('keeps a lapsed claim in the ledger as its first client\'s, at the size of the lost answer', async () => {
    const { prefix, a, b, close } = await address({ lease: 60 })
    ticketOf(await a.claim('http:gone', 'x', 'first'))
    await a.close() // its process stops renewing
    await sleep(100)
    assert.equal((await b.claim('http:gone', 'x', 'second')).kind, 'done')
    const first = await counted(prefix, 'first')
    assert.deepEqual([first.keys, first.clientKeys, first.bytes, first.clientBytes], [1, 1, first.stored, first.stored])
    assert.ok(first.stored > 0)
    assert.equal((await counted(prefix, 'second')).clientKeys, 0)
    await close()
  })

  it('writes a running act\'s ledger entry back with its claim when Redis lost both (FLUSHALL)', async () => {
    const { prefix, a, b, close } = await address({ lease: 300 })
    const ticket = ticketOf(await a.claim('http:run', 'x', 'runner'))
    await admin.flushall()
    await until(async () => (await counted(prefix, 'runner')).clientKeys === 1, 'the renewal writes it back')
    assert.equal((await b.claim('http:run', 'x', 'other')).kind, 'running')
    ticket.done(answerOf(10))
    await until(async () => (await counted(prefix, 'runner')).bytes > 0, 'the answer is kept')
    const held = await counted(prefix, 'runner')
    assert.deepEqual([held.keys, held.bytes, held.clientBytes], [1, held.stored, held.stored])
    await close()
  })

  it('holds no bytes once it holds no keys, whatever its counts drifted to', async () => {
    const { prefix, a, close } = await address()
    const [, , total, held] = ledgerKeys(prefix, 'c')
    await admin.set(total, 999_999_999) // as an eviction under another policy might leave it
    await admin.hset(held, 'c', 999_999_999)
    const ticket = ticketOf(await a.claim('http:k', 'x', 'c'))
    assert.equal(await admin.get(total), null, 'a claim finds the ledger empty and its counts none')
    await admin.set(total, 999_999_999)
    ticket.free()
    await until(async () => await admin.exists(total, held) === 0, 'the counts go with the last key')
    assert.equal((await a.claim('http:k2', 'x', 'c')).kind, 'claimed')
    await close()
  })
})
