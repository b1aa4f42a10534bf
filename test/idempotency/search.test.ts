// Two instances of one address sharing a real redis-server, keyed posts and their retries to
// either, while Redis is flushed, restarted empty or frozen (SIGSTOP) for a while, in orders a
// search picks. Whatever the interleaving, docs/idempotency.md promises: a key's act never runs
// twice at once; it runs again only when Redis lost its kept answer after it ended (FLUSHALL, a
// restart without persistence), and not before a lease has passed since; and every request is
// answered within 2 s.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import fc from 'fast-check'
import Fastify, { type FastifyInstance } from 'fastify'
import gpt from '../../src/index.ts'
import { noteForm } from '../helpers/host.ts'
import { redisServer, until, type RedisServer } from '../helpers/redis.ts'

/** A running act's lease (a renewal every third of it), and the grace after Redis lost its keys. */
const LEASE = 1_000
/** The most a request may wait for its answer (docs/idempotency.md: two Redis calls of 900 ms at most). */
const ANSWERED_WITHIN = 2_000
/** How long each key's act takes: one quick, one nearly a renewal long, one past a renewal (every third of the lease). */
const ACT_MS = { a: 30, b: 250, c: 450 } as const
type Key = keyof typeof ACT_MS

type Step =
  | { readonly kind: 'post', readonly on: 0 | 1, readonly key: Key, readonly bytes: 'x' | 'y', readonly retries: number, readonly gap: number }
  | { readonly kind: 'flush' | 'restart', readonly gap: number }
  | { readonly kind: 'freeze', readonly ms: number, readonly gap: number }

// now and then a pause past the grace, so that a key Redis lost may be claimed anew
const gap = fc.oneof({ weight: 5, arbitrary: fc.constantFrom(0, 15, 60, 200) }, { weight: 1, arbitrary: fc.constant(LEASE + 100) })
const steps = fc.array(fc.oneof(
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('post' as const), on: fc.constantFrom(0 as const, 1 as const), key: fc.constantFrom<Key>('a', 'b', 'c'), bytes: fc.constantFrom('x' as const, 'y' as const), retries: fc.nat(2), gap }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constantFrom('flush' as const, 'restart' as const), gap }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('freeze' as const), ms: fc.constantFrom(150, 500, 1_100), gap }) }
), { minLength: 4, maxLength: 10 })

/** An act's run, by the test's clock. */
interface Run { readonly key: Key, readonly start: number, end: number }
/** When Redis lost its keys, at the latest: FLUSHALL answered, or redis-server ended (before it starts again, empty). */
type Loss = number
interface Answer { readonly key: Key, readonly status: number, readonly replayed: boolean, readonly took: number }

let redis: RedisServer
before(async () => { redis = await redisServer() })
after(async () => { await redis.stop() })

/** One instance of the address (`share.key` of the run's own), its act noting each run. */
async function instance (address: string, runs: Run[]): Promise<FastifyInstance> {
  const app = Fastify()
  const client = await redis.ready()
  app.addHook('onClose', async () => { client.disconnect() })
  await app.register(gpt, {
    form: noteForm,
    rateLimit: false,
    idempotency: { keep: 60_000, lease: LEASE },
    share: { redis: client, key: address },
    act: async ({ note }) => {
      const key = note.slice(0, 1) as Key
      const run: Run = { key, start: Date.now(), end: Infinity }
      runs.push(run)
      await sleep(ACT_MS[key])
      run.end = Date.now()
      return { note }
    }
  })
  await app.ready()
  return app
}

/** Redis stopped in its tracks (SIGSTOP) for `ms`, then let go on. */
const freezing = (ms: number) => async (): Promise<void> => {
  redis.freeze()
  await sleep(ms)
  redis.thaw()
}

/** Plays the steps: posts (and their retries on a 409 or 503, after Retry-After) at once, Redis's faults one after another. */
async function play (hosts: readonly FastifyInstance[], run: readonly Step[], prefix: string, losses: Loss[]): Promise<Answer[]> {
  const answers: Answer[] = []
  const pending: Array<Promise<unknown>> = []
  let faults: Promise<unknown> = Promise.resolve()
  const admin = await redis.ready()
  const flush = async (): Promise<void> => {
    // a FLUSHALL while Redis restarts is not sent, and nothing is lost
    if (await admin.flushall().then(() => true, () => false)) losses.push(Date.now())
  }
  const restart = async (): Promise<void> => {
    await redis.kill()
    losses.push(Date.now())
    await redis.restart()
  }
  for (const step of run) {
    await sleep(step.gap)
    if (step.kind === 'post') {
      pending.push((async () => {
        for (let attempt = 0; attempt <= step.retries; attempt++) {
          const started = Date.now()
          const response = await hosts[step.on]!.inject({
            method: 'POST',
            url: '/',
            payload: JSON.stringify({ note: `${step.key}.${step.bytes}` }),
            headers: { 'content-type': 'application/json', 'idempotency-key': `"${prefix}${step.key}"` }
          })
          answers.push({ key: step.key, status: response.statusCode, replayed: response.headers['idempotent-replayed'] === 'true', took: Date.now() - started })
          if (response.statusCode !== 409 && response.statusCode !== 503) break
          await sleep(1_000 * Number(response.headers['retry-after']))
        }
      })())
    } else {
      const fault = step.kind === 'freeze'
        ? freezing(step.ms)
        : step.kind === 'flush' ? flush : restart
      faults = faults.then(fault)
      pending.push(faults)
    }
  }
  await Promise.all(pending)
  admin.disconnect()
  return answers
}

/** What docs/idempotency.md promises of a key's runs, given when Redis may have lost its keys. */
function holds (runs: readonly Run[], losses: readonly Loss[], answers: readonly Answer[]): void {
  for (const key of Object.keys(ACT_MS) as Key[]) {
    const mine = runs.filter((run) => run.key === key).sort((a, b) => a.start - b.start)
    for (let i = 1; i < mine.length; i++) {
      const [first, again] = [mine[i - 1]!, mine[i]!]
      assert.ok(again.start >= first.end, `${key} ran twice at once: ${JSON.stringify(mine)}`)
      // Redis lost the kept answer after the act ended, and the key was claimed anew a lease later
      // (a lease from the first claim to find the loss, a moment after it at the earliest)
      const lost = losses.some((loss) => loss >= first.end && again.start >= loss + LEASE - 20)
      assert.ok(lost, `${key} ran again with no loss of its answer a lease before: ${JSON.stringify({ runs: mine, losses })}`)
    }
    const ran = answers.filter((answer) => answer.key === key && answer.status === 200 && !answer.replayed).length
    assert.equal(ran, mine.length, `${key}: each run answered once as the act's own`)
  }
  for (const answer of answers) {
    assert.ok([200, 409, 422, 500, 503].includes(answer.status), JSON.stringify(answer))
    assert.ok(answer.took < ANSWERED_WITHIN, `answered in ${answer.took} ms: ${JSON.stringify(answer)}`)
  }
}

describe('two instances, retries and Redis\'s faults, interleaved', () => {
  it('never run a key\'s act twice but as docs/idempotency.md says, and answer every request within 2 s', async () => {
    let round = 0
    await fc.assert(fc.asyncProperty(steps, async (run) => {
      const address = `search${++round}`
      const runs: Run[] = []
      const losses: Loss[] = []
      const hosts = [await instance(address, runs), await instance(address, runs)]
      try {
        const answers = await play(hosts, run, `${address}-`, losses)
        // every act has ended and its answer has been sent to Redis
        await until(() => runs.every((each) => each.end !== Infinity), 'every act ends')
        holds(runs, losses, answers)
      } finally {
        await Promise.all(hosts.map((host) => host.close()))
      }
    }), { numRuns: 8, seed: 20261207, endOnFailure: true })
  })
})
