// The checker's client (src/check/client.ts) against a slow host, in-process through
// fastify-gpt/testing: a slow answer is told to `progress`, and the run stops at its time limit.
import assert from 'node:assert/strict'
import { once } from 'node:events'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import { after, describe, it } from 'node:test'
import { checkAddress } from '../../src/check/testing.ts'

const servers: Server[] = []
after(() => { for (const server of servers) server.closeAllConnections(); for (const server of servers) server.close() })

/** An address of form {type: integer} whose answers wait `delay(method)` ms first. */
async function slow (delay: (method: string) => number): Promise<string> {
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    request.resume()
    setTimeout(() => {
      if (request.method === 'GET') response.writeHead(200, { 'content-type': 'application/json' }).end('{"p":"slow","m":[],"s":{"type":"integer"}}')
      else response.writeHead(204).end()
    }, delay(request.method ?? ''))
  }).listen(0, '127.0.0.1')
  servers.push(server)
  await once(server, 'listening')
  return `http://127.0.0.1:${(server.address() as { port: number }).port}/`
}

describe('the checker waits visibly, and within its time', () => {
  it('an answer slower than a second is told to progress, GET by its headers, POST by its size', async () => {
    const first = new Set<string>()
    // The first GET and the first POST each wait well past the second the notice waits for.
    const url = await slow((method) => first.has(method) ? 0 : (first.add(method), 2500))
    const said: string[] = []
    const report = await checkAddress(url, { progress: (message) => said.push(message) })
    assert.equal(report.results.find((r) => r.id === '3.1-bare-get')?.outcome, 'pass')
    assert.ok(said.includes('waiting for the answer to GET (no header)…'), said.join('\n'))
    assert.ok(said.some((message) => /^waiting for the answer to POST of \d+ bytes…$/.test(message)), said.join('\n'))
  })

  it('past timeLimit, the exchanges left are not sent and the run is unfinished, saying why', async () => {
    let requests = 0
    const url = await slow(() => { requests++; return 400 })
    const report = await checkAddress(url, { timeLimit: 1 })
    assert.match(report.unfinished ?? '', /1 s/)
    assert.ok(report.results.some((r) => r.outcome === 'skip'))
    assert.ok(requests < 10, `stopped after ${requests} requests`)
    assert.equal(report.requests, requests)
  })
})
