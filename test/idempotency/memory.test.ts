// What an address holds for its kept answers, measured: one client flooding fresh keys gets its
// quarter and then 503s, in this process and in Redis alike, while another client's fresh key
// still runs; and what Redis holds per kept answer (its hash and its ledger entries, by MEMORY
// USAGE) beside what the ledger counts (the stored answers' lengths). docs/idempotency.md reports
// the figures this prints.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import Fastify, { type FastifyInstance, type LightMyRequestResponse } from 'fastify'
import gpt from '../../src/index.ts'
import { ledgerKeys } from '../../src/idempotency/ledger.ts'
import { redisServer, until, type RedisServer } from '../helpers/redis.ts'

const form = { type: 'object', properties: { pad: { type: 'integer', minimum: 0, maximum: 100_000 } }, required: ['pad'], additionalProperties: false } as const
const KEEP = 3_600_000

let redis: RedisServer
let admin: ReturnType<RedisServer['client']>
before(async () => { redis = await redisServer(); admin = await redis.ready() })
after(async () => { await redis.stop() })

/** An address whose act answers `pad` bytes of padding, its keys in this process or under `share.key` in Redis. */
async function padding (shareKey?: string): Promise<{ app: FastifyInstance, runs: () => number }> {
  let runs = 0
  const app = Fastify()
  const client = shareKey === undefined ? undefined : await redis.ready()
  await app.register(gpt, {
    form,
    rateLimit: false,
    idempotency: { keep: KEEP },
    ...(client === undefined ? {} : { share: { redis: client, key: shareKey as string } }),
    act: ({ pad }: { pad: number }) => {
      runs++
      return { pad: 'x'.repeat(pad) }
    }
  })
  await app.ready()
  return { app, runs: () => runs }
}

const post = (app: FastifyInstance, key: string, client: string, pad = 0): Promise<LightMyRequestResponse> =>
  app.inject({ method: 'POST', url: '/', payload: JSON.stringify({ pad }), remoteAddress: client, headers: { 'content-type': 'application/json', 'idempotency-key': `"${key}"` } })

/** 3,000 fresh keys from one client, one at a time: its quarter of maxKeys (10,000) runs, the rest are 503s saying when its oldest goes. */
async function flood (app: FastifyInstance, runs: () => number): Promise<void> {
  const statuses = new Map<number, number>()
  const waits = new Set<string>()
  for (let i = 0; i < 3_000; i++) {
    const answer = await post(app, `flood-${i}`, '10.0.0.1')
    statuses.set(answer.statusCode, (statuses.get(answer.statusCode) ?? 0) + 1)
    if (answer.statusCode === 503) waits.add(String(answer.headers['retry-after']))
  }
  assert.deepEqual([...statuses], [[200, 2_500], [503, 500]])
  assert.equal(runs(), 2_500)
  // Retry-After: its own oldest kept answer goes `keep` (an hour) after it was kept, a moment ago
  assert.ok([...waits].every((wait) => Number(wait) > KEEP / 1000 - 60 && Number(wait) <= KEEP / 1000), [...waits].join())
  assert.equal((await post(app, 'other', '10.0.0.2')).statusCode, 200, 'another client\'s fresh key runs')
  assert.equal((await post(app, 'flood-0', '10.0.0.1')).headers['idempotent-replayed'], 'true', 'and the flood\'s kept answers replay')
}

/** Redis's bytes (MEMORY USAGE, every element) of `keys`. */
async function usage (keys: readonly string[]): Promise<number> {
  let bytes = 0
  for (const key of keys) bytes += Number(await admin.call('MEMORY', 'USAGE', key, 'SAMPLES', '0') ?? 0)
  return bytes
}

describe('one client flooding fresh keys', () => {
  it('in this process: its quarter of maxKeys, then 503; another client\'s fresh key runs', async () => {
    const { app, runs } = await padding()
    await flood(app, runs)
    await app.close()
  })

  it('in Redis: the same across instances, and the ledger counts the stored answers\' lengths', async () => {
    const address = 'flood'
    const [first, second] = [await padding(address), await padding(address)]
    await flood(first.app, () => first.runs() + second.runs())
    assert.equal((await post(second.app, 'flood-x', '10.0.0.1')).statusCode, 503, 'on the other instance too')
    const prefix = `${address}:idempotency:`
    const [ledger, , total, held] = ledgerKeys(prefix, '10.0.0.1')
    const hashes = await admin.keys(`${prefix}http:*`)
    let stored = 0
    for (const hash of hashes) stored += await admin.hstrlen(hash, 'answer')
    assert.deepEqual([hashes.length, await admin.zcard(ledger)], [2_501, 2_501])
    assert.equal(Number(await admin.get(total)), stored)
    assert.equal(Number(await admin.hget(held, '10.0.0.1')), stored - await admin.hstrlen(`${prefix}http:other`, 'answer'))
    await Promise.all([first.app.close(), second.app.close()])
  })
})

describe('what Redis holds per kept answer', () => {
  it('is its stored answer, its hash and its ledger entries: under 1 KiB more than the answer, at every size', async (t) => {
    const figures: string[] = []
    for (const pad of [0, 1_000, 10_000]) {
      const address = `memory-${pad}`
      const { app } = await padding(address)
      const prefix = `${address}:idempotency:`
      const count = 300 // past Redis's 128-entry listpacks: the ledger's sets and hash as a large address holds them
      for (let i = 0; i < count; i++) assert.equal((await post(app, `k${i}`, '10.0.0.1', pad)).statusCode, 200)
      await until(async () => Number(await admin.get(ledgerKeys(prefix, '10.0.0.1')[2])) > 0 && (await admin.zcard(ledgerKeys(prefix, '')[0])) === count, 'every answer is kept')
      const hashes = await admin.keys(`${prefix}http:*`)
      let stored = 0
      for (const hash of hashes) stored += await admin.hstrlen(hash, 'answer')
      const answer = stored / count
      const hash = await usage(hashes) / count
      const ledger = await usage(ledgerKeys(prefix, '10.0.0.1')) / count
      assert.equal(Number(await admin.get(ledgerKeys(prefix, '')[2])), stored, 'the ledger counts what is stored')
      const over = hash + ledger - answer
      figures.push(`a body of ${pad} B: its answer stored ${answer.toFixed(0)} B, its hash ${hash.toFixed(0)} B, its ledger entries ${ledger.toFixed(0)} B; ${over.toFixed(0)} B over the answer`)
      assert.ok(over > 0 && over < 1024, figures.at(-1))
      await app.close()
    }
    for (const figure of figures) t.diagnostic(figure)
  })
})
