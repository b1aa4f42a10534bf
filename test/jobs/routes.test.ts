import assert from 'node:assert/strict'
import { request as httpRequest, type IncomingMessage } from 'node:http'
import { Writable } from 'node:stream'
import { describe, it } from 'node:test'
import type { FastifyInstance } from 'fastify'
import { eventually, slowHost } from '../helpers/jobs.ts'

const HREF = /^\/slow\/jobs\/([A-Za-z0-9_-]{22})$/

/** A host at `level` whose every log line is kept, with a job started and still working. */
async function loggedHost (level: string, hook?: (app: FastifyInstance) => void): Promise<{ app: FastifyInstance, lines: string[], href: string, id: string, open: () => void }> {
  const lines: string[] = []
  const stream = new Writable({ write (chunk, _encoding, done) { lines.push(String(chunk)); done() } })
  const { app, stepper } = await slowHost({ heartbeat: 60_000 }, {}, { logger: { level, stream } }, hook)
  const response = await app.inject({ method: 'POST', url: '/slow', payload: '{"steps":1}', headers: { 'content-type': 'application/json', prefer: 'respond-async' } })
  const href = response.json().href as string
  return { app, lines, href, id: HREF.exec(href)![1]!, open: () => { stepper.gates[1]!.open() } }
}

describe('a job address is a capability: nothing under it logs its id', () => {
  // Each is no job address and no stream: the host's 404 would log the URL at info, twice.
  const strays: Array<[string, (href: string) => string]> = [
    ['GET', (href) => `${href}/`],
    ['PROPFIND', (href) => href],
    ['GET', (href) => `${href}/EVENTS`],
    ['GET', (href) => `${href}/events/`],
    ['POST', (href) => `${href}/events`],
    ['GET', (href) => `${href}/anything/else`],
    ['GET', (href) => `${href.slice(0, -1)}/`]
  ]
  for (const level of ['trace', 'info']) {
    it(`a stray request under a job address is the bare 404, logged at no level that holds the id (host at ${level})`, async () => {
      const { app, lines, href, id } = await loggedHost(level)
      for (const [method, url] of strays) {
        const response = await app.inject({ method: method as 'GET', url: url(href) })
        assert.equal(response.statusCode, 404, `${method} ${url(href)}`)
        assert.equal(response.body, '', `${method} ${url(href)}`)
      }
      assert.ok(lines.some((line) => line.includes('incoming request')), 'the host logs its request lines')
      assert.deepEqual(lines.filter((line) => line.includes(id)), [])
      await app.close()
    })
  }

  it('the host\'s own 404 elsewhere is untouched', async () => {
    const { app, lines } = await loggedHost('info')
    const response = await app.inject('/elsewhere')
    assert.equal(response.statusCode, 404)
    assert.match(response.body, /Route GET:\/elsewhere not found/)
    assert.ok(lines.some((line) => line.includes('/elsewhere')))
    await app.close()
  })

  it('a failure in a job route is the bare 500, logged at error without the request (and so without the id)', async () => {
    // A host hook that fails on a job's address: the job route's error reaches the jobs' handler.
    const { app, lines, href, id } = await loggedHost('info', (host) => {
      host.addHook('preHandler', async (request) => { if (request.url.includes('/jobs/')) throw new Error('the host broke') })
    })
    const response = await app.inject(href)
    assert.equal(response.statusCode, 500)
    assert.equal(response.body, '')
    const failed = lines.filter((line) => line.includes('the host broke'))
    assert.equal(failed.length, 1, lines.join(''))
    assert.equal(JSON.parse(failed[0]!).level, 50)
    assert.deepEqual(lines.filter((line) => line.includes(id)), [])
    await app.close()
  })

  it('a host\'s refusal (an auth hook\'s 401) is still the host\'s to answer, and logs no id', async () => {
    const { app, lines, href, id } = await loggedHost('info', (host) => {
      host.addHook('onRequest', async (request) => {
        if (request.url.includes('/jobs/')) throw Object.assign(new Error('who are you?'), { statusCode: 401 })
      })
    })
    const response = await app.inject(href)
    assert.equal(response.statusCode, 401)
    assert.equal(response.json().message, 'who are you?')
    assert.deepEqual(lines.filter((line) => line.includes(id)), [])
    await app.close()
  })
})

describe('the progress stream sends its head at once', () => {
  for (const accept of ['application/x-ndjson', 'text/event-stream']) {
    it(`${accept}: status and header fields before the first event or heartbeat`, async () => {
      const { app, href, open } = await loggedHost('warn')
      const url = await app.listen({ port: 0, host: '127.0.0.1' })
      const response = await new Promise<IncomingMessage>((resolve, reject) => {
        const request = httpRequest(`${url}${href}/events`, { headers: { accept }, signal: AbortSignal.timeout(5000) }, resolve)
        request.on('error', reject).end()
      })
      // The heartbeat is a minute away and no event has come: only the head can have arrived.
      assert.equal(response.statusCode, 200)
      assert.match(String(response.headers['content-type']), accept === 'text/event-stream' ? /^text\/event-stream/ : /^application\/x-ndjson$/)
      let received = ''
      response.setEncoding('utf8').on('data', (chunk: string) => { received += chunk })
      open()
      await eventually(() => received.includes('"status":"completed"'), 'the job completes on the stream')
      await app.close()
    })
  }
})
