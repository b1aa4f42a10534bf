// What the checker makes of an arrival it cannot read whole or cannot reason about
// (src/check/arrival.ts), in-process through fastify-gpt/testing, against hosts that misbehave.
import assert from 'node:assert/strict'
import { once } from 'node:events'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import { after, describe, it } from 'node:test'
import { checkAddress, formatReport, type Report } from '../../src/check/testing.ts'

const servers: Server[] = []
after(() => { for (const server of servers) server.closeAllConnections(); for (const server of servers) server.close() })

async function serve (handler: (request: IncomingMessage, response: ServerResponse) => void): Promise<string> {
  const server = createServer(handler).listen(0, '127.0.0.1')
  servers.push(server)
  await once(server, 'listening')
  return `http://127.0.0.1:${(server.address() as { port: number }).port}/`
}

const arrival = (s: unknown) => (request: IncomingMessage, response: ServerResponse): void => {
  request.resume()
  response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ p: 'hostile', m: [], s }))
}

const result = (report: Report, id: string): { outcome: string, detail: string } => {
  const found = report.results.find((r) => r.id === id)
  assert.ok(found, id)
  return { outcome: found.outcome, detail: found.detail ?? '' }
}

describe('an arrival the checker cannot read whole', () => {
  it('over maxBytes: unread, not wrong; the checks of its body are skipped and the run is unfinished', async () => {
    const report = await checkAddress(await serve(arrival({ type: 'string', description: 'x'.repeat(1000) })), { maxBytes: 200 })
    for (const id of ['3.2-json', '3.2-members', '4-form-valid']) {
      assert.deepEqual(result(report, id), { outcome: 'skip', detail: 'the arrival was not read in full: over the 200 bytes the checker reads' }, id)
    }
    assert.ok(report.unfinished !== undefined, 'unfinished: a bound was reached')
  })

  it('the connection closed in the middle of it: 3.2-json fails, what needs the body is skipped as a knock-on', async () => {
    const report = await checkAddress(await serve((request, response) => {
      request.resume()
      response.writeHead(200, { 'content-type': 'application/json' })
      response.write('{"p":', () => response.destroy())
    }))
    assert.deepEqual(result(report, '3.2-json'), { outcome: 'fail', detail: 'the body did not come in full (the connection closed before the body ended)' })
    assert.deepEqual(result(report, '3.2-members'), { outcome: 'skip', detail: 'the arrival did not come in full (3.2-json)' })
    assert.deepEqual(result(report, '4-form-valid'), { outcome: 'skip', detail: 'the arrival did not come in full (3.2-json)' })
    assert.equal(report.ok, false)
  })

  it('no answer at all within the timeout: 3.1 fails, saying so', async () => {
    const report = await checkAddress(await serve(() => {}), { timeout: 300 })
    assert.deepEqual(result(report, '3.1-bare-get'), { outcome: 'fail', detail: 'a plain GET got no answer: no answer within 300 ms' })
    assert.equal(report.ok, false)
    assert.match(formatReport(report), /\n {8}sent: GET \(no header\)\n {8}got: {2}no answer: no answer within 300 ms\n/, 'the report shows the exchange left unanswered')
  })
})

describe('an arrival too large to reason about', () => {
  it('more than a million JSON values: too large to check, the run unfinished', async () => {
    const report = await checkAddress(await serve(arrival({ enum: new Array(1_000_001).fill(0) })))
    assert.equal(result(report, '3.2-json').outcome, 'skip')
    assert.match(result(report, '3.2-json').detail, /^the arrival holds 10000\d\d JSON values, more than the checker reasons about \(1000000\): too large to check$/)
    assert.ok(report.unfinished !== undefined)
  })

  it('an s of more than 250,000 values: its JSON is judged, s itself is not, the run unfinished', async () => {
    const report = await checkAddress(await serve(arrival({ enum: new Array(250_001).fill(0) })))
    assert.equal(result(report, '3.2-json').outcome, 'pass')
    assert.deepEqual(result(report, '4-form-valid'), { outcome: 'skip', detail: 's is too large to check: more than 250000 values' })
    assert.ok(report.unfinished !== undefined)
  })
})

describe('an arrival whose form the judge cannot take in within its time', () => {
  it('4-form-valid is skipped saying why, never passed or failed, and the run is unfinished', async () => {
    // 200,000 members: handing the form to the judge's thread alone takes longer than 1 ms
    const s = { enum: Array.from({ length: 200_000 }, (_, i) => `v${i}`) }
    const report = await checkAddress(await serve(arrival(s)), { judgeTimeout: 1, acts: 1 })
    const { outcome, detail } = result(report, '4-form-valid')
    assert.equal(outcome, 'skip')
    assert.match(detail, /the independent validator gave no verdict within 1 ms/)
    assert.equal(report.unfinished, detail)
  })
})
