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
// hands connections to the workers in turn, so consecutive requests reach every worker; each
// answer names its worker (WORKER_HEADER=1).
interface Answer { status: number, etag: string | undefined, worker: string | undefined, body: string }

/** An answer as soon as its head has come: its body follows (a stream's, as long as it goes on). */
function open (port: number, method: string, path: string, body?: string, headers: Record<string, string> = {}): Promise<Omit<Answer, 'body'> & { body: Promise<string> }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path, headers, agent: false }, (res) => {
      const text = new Promise<string>((resolve, reject) => {
        let text = ''
        res.setEncoding('utf8').on('data', (chunk: string) => { text += chunk }).on('end', () => { resolve(text) }).on('error', reject)
      })
      resolve({ status: res.statusCode!, etag: res.headers.etag, worker: res.headers['x-worker'] as string | undefined, body: text })
    })
    req.on('error', reject)
    req.end(body)
  })
}

async function send (port: number, method: string, path = '/', body?: string, headers?: Record<string, string>): Promise<Answer> {
  const answer = await open(port, method, path, body, headers)
  return { ...answer, body: await answer.body }
}

describe('example/cluster.js with REDIS_URL: one board and one set of jobs across the workers', () => {
  let redis: RedisServer
  let cluster: ChildProcess
  let port: number

  before(async () => {
    redis = await redisServer()
    port = await freePort()
    cluster = spawn(process.execPath, ['example/cluster.js'], {
      env: {
        ...process.env,
        WORKERS: '2',
        PORT: String(port),
        RATE_MAX: '0',
        LOG_LEVEL: 'info',
        REDIS_URL: `redis://127.0.0.1:${redis.port}`,
        SLOW_STEP_MS: '250',
        WORKER_HEADER: '1'
      },
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
    const answers = await Promise.all(sent.map((note) => send(port, 'POST', '/', JSON.stringify({ note }))))
    assert.deepEqual(answers.map((a) => a.status), sent.map(() => 200))
    await until(async () => {
      const seen = await Promise.all(Array.from({ length: 8 }, () => send(port, 'GET')))
      return seen.every((s) => s.etag === seen[0]!.etag && s.body === seen[0]!.body) &&
        sent.every((note) => JSON.parse(seen[0]!.body).m.filter((m: { content: string }) => m.content === note).length === 1)
    }, 'one board with every note, on every worker')
  })

  it('a job of /slow answers on every worker, whichever ran its act: the walk of the README', async () => {
    const act = await send(port, 'POST', '/slow', JSON.stringify({ words: ['tabs', 'or', 'spaces'] }), { prefer: 'respond-async' })
    assert.equal(act.status, 200)
    assert.ok(act.worker !== undefined, 'each answer names its worker')
    const handle = JSON.parse(act.body)
    assert.equal(handle.status, 'working')
    assert.match(handle.href, /^\/slow\/jobs\/[\w-]{22}$/)
    assert.equal(handle.events, `${handle.href}/events`)

    // One connection after another: the workers take turns, the one running the act among them.
    const looks: Answer[] = []
    for (let i = 0; i < 4; i++) looks.push(await send(port, 'GET', handle.href))
    for (const look of looks) {
      assert.equal(look.status, 200, `GET ${handle.href} on worker ${look.worker}`)
      const arrival = JSON.parse(look.body)
      assert.deepEqual(Object.keys(arrival).slice(0, 3), ['p', 'm', 's'])
      assert.equal(arrival.events, handle.events)
    }
    assert.ok(looks.some((look) => look.worker !== act.worker), 'a worker that does not run the act answered')
    assert.ok(new Set(looks.map((look) => look.worker)).size > 1, 'more than one worker answered')

    // Two streams, the second opened once the first has its head: so one on each worker.
    const first = await open(port, 'GET', handle.events)
    const second = await open(port, 'GET', handle.events)
    assert.notEqual(first.worker, second.worker)
    for (const stream of [first, second]) {
      assert.equal(stream.status, 200)
      const lines = (await stream.body).split('\n').filter((line) => line !== '') // heartbeats are empty lines
      assert.deepEqual(lines.map((line) => JSON.parse(line)), [
        { seq: 1, status: 'working', progress: { done: 1, of: 3, message: '"tabs" has 4 letters' } },
        { seq: 2, status: 'working', progress: { done: 2, of: 3, message: '"or" has 2 letters' } },
        { seq: 3, status: 'working', progress: { done: 3, of: 3, message: '"spaces" has 6 letters' } },
        { seq: 4, status: 'completed', result: { letters: { tabs: 4, or: 2, spaces: 6 }, total: 12 } }
      ], `the stream on worker ${stream.worker}`)
    }

    const forgotten = await send(port, 'POST', handle.href, '{"do":"forget"}')
    assert.deepEqual([forgotten.status, forgotten.body], [200, '{"status":"forgotten"}'])
    const gone = [await send(port, 'GET', handle.href), await send(port, 'GET', handle.href)]
    assert.deepEqual(gone.map((answer) => answer.status), [404, 404])
    assert.ok(gone.some((answer) => answer.worker !== forgotten.worker), 'the other worker forgot it too')
  })
})
