// What the checker makes of acts answered wrongly (src/check/act.ts, draft §5.3), in-process
// through fastify-gpt/testing, against hosts that take every act and answer it badly.
import assert from 'node:assert/strict'
import { once } from 'node:events'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import { after, describe, it } from 'node:test'
import Fastify from 'fastify'
import gpt, { type GptOptions } from '../../src/index.ts'
import { checkAddress, formatReport } from '../../src/check/testing.ts'

const servers: Server[] = []
after(() => { for (const server of servers) server.closeAllConnections(); for (const server of servers) server.close() })

/** An address of form {type: integer, minimum: 0} whose POSTs `answer` handles. */
async function acting (answer: (response: ServerResponse) => void): Promise<string> {
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    request.resume()
    if (request.method === 'GET') {
      response.writeHead(200, { 'content-type': 'application/json' }).end('{"p":"acts","m":[],"s":{"type":"integer","minimum":0}}')
    } else request.on('end', () => answer(response))
  }).listen(0, '127.0.0.1')
  servers.push(server)
  await once(server, 'listening')
  return `http://127.0.0.1:${(server.address() as { port: number }).port}/`
}

const success = async (url: string): Promise<{ outcome: string | undefined, detail: string | undefined, text: string }> => {
  const report = await checkAddress(url, { acts: 2 })
  const found = report.results.find((r) => r.id === '5.3-success')
  return { outcome: found?.outcome, detail: found?.detail, text: formatReport(report) }
}

describe('§5.3 an act is answered 200 with a whole JSON body', () => {
  it('200 labelled application/json whose body is no JSON: fails', async () => {
    const { outcome, detail } = await success(await acting((response) => response.writeHead(200, { 'content-type': 'application/json' }).end('{"ok": tru')))
    assert.equal(outcome, 'fail')
    assert.equal(detail, 'an act was not answered 200 with a JSON body and Content-Type application/json')
  })

  it('200 whose body never comes whole (the connection dropped): fails, saying no whole JSON body came', async () => {
    const { outcome, detail, text } = await success(await acting((response) => {
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' })
      response.write('{"ok":', () => response.destroy())
    }))
    assert.equal(outcome, 'fail')
    assert.match(detail ?? '', /^an act was answered 200 \(the connection closed before the body ended\): no whole JSON body$/)
    assert.match(text, /\(cut: the connection closed before the body ended\)/, 'the report shows the cut')
  })

  it('acts written by the xgrammar actor, answered 200 with no JSON: fails alike', async () => {
    const url = await acting((response) => response.writeHead(200, { 'content-type': 'text/plain' }).end('done'))
    const report = await checkAddress(url, { acts: 2, actor: 'xgrammar' })
    const found = report.results.find((r) => r.id === '5.3-success')
    assert.deepEqual({ outcome: found?.outcome, detail: found?.detail }, { outcome: 'fail', detail: 'an act was not answered 200 with a JSON body and Content-Type application/json' })
  })

  it('a form the xgrammar actor cannot write for: no act taken, and the report gives the converter\'s own words', async () => {
    const server = createServer((request, response) => {
      request.resume()
      if (request.method === 'GET') response.writeHead(200, { 'content-type': 'application/json' }).end('{"p":"","m":[],"s":{"type":"string","pattern":"^(?=a)b$"}}')
      else response.writeHead(204).end()
    }).listen(0, '127.0.0.1')
    servers.push(server)
    await once(server, 'listening')
    const report = await checkAddress(`http://127.0.0.1:${(server.address() as { port: number }).port}/`, { acts: 1, actor: 'xgrammar' })
    const outcome = (id: string): [unknown, string] => { const r = report.results.find((r) => r.id === id); return [r?.outcome, r?.detail ?? ''] }
    assert.equal(outcome('5.2-decoder')[0], 'skip')
    assert.match(outcome('5.2-decoder')[1], /^xgrammar wrote no body: .*Lookahead/)
    assert.deepEqual(outcome('5.3-success'), ['skip', 'no act was taken'])
  })

  it('a whole JSON body, 200, application/json: passes', async () => {
    const { outcome } = await success(await acting((response) => response.writeHead(200, { 'content-type': 'application/json; charset=utf-8' }).end('{"ok":true}')))
    assert.equal(outcome, 'pass')
  })
})

describe('§5.2 near-misses past what the checker builds', () => {
  it('a bound too large to break within the checker\'s size: that check is skipped at its bound, and the run unfinished', async () => {
    const app = Fastify()
    await app.register(gpt, { form: { type: 'string', maxLength: 200_000 }, act: () => ({ ok: true }), rateLimit: false } as GptOptions)
    after(() => app.close())
    const report = await checkAddress(app)
    const found = report.results.find((r) => /maxLength/.test(r.id))
    assert.equal(found?.outcome, 'skip')
    assert.equal(found?.detail, '"maxLength": 200001 asks for a near-miss larger than the checker builds (100000)')
    assert.match(report.unfinished ?? '', /"maxLength": 200001 asks for a near-miss larger than the checker builds/)
  })
})
