import assert from 'node:assert/strict'
import { spawn, type ChildProcess } from 'node:child_process'
import { request } from 'node:http'
import { createInterface } from 'node:readline'
import { after, before, describe, it } from 'node:test'
import { freePort } from './helpers/port.ts'
import { stopChild } from './helpers/child-host.ts'
import { redisServer, until, type RedisServer } from './helpers/redis.ts'

// The example as its README runs it, `WORKERS=2 REDIS_URL=... node example/cluster.js`, on the
// built package (npm test builds first). Each request opens its own connection, and node:cluster
// hands connections to the workers in turn, so consecutive requests reach every worker.
function send (port: number, method: string, body?: string): Promise<{ status: number, etag: string | undefined, body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path: '/', agent: false }, (res) => {
      let text = ''
      res.setEncoding('utf8').on('data', (chunk: string) => { text += chunk }).on('end', () => {
        resolve({ status: res.statusCode!, etag: res.headers.etag, body: text })
      })
    })
    req.on('error', reject)
    req.end(body)
  })
}

describe('example/cluster.js with REDIS_URL: one board across the workers', () => {
  let redis: RedisServer
  let cluster: ChildProcess
  let port: number

  before(async () => {
    redis = await redisServer()
    port = await freePort()
    cluster = spawn(process.execPath, ['example/cluster.js'], {
      env: { ...process.env, WORKERS: '2', PORT: String(port), RATE_MAX: '0', LOG_LEVEL: 'info', REDIS_URL: `redis://127.0.0.1:${redis.port}` },
      stdio: ['ignore', 'pipe', 'inherit']
    })
    // Both workers, not the first to answer: a test that ran on one alone would prove nothing, and a
    // worker still starting when the primary stops cannot reach it to listen.
    let listening = 0
    createInterface({ input: cluster.stdout! }).on('line', (line) => { if (line.includes('Server listening at')) listening++ })
    await until(() => listening === 2, 'both workers listen')
  })
  after(async () => {
    await stopChild(cluster)
    await redis.stop()
  })

  it('every note pinned through any worker is in every worker\'s m, under one ETag', async () => {
    const sent = Array.from({ length: 40 }, (_, i) => `cluster note ${i}`)
    const answers = await Promise.all(sent.map((note) => send(port, 'POST', JSON.stringify({ note }))))
    assert.deepEqual(answers.map((a) => a.status), sent.map(() => 200))
    await until(async () => {
      const seen = await Promise.all(Array.from({ length: 8 }, () => send(port, 'GET')))
      return seen.every((s) => s.etag === seen[0]!.etag && s.body === seen[0]!.body) &&
        sent.every((note) => JSON.parse(seen[0]!.body).m.filter((m: { content: string }) => m.content === note).length === 1)
    }, 'one board with every note, on every worker')
  })
})
