import { isDeepStrictEqual } from 'node:util'
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { Redis } from 'ioredis'
import { startFixtureHost, type ChildHost } from '../helpers/child-host.ts'
import { redisServer, until, type RedisServer } from '../helpers/redis.ts'

// Three host processes serving one note board through a real redis-server, as three instances
// behind a load balancer would; a fourth arrives late.
type Instance = ChildHost & { url: string }

const startHost = (redisPort: number, prompt: string): Promise<Instance> =>
  startFixtureHost('editions-host', [String(redisPort), prompt])

interface Seen { body: string, etag: string | null, m: { content: string }[], s: unknown, p: string }
async function arrival ({ url }: Instance): Promise<Seen> {
  const response = await fetch(url, { signal: AbortSignal.timeout(5000) })
  const body = await response.text()
  return { body, etag: response.headers.get('etag'), ...JSON.parse(body) }
}

const pin = async ({ url }: Instance, note: string): Promise<{ status: number, code?: string }> => {
  // Generous: on a loaded machine, hundreds of pins at once queue behind each other.
  const response = await fetch(url, { method: 'POST', body: JSON.stringify({ note }), signal: AbortSignal.timeout(60_000) })
  const answer = response.status === 204 ? {} : await response.json() as { error?: string }
  return { status: response.status, ...(answer.error === undefined ? {} : { code: answer.error }) }
}

/** Every instance serves the same bytes under the same ETag, and `holds` holds of them. */
async function converged (instances: Instance[], holds: (seen: Seen) => boolean, what: string, tries?: number): Promise<Seen> {
  let last: Seen | undefined
  await until(async () => {
    const seen = await Promise.all(instances.map(arrival))
    last = seen[0]
    return seen.every((s) => s.body === seen[0]!.body && s.etag === seen[0]!.etag && holds(s))
  }, what, tries)
  return last!
}

const notes = (seen: Seen): string[] => seen.m.slice(2).map((m) => m.content)
const countOf = (list: string[], note: string): number => list.filter((n) => n === note).length

describe('one address on many instances: editions shared through Redis', () => {
  let redis: RedisServer
  const instances: Instance[] = []

  before(async () => {
    redis = await redisServer()
    // Started together, each with its own prompt: they must agree on one first edition.
    instances.push(...await Promise.all(['start-0', 'start-1', 'start-2'].map((prompt) => startHost(redis.port, prompt))))
  })
  after(async () => {
    await Promise.all(instances.map((instance) => instance.stop()))
    await redis.stop()
  })

  it('instances started together agree on one first edition', async () => {
    const seen = await Promise.all(instances.map(arrival))
    assert.match(seen[0]!.p, /^start-[012]$/)
    for (const s of seen) {
      assert.equal(s.body, seen[0]!.body)
      assert.equal(s.etag, seen[0]!.etag)
    }
  })

  it('3 × 300 concurrent appends, lint on: none refused, each one lands once, everywhere, under one ETag', async () => {
    const sent = Array.from({ length: 900 }, (_, i) => `append ${i}`)
    const answers = await Promise.all(sent.map((note, i) => pin(instances[i % 3]!, note)))
    assert.deepEqual(answers.filter((a) => a.status !== 200), [], 'every pin reported stored')
    const seen = await converged(instances, (s) => notes(s).length >= sent.length, 'all 300 notes everywhere')
    const final = notes(seen)
    assert.equal(final.length, sent.length)
    for (const note of sent) assert.equal(countOf(final, note), 1, note)
  })

  it('an instance started late serves the current edition, not its startup options', async () => {
    const before = await arrival(instances[0]!)
    instances.push(await startHost(redis.port, 'late'))
    const late = await arrival(instances[3]!)
    assert.notEqual(late.p, 'late')
    assert.equal(late.body, before.body)
    assert.equal(late.etag, before.etag)
  })

  it('a form stored on one instance is compiled and enforced by every instance', async () => {
    const form = { type: 'object', properties: { note: { type: 'string', maxLength: 20 } }, required: ['note'], additionalProperties: false }
    const stored = await fetch(`${instances[1]!.url}/_form`, { method: 'POST', body: JSON.stringify(form), headers: { 'content-type': 'application/json' } })
    assert.equal(stored.status, 200)
    const { etag } = await stored.json() as { etag: string }
    await converged(instances, (s) => s.etag === etag, 'the new form everywhere')
    for (const instance of instances) {
      assert.equal((await pin(instance, 'far too long for this form')).status, 204, 'refused by the new form')
    }
    assert.equal((await pin(instances[2]!, 'short')).status, 200)
  })

  it('a refused form is never stored: every instance stays on the previous edition', async () => {
    const before = await converged(instances, () => true, 'one edition')
    for (const form of [{ type: 'text' }, { type: 'string', format: 'hostname' }, { properties: { a: { $ref: '#/nowhere' } } }]) {
      const refused = await fetch(`${instances[0]!.url}/_form`, { method: 'POST', body: JSON.stringify(form), headers: { 'content-type': 'application/json' } })
      assert.equal(refused.status, 409)
      assert.match((await refused.json() as { code: string }).code, /^GPT_ERR_FORM_/)
    }
    // A later update reaches every instance after anything stored before it would have.
    assert.equal((await pin(instances[0]!, 'after the refusals')).status, 200)
    const after = await converged(instances, (s) => notes(s).includes('after the refusals'), 'the later note everywhere')
    assert.deepEqual(after.s, before.s)
    assert.deepEqual(notes(after), [...notes(before), 'after the refusals'])
  })

  it('hostile stored editions (huge numbers, huge text, a million messages): every instance keeps answering; past the limits they are refused and the next pins store above them', async () => {
    const raw = new Redis({ host: '127.0.0.1', port: redis.port })
    const key = 'fastify-gpt:edition:/'
    const form = (await arrival(instances[0]!)).s
    // A valid form within the limits is served, whoever wrote it (docs/deploying.md): huge numbers
    // cost its edition nothing more to build. Past the limits an edition is refused by every instance.
    const huge = { type: 'array', minItems: 1e12 }
    const hostile = {
      'minItems 1e12 (150 bytes)': JSON.stringify({ prompt: '', messages: [], form: huge }),
      'a 50 MB description': JSON.stringify({ prompt: '', messages: [], form: { type: 'string', description: 'x'.repeat(50 * 1024 * 1024) } }),
      'a million messages': JSON.stringify({ prompt: '', messages: Array.from({ length: 1_000_000 }, () => ({ role: 'user', content: '' })), form: {} })
    }
    // GETs to every instance while `wait` runs, each given a generous bound: a frozen instance never answers.
    const probed = async (what: string, wait: () => Promise<void>): Promise<void> => {
      const probe = { on: true, answered: instances.map(() => 0) }
      const probing = Promise.all(instances.map(async (instance, i) => {
        while (probe.on) {
          const response = await fetch(instance.url, { signal: AbortSignal.timeout(10_000) })
          assert.equal(response.status, 200, `${what}: GET answered`)
          await response.arrayBuffer()
          probe.answered[i]!++
          await sleep(50)
        }
      }))
      try {
        await wait()
      } finally {
        probe.on = false
        await probing
      }
      assert.ok(probe.answered.every((n) => n > 0), `${what}: every instance answered GETs meanwhile`)
    }
    try {
      for (const [k, [what, content]] of Object.entries(hostile).entries()) {
        const version = Number(await raw.hget(key, 'version')) + 1
        await raw.hset(key, 'version', version, 'content', content)
        await raw.publish(key, String(version))
        if (k === 0) {
          await probed(what, async () => { await converged(instances, (s) => isDeepStrictEqual(s.s, huge), `${what}: served everywhere`) })
          const restored = await fetch(`${instances[0]!.url}/_form`, { method: 'POST', body: JSON.stringify(form), headers: { 'content-type': 'application/json' } })
          assert.equal(restored.status, 200)
          await converged(instances, (s) => isDeepStrictEqual(s.s, form), `${what}: the board's form back everywhere`)
          continue
        }
        // A pin's compare-and-set meets the hostile edition: it is refused, and the pin stored above it.
        let pinned: Array<{ status: number }> = []
        await probed(what, async () => { pinned = await Promise.all(instances.map((instance, i) => pin(instance, `h${k} on ${i}`))) })
        assert.deepEqual(pinned.map((p) => p.status), instances.map(() => 200), what)
        const seen = await converged(instances, (s) => instances.every((_, i) => notes(s).includes(`h${k} on ${i}`)), `${what}: the pins everywhere`)
        assert.deepEqual(seen.s, form, `${what}: the board's form still served`)
        assert.ok(Number(await raw.hget(key, 'version')) > version)
      }
    } finally {
      raw.disconnect()
    }
  })

  it('while Redis is away: serving and acts go on, updates fail by name; once back, every instance converges and keeps what was stored', async () => {
    const stored = new Set<string>()
    let failed = 0
    const redisState = { stopped: false }
    // Pins run throughout; Redis stops in the middle of them.
    const pinning = (async () => {
      for (let round = 0; !redisState.stopped || round < 3; round++) {
        const batch = instances.map((instance, i) => `round ${round} on ${i}`)
        const answers = await Promise.all(batch.map((note, i) => pin(instances[i]!, note)))
        answers.forEach((answer, i) => {
          if (answer.status === 200) stored.add(batch[i]!)
          else {
            assert.equal(answer.status, 503)
            assert.equal(answer.code, 'GPT_ERR_EDITION_NOT_STORED')
            failed++
          }
        })
        if (redisState.stopped && failed > 0) return
      }
    })()
    await until(() => stored.size >= 6, 'some pins stored before Redis stops')
    const edition = await converged(instances, (s) => notes(s).length > 0, 'one edition before the stop')
    await redis.kill()
    redisState.stopped = true
    await pinning
    assert.ok(failed > 0, 'pins failed while Redis was away')

    for (const instance of instances) {
      const seen = await arrival(instance)
      assert.equal(seen.s !== undefined, true, 'the arrival is served')
      assert.equal((await pin(instance, 'while away')).code, 'GPT_ERR_EDITION_NOT_STORED')
      assert.equal((await fetch(instance.url, { method: 'POST', body: '{"note":1}' })).status, 204, 'bodies are still validated')
    }

    await redis.restart() // empty: it kept nothing on disk
    // Generous: each client reconnects after its own backoff (up to 2 s apart), on a loaded machine.
    const back = await converged(instances, (s) => [...stored].every((note) => notes(s).includes(note)), 'every stored pin everywhere', 1200)
    for (const note of stored) assert.equal(countOf(notes(back), note), 1, note)
    assert.ok(notes(back).length >= notes(edition).length)
    // Each client reconnects on its own schedule: the late instance's may still be on its way.
    let tries = 0
    await until(async () => (await pin(instances[3]!, `back ${++tries}`)).status === 200, 'a pin stored again')
    await converged(instances, (s) => notes(s).includes(`back ${tries}`), 'updates flow again')
  })
})
