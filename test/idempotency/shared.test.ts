// Idempotency-Key across two host processes sharing one real redis-server: whichever instance a
// retry reaches, the act runs once per key and every answer is the kept one or a 409.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { startFixtureHost, type ChildHost } from '../helpers/child-host.ts'
import { redisServer, until, type RedisServer } from '../helpers/redis.ts'

interface Seen { readonly status: number, readonly headers: Headers, readonly body: string }

async function post (url: string, body: string, key?: string, headers: Record<string, string> = {}): Promise<Seen> {
  const response = await fetch(url, { method: 'POST', body, headers: { 'content-type': 'application/json', ...(key === undefined ? {} : { 'idempotency-key': key }), ...headers } })
  return { status: response.status, headers: response.headers, body: await response.text() }
}

describe('Idempotency-Key shared through Redis by two instances', () => {
  let redis: RedisServer
  let hosts: Array<ChildHost & { url: string }>
  let runs: (note: string) => Promise<number>
  before(async () => {
    redis = await redisServer()
    hosts = await Promise.all([0, 1].map(() => startFixtureHost('idempotency-host', [String(redis.port)])))
    const client = redis.client()
    await until(() => client.status === 'ready', 'the test\'s client is ready')
    runs = async (note) => Number(await client.get(`runs:${note}`) ?? 0)
  })
  after(async () => {
    await Promise.all(hosts.map((host) => host.stop()))
    await redis.stop()
  })

  it('runs the act once for 50 concurrent posts of one key spread over both; each answer is the kept 200 or a 409 with Retry-After', async () => {
    const body = '{"note":"fifty"}'
    const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => post(`${hosts[i % 2]!.url}/`, body, '"fifty"')))
    assert.equal(await runs('fifty'), 1)
    const ok = answers.filter((answer) => answer.status === 200)
    const busy = answers.filter((answer) => answer.status === 409)
    assert.equal(ok.length + busy.length, 50, JSON.stringify(answers.map((answer) => answer.status)))
    assert.ok(ok.length >= 1)
    assert.ok(busy.every((answer) => answer.headers.get('retry-after') === '1' && answer.body === ''))
    assert.equal(new Set(ok.map((answer) => answer.body)).size, 1)
    // a later retry, on either instance, gets the same bytes, marked replayed
    for (const host of hosts) {
      const again = await post(`${host.url}/`, body, '"fifty"')
      assert.deepEqual([again.status, again.body, again.headers.get('idempotent-replayed')], [200, ok[0]!.body, 'true'])
    }
    // other bytes under the key: 422, on either
    for (const host of hosts) assert.equal((await post(`${host.url}/`, '{"note":"other"}', '"fifty"')).status, 422)
    assert.equal(await runs('other'), 0)
    assert.equal(await runs('fifty'), 1)
  })

  it('runs every post without a key', async () => {
    await Promise.all(Array.from({ length: 6 }, (_, i) => post(`${hosts[i % 2]!.url}/`, '{"note":"plain"}')))
    assert.equal(await runs('plain'), 6)
  })

  it('forgets the key `keep` ms after its act ended, on every instance', async () => {
    await post(`${hosts[0]!.url}/`, '{"note":"brief"}', 'brief')
    assert.equal((await post(`${hosts[1]!.url}/`, '{"note":"brief"}', 'brief')).headers.get('idempotent-replayed'), 'true')
    await sleep(2_200)
    const fresh = await post(`${hosts[1]!.url}/`, '{"note":"brief"}', 'brief')
    assert.deepEqual([fresh.status, fresh.headers.get('idempotent-replayed'), await runs('brief')], [200, null, 2])
  })

  it('answers a retry of an act that became a job, on the other instance, with the same handle', async () => {
    const first = await post(`${hosts[0]!.url}/slow`, '{"note":"job"}', 'job')
    assert.equal(first.status, 200)
    const handle = JSON.parse(first.body) as { href: string }
    const again = await post(`${hosts[1]!.url}/slow`, '{"note":"job"}', 'job')
    assert.deepEqual([again.body, again.headers.get('link'), again.headers.get('idempotent-replayed')], [first.body, first.headers.get('link'), 'true'])
    assert.equal(await runs('job'), 1)
    // the job it names is readable from the other instance
    assert.equal((await fetch(`${hosts[1]!.url}${handle.href}`)).status, 200)
  })
})
