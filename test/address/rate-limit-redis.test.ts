import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { startFixtureHost, type ChildHost } from '../helpers/child-host.ts'
import { redisServer, type RedisServer } from '../helpers/redis.ts'

// A real redis-server on a free loopback port, and two host processes sharing it, as two
// instances behind a load balancer would.
const MAX = 6

const startHost = (redisPort: number): Promise<ChildHost & { url: string }> =>
  startFixtureHost('redis-host', [String(redisPort), String(MAX)])

const post = async (url: string): Promise<number> =>
  (await fetch(url, { method: 'POST', body: '1', signal: AbortSignal.timeout(5000) })).status

describe('rate limits shared through Redis by two instances', () => {
  let redis: RedisServer
  const hosts: (ChildHost & { url: string })[] = []

  before(async () => {
    redis = await redisServer()
    hosts.push(await startHost(redis.port), await startHost(redis.port))
  })
  after(async () => {
    await Promise.all(hosts.map((host) => host.stop()))
    await redis.stop()
  })

  it('allow exactly max acts in the window between them, and 429 the rest', async () => {
    const statuses: number[] = []
    for (let i = 0; i < MAX * 2; i++) statuses.push(await post(hosts[i % 2]!.url))
    assert.deepEqual(statuses, [...Array(MAX).fill(200), ...Array(MAX).fill(429)])
  })

  it('keep each address\'s count apart', async () => {
    assert.equal(await post(`${hosts[0]!.url}/other`), 200)
  })

  it('fail open while Redis is down, and limit again once it is back', async () => {
    await redis.kill()
    await sleep(100)
    for (const { url } of hosts) assert.equal(await post(url), 200, 'served without a limit, not an error')
    await redis.restart()
    let status = 0
    for (let i = 0; i < 50 && status !== 429; i++) {
      status = await post(hosts[i % 2]!.url)
      if (status !== 429) await sleep(20)
    }
    assert.equal(status, 429, 'the limit applies again (the new Redis counts afresh)')
  })
})
