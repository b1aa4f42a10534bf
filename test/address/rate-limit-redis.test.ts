import assert from 'node:assert/strict'
import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { after, before, describe, it } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { freePort } from '../helpers/port.ts'
import { startRedis, waitForRedis } from '../helpers/redis.ts'

// A real redis-server on a free loopback port, and two host processes sharing it, as two
// instances behind a load balancer would.
const MAX = 6

async function startHost (redisPort: number): Promise<{ child: ChildProcess, url: string }> {
  const child = spawn(process.execPath, ['--import', './test/register.js', 'test/fixtures/redis-host.ts', String(redisPort), String(MAX)], { stdio: ['ignore', 'pipe', 'inherit'] })
  const [line] = await once(child.stdout!, 'data') as [Buffer]
  return { child, url: line.toString().trim() }
}

const post = async (url: string): Promise<number> =>
  (await fetch(url, { method: 'POST', body: '1', signal: AbortSignal.timeout(5000) })).status

describe('rate limits shared through Redis by two instances', () => {
  let redisPort: number
  let redis: ChildProcess
  const hosts: { child: ChildProcess, url: string }[] = []

  before(async () => {
    redisPort = await freePort()
    redis = startRedis(redisPort)
    await waitForRedis(redisPort)
    hosts.push(await startHost(redisPort), await startHost(redisPort))
  })
  after(() => {
    for (const { child } of hosts) child.kill()
    redis.kill()
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
    redis.kill()
    await once(redis, 'exit')
    await sleep(100)
    for (const { url } of hosts) assert.equal(await post(url), 200, 'served without a limit, not an error')
    redis = startRedis(redisPort)
    await waitForRedis(redisPort)
    let status = 0
    for (let i = 0; i < 50 && status !== 429; i++) {
      status = await post(hosts[i % 2]!.url)
      if (status !== 429) await sleep(20)
    }
    assert.equal(status, 429, 'the limit applies again (the new Redis counts afresh)')
  })
})
