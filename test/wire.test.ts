import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { connect } from 'node:net'
import { after, before, describe, it } from 'node:test'
import { promisify } from 'node:util'
import { host } from './helpers/host.ts'
import type { FastifyInstance } from 'fastify'

const run = promisify(execFile)

/**
 * Sends raw bytes (each string is latin1, a byte a character) on one connection and collects what
 * comes back until the server goes quiet for `quiet` ms after its last byte (or sends nothing for
 * `first` ms): a loaded machine may take longer than `quiet` to answer at all.
 */
function exchange (port: number, requests: string[], quiet = 300, first = 5000): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1')
    let received = ''
    let timer: NodeJS.Timeout | undefined
    const settle = (ms: number): void => { clearTimeout(timer); timer = setTimeout(() => { socket.destroy(); resolve(received) }, ms) }
    socket.on('data', (chunk) => { received += chunk.toString('latin1'); settle(quiet) })
    socket.on('error', reject)
    socket.on('close', () => { clearTimeout(timer); resolve(received) })
    socket.on('connect', () => { for (const request of requests) socket.write(request, 'latin1'); settle(first) })
  })
}

const post = (body: string, headers = ''): string =>
  `POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body, 'latin1')}\r\n${headers}\r\n${body}`

/** Status line and header lines of each response on the wire, without the Date. */
const heads = (raw: string): string[] =>
  raw.split(/(?=HTTP\/1\.1 )/).map((response) => response.split('\r\n\r\n')[0] as string)
    .map((head) => head.split('\r\n').filter((line) => !line.startsWith('Date:')).join('\n'))

describe('on a real listening host', () => {
  let app: FastifyInstance
  let url: string
  let port: number

  before(async () => {
    ({ app } = await host({ bodyLimit: 64, prompt: 'Leave a note.' }))
    url = await app.listen({ port: 0, host: '127.0.0.1' })
    port = Number(new URL(url).port)
  })
  after(() => app.close())

  it('§5.3: every cause of rejection puts the same bytes on the wire', async () => {
    const causes = [
      post('{}'),
      post('{"note":"a","note":"b"}'),
      post('{"note":"a"} x'),
      post('{"note":"\xff"}'), // written as latin1: a lone 0xFF byte, invalid UTF-8
      post('x'.repeat(65)),
      post(''),
      'POST / HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: 100000\r\n\r\n' + 'x'.repeat(100000),
      'POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n50\r\n' + 'x'.repeat(80) + '\r\n0\r\n\r\n',
      'POST / HTTP/1.1\r\nHost: x\r\nContent-Type: ;;\r\nContent-Length: 2\r\n\r\n{}'
    ]
    const expected = 'HTTP/1.1 204 No Content\nConnection: keep-alive\nKeep-Alive: timeout=72'
    for (const cause of causes) {
      const raw = await exchange(port, [cause])
      assert.deepEqual(heads(raw), [expected], JSON.stringify(cause.slice(0, 80)))
    }
  })

  it('keeps the connection usable after a rejection', async () => {
    const raw = await exchange(port, [post('{"note":"a","note":"b"}'), post('{"note":"ok"}')])
    const statuses = heads(raw).map((head) => head.split('\n')[0])
    assert.deepEqual(statuses, ['HTTP/1.1 204 No Content', 'HTTP/1.1 200 OK'])
  })

  it('Appendix A: curl -L URL | actor | curl -L URL -d@- acts with no client library', async () => {
    // The actor here is jq composing a value from the arrival, as a model would from p, m and s.
    const script = `x=$(curl -sL ${url}) && jq -c '{note: (.p | split(" ")[0])}' <<<"$x" | curl -sL ${url} -d@-`
    const { stdout } = await run('bash', ['-c', script])
    assert.deepEqual(JSON.parse(stdout), { ok: true })
  })

  it('Appendix A: a body the form refuses comes back empty through the same pipeline', async () => {
    const { stdout } = await run('bash', ['-c', `echo '{"note":42}' | curl -s -o /dev/null -w '%{http_code} %{size_download}' ${url} -d@-`])
    assert.equal(stdout, '204 0')
  })
})
