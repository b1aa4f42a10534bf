import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import fc from 'fast-check'
import Fastify, { type FastifyInstance } from 'fastify'
import type { Redis, RedisOptions } from 'ioredis'
import gpt, { type SharedGptAddress } from '../../src/index.ts'
import { DEFAULT_LIMITS, storedBytes } from '../../src/limits.ts'
import { MAX_VERSION } from '../../src/store/editions.ts'

// The most an instance with the default limits reads of a stored edition.
const MOST = storedBytes(DEFAULT_LIMITS)
import { registrationError } from '../helpers/host.ts'
import { freePort } from '../helpers/port.ts'
import { redisServer, until, type RedisServer } from '../helpers/redis.ts'

// Several instances of one address in this process, each with its own Redis client: what a
// host sees of sharing, short of separate processes (test/address/editions.test.ts has those).
describe('shared editions, instances in one process', () => {
  let server: RedisServer
  const apps: FastifyInstance[] = []

  before(async () => { server = await redisServer() })
  after(async () => {
    for (const app of apps) await app.close()
    await server.stop()
  })

  const client = (options: RedisOptions = {}): Redis => server.client(options)

  async function instance (key: string, options: Record<string, unknown> = {}, logged: string[] = [], level = 'error'): Promise<{ app: FastifyInstance, address: SharedGptAddress }> {
    let handle: SharedGptAddress | undefined
    const app = Fastify({ logger: { level, stream: { write: (line: string) => { logged.push(line) } } } })
    apps.push(app)
    await app.register(gpt, {
      form: { type: 'integer' },
      act: (n) => n,
      rateLimit: false,
      share: { redis: client(), key },
      onAddress: (address) => { handle = address },
      ...options
    })
    await app.ready()
    return { app, address: handle! }
  }

  it('function updates from two instances, interleaved, all land once on both', async () => {
    const [a, b] = [await instance('interleaved'), await instance('interleaved')]
    const sent = Array.from({ length: 120 }, (_, i) => `m${i}`)
    await Promise.all(sent.map((content, i) => [a, b][i % 2]!.address.update((current) => ({
      messages: [...current.messages, { role: 'user', content }]
    }))))
    await until(() => a.address.etag === b.address.etag && a.address.messages.length === sent.length, 'both instances hold every message')
    assert.deepEqual([...a.address.messages.map((m) => m.content)].sort(), [...sent].sort())
    assert.equal((await a.app.inject('/')).body, (await b.app.inject('/')).body)
  })

  it('a plain change applies to the latest edition: what it leaves out stays as stored', async () => {
    const [a, b] = [await instance('plain'), await instance('plain')]
    await a.address.update({ messages: [{ role: 'user', content: 'kept' }] })
    await b.address.update({ prompt: 'changed' }) // b may not have seen a's edition yet: the conflict brings it
    await until(() => a.address.prompt === 'changed', 'the prompt reaches a')
    assert.deepEqual(a.address.messages, [{ role: 'user', content: 'kept' }])
    assert.deepEqual(b.address.messages, [{ role: 'user', content: 'kept' }])
  })

  it('update() returns a promise that rejects by name, changing nothing, for a bad change', async () => {
    const { app, address } = await instance('bad', { prefix: '/shared' })
    const before = { etag: address.etag, body: (await app.inject('/shared')).body }
    for (const [change, code] of [[5, 'GPT_ERR_OPTION_INVALID'], [{ nope: 1 }, 'GPT_ERR_OPTION_UNKNOWN'], [{ form: { type: 'text' } }, 'GPT_ERR_FORM_INVALID'], [() => null, 'GPT_ERR_OPTION_INVALID']] as const) {
      const pending = address.update(change as never)
      assert.ok(pending instanceof Promise, 'no synchronous throw with sharing on')
      await assert.rejects(pending, (error: Error & { code?: string }) => {
        assert.equal(error.code, code)
        assert.match(error.message, /address \/shared:/)
        return true
      })
    }
    const thrown = new Error('from the function')
    await assert.rejects(address.update(() => { throw thrown }), thrown)
    assert.deepEqual({ etag: address.etag, body: (await app.inject('/shared')).body }, before)
    await address.update({ prompt: 'still works' })
    assert.equal(address.prompt, 'still works')
  })

  it('a stored edition an instance cannot build is logged once and left; the next update builds on the last edition served and stores above it', async () => {
    const logged: string[] = []
    const { address } = await instance('unbuildable', {}, logged)
    const other = await instance('unbuildable')
    const before = address.etag
    const raw = client({ enableOfflineQueue: true })
    for (const [version, content] of [[50, '{"prompt":"","messages":[],"form":{"type":"text"}}'], [51, 'not json']] as const) {
      await raw.hset('unbuildable', 'version', version, 'content', content)
      await raw.publish('unbuildable', String(version))
      await until(() => logged.length === version - 49, `edition ${version} logged`)
      await raw.publish('unbuildable', String(version)) // announced again: not logged again
    }
    assert.match(logged[0]!, /GPT_ERR_FORM_INVALID/)
    assert.match(logged[1]!, /GPT_ERR_FORM_NOT_JSON/)
    assert.equal(address.etag, before)
    assert.equal(other.address.etag, before)
    await address.update({ prompt: 'after the refusals' })
    assert.equal(address.prompt, 'after the refusals')
    assert.equal(await raw.hget('unbuildable', 'version'), '52')
    await until(() => other.address.prompt === 'after the refusals', 'the update reaches the other instance')
    // A good edition stored later is taken by both.
    await raw.hset('unbuildable', 'version', 60, 'content', '{"prompt":"good","messages":[],"form":{"type":"integer"}}')
    await raw.publish('unbuildable', '60')
    await until(() => address.prompt === 'good' && other.address.prompt === 'good', 'the good edition everywhere')
    assert.equal(logged.length, 2)
  })

  describe('editions that stop being true: repaired with the edition served', () => {
    const appendAll = async (address: SharedGptAddress, notes: string[]): Promise<void> => {
      await Promise.all(notes.map((content) => address.update((current) => ({ messages: [...current.messages, { role: 'user', content }] }))))
    }
    const contents = (address: SharedGptAddress): string[] => address.messages.map((m) => m.content)

    it('a key flushed, deleted or evicted: the next update stores on the edition served, never "update() takes an object"', async () => {
      const logged: string[] = []
      const a = await instance('flushed', {}, logged)
      const b = await instance('flushed')
      const raw = client({ enableOfflineQueue: true })
      await appendAll(a.address, ['one', 'two'])
      await until(() => b.address.etag === a.address.etag, 'b has both')
      for (const wipe of [() => raw.flushall(), () => raw.del('flushed')]) {
        await wipe()
        const note = `after ${logged.length}`
        await b.address.update((current) => ({ messages: [...current.messages, { role: 'user', content: note }] }))
        assert.ok(contents(b.address).includes(note), 'served where it was made')
        await until(() => a.address.etag === b.address.etag, 'the other instance takes it')
        assert.deepEqual(contents(a.address).slice(0, 2), ['one', 'two'])
        const stored = JSON.parse((await raw.hget('flushed', 'content'))!) as { messages: { content: string }[] }
        assert.deepEqual(stored.messages.map((m) => m.content), contents(b.address))
      }
    })

    it('a key flushed with no update to follow: a notification of anything lower makes the instances put it back', async () => {
      const logged: string[] = []
      const a = await instance('put-back', {}, logged, 'warn')
      await a.address.update({ prompt: 'kept' })
      const raw = client({ enableOfflineQueue: true })
      const version = Number(await raw.hget('put-back', 'version'))
      await raw.del('put-back')
      await raw.publish('put-back', '0')
      await until(async () => (await raw.hget('put-back', 'version')) === String(version), 'the edition served put back')
      assert.equal(JSON.parse((await raw.hget('put-back', 'content'))!).prompt, 'kept')
      await until(() => logged.some((line) => /was missing \(deleted, flushed or evicted\)/.test(line)), 'the repair logged')
    })

    it('a key lost just after a conflict showed a newer edition: the one put back is that newer edition, not the one served', async () => {
      // a never hears b's notifications, so its update meets b's edition by a conflict; the key is
      // deleted at that moment, before a stores again.
      const member = (target: object, name: string | symbol): unknown => {
        const value = Reflect.get(target, name, target) as unknown
        return typeof value === 'function' ? value.bind(target) : value
      }
      const subscriber = client()
      const deafSubscriber = new Proxy(subscriber, {
        get: (target, name) => name === 'on'
          ? (event: string, listener: () => void) => event === 'message' ? target : target.on(event, listener)
          : member(target, name)
      })
      let lost = false
      const deaf = new Proxy(client(), {
        get: (target, name) => {
          if (name === 'duplicate') return () => deafSubscriber
          if (name !== 'eval') return member(target, name)
          return async (...args: Parameters<Redis['eval']>) => {
            const reply = await target.eval(...args) as unknown[]
            if (!lost && reply[0] === 0) {
              lost = true
              await target.del('base-lost')
            }
            return reply
          }
        }
      })
      const a = await instance('base-lost', { share: { redis: deaf, key: 'base-lost' } })
      const b = await instance('base-lost')
      await appendAll(b.address, ['from b'])
      assert.deepEqual(contents(a.address), [], 'a has not heard of it')
      await appendAll(a.address, ['from a'])
      assert.ok(lost, 'the key was lost after a conflict')
      await until(() => a.address.etag === b.address.etag, 'one edition on both')
      assert.deepEqual(contents(a.address), ['from b', 'from a'])
    })

    it('a lower version written back (a restored backup): no update reported stored is lost, and every instance serves them all', async () => {
      const a = await instance('restored')
      const b = await instance('restored')
      const raw = client({ enableOfflineQueue: true })
      await appendAll(a.address, ['pre0', 'pre1', 'pre2', 'pre3', 'pre4'])
      const backup = await raw.hgetall('restored')
      await appendAll(b.address, ['more0', 'more1', 'more2', 'more3', 'more4'])
      await until(() => a.address.etag === b.address.etag, 'both have seen the newest version')
      await raw.hset('restored', backup) // written back, unannounced, as a restore does
      await appendAll(a.address, ['after0'])
      await appendAll(b.address, ['after1'])
      await until(() => a.address.etag === b.address.etag, 'one edition on both')
      const all = contents(a.address)
      for (const note of ['pre0', 'pre1', 'pre2', 'pre3', 'pre4', 'more0', 'more1', 'more2', 'more3', 'more4', 'after0', 'after1']) {
        assert.equal(all.filter((n) => n === note).length, 1, note)
      }
      assert.ok(Number(await raw.hget('restored', 'version')) > Number(backup['version']))
    })

    it('fast-check: appends on two instances mixed with flushes, deletes, restored backups and absurd versions lose nothing reported stored', async () => {
      const step = fc.oneof(
        fc.record({ kind: fc.constant('append' as const), on: fc.array(fc.integer({ min: 0, max: 1 }), { minLength: 1, maxLength: 6 }) }),
        fc.record({ kind: fc.constantFrom('flushall' as const, 'del' as const, 'restore' as const, 'absurd' as const) })
      )
      let run = 0
      await fc.assert(fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 8 }), async (steps) => {
        const key = `property-${run++}`
        const pair = [await instance(key), await instance(key)]
        const raw = client({ enableOfflineQueue: true })
        const stored: string[] = []
        let snapshot: Record<string, string> | undefined
        let n = 0
        for (const { kind, on } of steps as { kind: string, on?: number[] }[]) {
          // Disruptions come once both instances have read the newest version, as the repairs assume.
          await until(() => pair[0]!.address.etag === pair[1]!.address.etag, 'the pair agrees')
          if (kind === 'append') {
            await Promise.all(on!.map(async (i) => {
              const note = `n${n++}`
              await pair[i]!.address.update((current) => ({ messages: [...current.messages, { role: 'user', content: note }] }))
              stored.push(note)
            }))
            snapshot ??= await raw.hgetall(key) // the backup a later restore writes back: the first state with notes
          } else if (kind === 'flushall') await raw.flushall()
          else if (kind === 'del') await raw.del(key)
          else if (kind === 'restore' && snapshot !== undefined && Object.keys(snapshot).length > 0) await raw.hset(key, snapshot)
          else if (kind === 'absurd') await raw.hset(key, 'version', '9007199254740993')
        }
        await pair[0]!.address.update({ prompt: 'last' }) // meets whatever the last step left stored
        await until(() => pair.every(({ address }) => address.prompt === 'last' && address.etag === pair[0]!.address.etag), 'the pair agrees at the end')
        const held = contents(pair[0]!.address)
        for (const note of stored) assert.equal(held.filter((c) => c === note).length, 1, note)
      }), { numRuns: 20 })
    })

    for (const [what, version] of [['2^53', String(2 ** 53)], ['not an integer', '7.5'], ['negative', '-3'], ['not a number', 'seven']] as const) {
      it(`a version ${what} written in place: repaired (logged: what was stored, what was put back), and updates go on`, async () => {
        const key = `absurd-${what}`
        const logged: string[] = []
        const a = await instance(key, {}, logged, 'warn')
        const b = await instance(key, {}, logged, 'warn') // whichever repairs first logs it
        await a.address.update({ prompt: 'before' })
        const raw = client({ enableOfflineQueue: true })
        await raw.hset(key, 'version', version)
        await raw.publish(key, version)
        await until(() => logged.some((line) => line.includes('which no instance writes')), 'the repair logged')
        await b.address.update({ prompt: 'after' })
        await until(() => a.address.prompt === 'after', 'the update reaches a')
        const stored = await raw.hget(key, 'version')
        assert.match(stored!, /^[1-9][0-9]*$/)
        assert.ok(Number(stored) < 1000)
      })
    }

    it('an instance starting on an absurd version refuses to start, by name', async () => {
      const raw = client({ enableOfflineQueue: true })
      await raw.hset('absurd-start', 'version', String(2 ** 53), 'content', '{"prompt":"","messages":[],"form":{}}', 'token', 'x')
      const error = await registrationError({ form: {}, share: { redis: client(), key: 'absurd-start' } }, '/start') as Error & { code?: string }
      assert.equal(error.code, 'GPT_ERR_EDITION_REFUSED')
      assert.match(error.message, /address \/start:.*"9007199254740992".*which no instance writes/)
    })
  })

  describe('stored editions are untrusted', () => {
    it('an edition larger than any within the limits is never sent: refused by name, and the next update stores above it', async () => {
      const logged: string[] = []
      const a = await instance('huge', {}, logged)
      const raw = client({ enableOfflineQueue: true })
      const text = JSON.stringify({ prompt: 'x'.repeat(MOST), messages: [], form: { type: 'integer' } })
      await raw.hset('huge', 'version', 90, 'content', text, 'token', 'huge')
      await raw.publish('huge', '90')
      await until(() => logged.length === 1, 'the refusal logged')
      assert.match(logged[0]!, /"code":"GPT_ERR_EDITION_REFUSED"/)
      assert.match(logged[0]!, new RegExp(`is ${text.length} bytes, above the ${MOST} an instance reads`))
      assert.equal(a.address.prompt, '')
      await a.address.update({ prompt: 'small' })
      assert.equal(await raw.hget('huge', 'version'), '91')
      const error = await registrationError({ form: { type: 'integer' }, share: { redis: client(), key: 'huge' } }, '/late')
      assert.equal(error, undefined, 'a late instance takes the edition stored above it')
    })

    it('an update past the limits fails its own caller only', async () => {
      const { address } = await instance('too-big')
      const results = await Promise.allSettled([
        address.update({ prompt: 'first' }),
        address.update({ messages: [{ role: 'user', content: 'y'.repeat(MOST) }] }),
        address.update((current) => ({ prompt: `${current.prompt} and last` }))
      ])
      assert.deepEqual(results.map((r) => r.status), ['fulfilled', 'rejected', 'fulfilled'])
      assert.match(String((results[1] as PromiseRejectedResult).reason), /GPT_ERR_CONTENT_TOO_LARGE.*limits\.messagesBytes/)
      assert.equal(address.prompt, 'first and last')
      assert.deepEqual(address.messages, [])
    })

    it('changes queued together: one refused by its form fails only its caller; the others are stored in one edition', async () => {
      const { address } = await instance('batch')
      const raw = client({ enableOfflineQueue: true })
      const before = Number(await raw.hget('batch', 'version'))
      const results = await Promise.allSettled([
        address.update({ prompt: 'a' }),
        address.update({ form: { type: 'text' } }),
        address.update((current) => ({ prompt: `${current.prompt}b`, messages: [{ role: 'user', content: 'm' }] })),
        address.update({ form: { type: 'string' } })
      ])
      assert.deepEqual(results.map((r) => r.status), ['fulfilled', 'rejected', 'fulfilled', 'fulfilled'])
      assert.equal((results[1] as PromiseRejectedResult).reason.code, 'GPT_ERR_FORM_INVALID')
      assert.deepEqual({ prompt: address.prompt, form: address.form }, { prompt: 'ab', form: { type: 'string' } })
      assert.ok(Number(await raw.hget('batch', 'version')) <= before + 2, 'stored in at most two compare-and-sets (the first alone, the rest together)')
    })

    it('a stored form that takes longer than JUDGE_TIMEOUT to build is refused by name while the instance keeps answering', async () => {
      // Within the default limits no form takes that long here (the cost of an edition is bounded
      // by them), so this address allows forms of 4 MB: 60,000 members take some seconds to build.
      const logged: string[] = []
      const { app, address } = await instance('costly', { lint: true, limits: { formBytes: 4_000_000 } }, logged)
      const raw = client({ enableOfflineQueue: true })
      const version = Number(await raw.hget('costly', 'version')) + 1
      const properties = Object.fromEntries(Array.from({ length: 60_000 }, (_, i) => [`p${i}`, { type: 'string', maxLength: 3 }]))
      await raw.hset('costly', 'version', version, 'content', JSON.stringify({ prompt: '', messages: [], form: { type: 'object', properties } }))
      await raw.publish('costly', String(version))
      let answered = 0
      for (let i = 0; logged.length === 0 && i < 3000; i++) {
        assert.equal((await app.inject('/')).statusCode, 200)
        answered++
        await sleep(20)
      }
      assert.ok(answered > 1, 'GETs answered while it was judged')
      assert.match(logged[0] ?? 'nothing logged in 60 s', /"code":"GPT_ERR_EDITION_REFUSED"/)
      assert.match(logged[0]!, /building it took more than 2000 ms, so it was stopped/)
      await address.update({ prompt: 'still updates' })
      assert.equal(await raw.hget('costly', 'version'), String(version + 1))
    })
  })

  describe('what cannot be stored fails its callers by name', () => {
    it('changes queued together and refused only together (a new form, then a prompt the html function fails on): each is checked on the last that passed', async () => {
      const html = (view: { prompt: string }): unknown => view.prompt === 'no page' ? 42 : `<p>${view.prompt}</p>`
      const a = await instance('together', { html })
      const first = a.address.update({ prompt: 'first' }) // running: the two below queue behind it, as one batch
      const results = await Promise.allSettled([first, a.address.update({ form: { type: 'string' } }), a.address.update({ prompt: 'no page' })])
      assert.deepEqual(results.map((r) => r.status), ['fulfilled', 'fulfilled', 'rejected'])
      assert.equal((results[2] as PromiseRejectedResult).reason.code, 'GPT_ERR_OPTION_INVALID')
      assert.deepEqual({ prompt: a.address.prompt, form: a.address.form }, { prompt: 'first', form: { type: 'string' } })
      const raw = client({ enableOfflineQueue: true })
      const stored = JSON.parse((await raw.hget('together', 'content'))!)
      assert.deepEqual({ prompt: stored.prompt, form: stored.form }, { prompt: 'first', form: { type: 'string' } }, 'the form stored, the refused prompt never')
    })

    it('an edition stored but refused here (the host\'s html function fails on it): the update fails by name, the last edition stays served, and the next update stores above it', async () => {
      const logged: string[] = []
      const html = (view: { prompt: string }): unknown => view.prompt === 'no page' ? 42 : `<p>${view.prompt}</p>`
      const a = await instance('no-page', { html }, logged)
      await a.address.update({ prompt: 'shown' })
      const raw = client({ enableOfflineQueue: true })
      const version = Number(await raw.hget('no-page', 'version'))
      await assert.rejects(a.address.update({ prompt: 'no page' }), (error: Error & { code?: string }) => {
        assert.equal(error.code, 'GPT_ERR_OPTION_INVALID')
        assert.match(error.message, /"html" returned neither a string nor \{ body, headers \}/)
        return true
      })
      assert.equal(JSON.parse((await raw.hget('no-page', 'content'))!).prompt, 'no page', 'stored: other instances may serve it')
      assert.equal(a.address.prompt, 'shown', 'not served here')
      assert.ok(logged.some((line) => line.includes('the shared edition is refused here')), 'logged once refused')
      await a.address.update({ prompt: 'shown again' })
      assert.equal(a.address.prompt, 'shown again')
      assert.equal(await raw.hget('no-page', 'version'), String(version + 2), 'stored above the refused one')
    })

    // A client whose compare-and-sets (the script that writes: HSET) go through `before` first.
    const meddled = (before: () => Promise<void>): Redis => new Proxy(client(), {
      get: (target, name) => {
        const value = Reflect.get(target, name, target) as unknown
        if (name !== 'eval') return typeof value === 'function' ? value.bind(target) : value
        return async (...args: Parameters<Redis['eval']>) => {
          if (String(args[0]).includes("'HSET'")) await before()
          return await target.eval(...args)
        }
      }
    })

    it('the highest version there is, stored: an update is refused, never stored as a version no instance takes', async () => {
      const a = await instance('highest')
      const raw = client({ enableOfflineQueue: true })
      const content = JSON.stringify({ prompt: 'at the top', messages: [], form: { type: 'integer' } })
      await raw.hset('highest', 'version', String(MAX_VERSION), 'content', content, 'token', 'top')
      await raw.publish('highest', String(MAX_VERSION))
      await until(() => a.address.prompt === 'at the top', 'the edition at the highest version served')
      await assert.rejects(a.address.update({ prompt: 'above it' }), (error: Error & { code?: string }) => {
        assert.equal(error.code, 'GPT_ERR_EDITION_NOT_STORED')
        assert.match(error.message, new RegExp(`version ${MAX_VERSION} is stored, the highest there is`))
        return true
      })
      assert.equal(await raw.hget('highest', 'version'), String(MAX_VERSION))
      assert.equal(a.address.prompt, 'at the top')
    })

    it('a key Redis refuses to compare (another program wrote it as a string): the update fails by name, and the edition served stays', async () => {
      const a = await instance('retyped')
      const raw = client({ enableOfflineQueue: true })
      const served = a.address.etag
      await raw.set('retyped', 'not an edition') // no announcement: the instance learns of it only when it stores
      await assert.rejects(a.address.update({ prompt: 'on a string' }), (error: Error & { code?: string }) => {
        assert.equal(error.code, 'GPT_ERR_EDITION_NOT_STORED')
        assert.match(error.message, /WRONGTYPE/)
        return true
      })
      assert.equal(await raw.get('retyped'), 'not an edition', 'nothing written over it')
      assert.equal(a.address.etag, served)
    })

    it('other instances storing first every time: the update gives up after 64 conflicts, by name, and stores nothing', async () => {
      const raw = client({ enableOfflineQueue: true })
      let conflicts = 0
      // Before each compare-and-set, another writer stores a newer edition of the same form.
      const redis = meddled(async () => {
        const version = Number(await raw.hget('contended', 'version')) + 1
        await raw.hset('contended', 'version', String(version), 'token', `other-${version}`,
          'content', JSON.stringify({ prompt: `other ${version}`, messages: [], form: { type: 'integer' } }))
        conflicts++
      })
      const a = await instance('contended', { share: { redis, key: 'contended' } })
      conflicts = 0
      await assert.rejects(a.address.update({ prompt: 'mine' }), (error: Error & { code?: string }) => {
        assert.equal(error.code, 'GPT_ERR_EDITION_NOT_STORED')
        assert.match(error.message, /other instances stored first 64 times in a row/)
        return true
      })
      assert.equal(conflicts, 64)
      assert.match(JSON.parse((await raw.hget('contended', 'content'))!).prompt, /^other \d+$/, 'what is stored is the others\' edition')
    })

    it('a lost edition that cannot be put back: the update waiting on it fails by name, and the next one puts it back', async () => {
      let failing = false
      let refused = 0
      const redis = meddled(async () => {
        if (!failing) return
        refused++
        throw new Error('the write was refused')
      })
      const logged: string[] = []
      const a = await instance('not-put-back', { share: { redis, key: 'not-put-back' } }, logged, 'warn')
      await a.address.update({ prompt: 'kept' })
      const raw = client({ enableOfflineQueue: true })
      await raw.del('not-put-back')
      failing = true
      await raw.publish('not-put-back', '0') // a reads the key is missing, and tries to put its edition back
      await until(() => refused >= 1, 'the repair tried')
      await assert.rejects(a.address.update({ prompt: 'while it fails' }), (error: Error & { code?: string }) => {
        assert.equal(error.code, 'GPT_ERR_EDITION_NOT_STORED')
        assert.match(error.message, /the write was refused/)
        return true
      })
      assert.equal(await raw.exists('not-put-back'), 0, 'nothing stored')
      assert.equal(a.address.prompt, 'kept', 'the edition served stays')
      failing = false
      await a.address.update({ prompt: 'after' })
      assert.equal(JSON.parse((await raw.hget('not-put-back', 'content'))!).prompt, 'after')
      assert.ok(logged.some((line) => /was missing/.test(line)), 'the repair logged')
    })
  })

  it('a client connecting lazily is connected; addresses at different paths keep different keys', async () => {
    let one: SharedGptAddress | undefined
    let two: SharedGptAddress | undefined
    const app = Fastify()
    apps.push(app)
    const redis = client({ lazyConnect: true })
    await app.register(gpt, { form: {}, act: () => 1, rateLimit: false, share: { redis }, onAddress: (a) => { one = a } })
    await app.register(gpt, { prefix: '/two', form: {}, act: () => 1, rateLimit: false, share: { redis }, onAddress: (a) => { two = a } })
    await app.ready()
    await one!.update({ prompt: 'one' })
    assert.equal(two!.prompt, '')
    assert.deepEqual(await client({ enableOfflineQueue: true }).hget('fastify-gpt:edition:/', 'content'), JSON.stringify({ prompt: 'one', messages: [], form: {} }))
  })

  it('registration fails by name when Redis cannot be reached', async () => {
    const redis = client({ port: await freePort(), retryStrategy: () => null })
    const error = await registrationError({ form: {}, share: { redis } }, '/away') as Error & { code?: string }
    assert.equal(error.code, 'GPT_ERR_EDITION_NOT_STORED')
    assert.match(error.message, /address \/away:.*gave up/)
  })

  it('refuses a share option that is not { redis, key? } by name', async () => {
    const redis = client()
    for (const [share, detail] of [[5, /"share"/], [{ redis: {} }, /"share.redis"/], [{ redis, key: '' }, /"share.key"/], [{ redis, ttl: 1 }, /"ttl"/]] as const) {
      const error = await registrationError({ form: {}, share }, '/opt') as Error & { code?: string }
      assert.equal(error.code, 'GPT_ERR_OPTION_INVALID')
      assert.match(error.message, /address \/opt:/)
      assert.match(error.message, detail)
    }
  })
})
