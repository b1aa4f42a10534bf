// The checker as a client of addresses that attack it: plain node:http servers on 127.0.0.1, each
// playing one hostile shape. Every run of `fastify-gpt check` and `fastify-gpt lint <url>` is the
// built CLI in a child process with a small heap, as a user runs it, and must end by itself with a
// verdict: exit 1 (a failure it can name) or 2 (what it could not do, in one line), never a stack
// trace, never killed. The bound on each run is generous: the point is that it ends.
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, before, describe, it } from 'node:test'
import Fastify from 'fastify'
import gpt, { type GptOptions } from '../../src/index.ts'
import { checkAddress } from '../../src/check/testing.ts'

type Handler = (request: IncomingMessage, response: ServerResponse) => void

const servers: Server[] = []

/** A server on 127.0.0.1 answering every request with `handler`; its URL. */
async function hostile (handler: Handler): Promise<string> {
  const server = createServer((request, response) => {
    // the checker may go before the answer ends: nothing to report then
    response.on('error', () => {})
    request.on('error', () => {})
    handler(request, response)
  })
  server.on('clientError', (_, socket) => socket.destroy())
  servers.push(server)
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/`
}

/** An arrival with this s, as JSON; bodies of acts are drained and refused (204) unless `act` answers. */
const arrival = (s: unknown, act?: Handler): Handler => (request, response) => {
  if (request.method === 'POST') {
    if (act !== undefined) return act(request, response)
    request.resume()
    request.on('end', () => response.writeHead(204).end())
    return
  }
  response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ p: 'hostile', m: [], s }))
}

interface Run { readonly code: number | null, readonly signal: string | null, readonly out: string, readonly err: string }

/** RUN_BOUND: generous; a run killed at it fails the test (signal set). */
const RUN_BOUND = 120_000
/** Bounds small enough for the suite, as a user may set them. */
const QUICK = ['--timeout', '2000', '--time-limit', '40', '--judge-timeout', '1500']
/** For a peer that never finishes an answer, where every exchange waits out the whole bound. */
const CUT = ['--timeout', '800', '--time-limit', '40', '--judge-timeout', '1500']

function cli (...args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--max-old-space-size=128', 'bin/fastify-gpt.js', ...args], { stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    let err = ''
    child.stdout.on('data', (chunk: Buffer) => { out += chunk.toString() })
    child.stderr.on('data', (chunk: Buffer) => { err += chunk.toString() })
    const timer = setTimeout(() => child.kill('SIGKILL'), RUN_BOUND)
    child.on('close', (code, signal) => {
      clearTimeout(timer)
      resolve({ code, signal, out, err })
    })
  })
}

/** The run ended by itself with a verdict: the status expected, no stack trace, no fatal error of V8. */
function verdict (run: Run, expected: 1 | 2, what: RegExp): void {
  const shown = `exit ${String(run.code)} ${String(run.signal)}\nstdout: ${run.out.slice(-1500)}\nstderr: ${run.err.slice(-1500)}`
  assert.equal(run.signal, null, shown)
  assert.equal(run.code, expected, shown)
  assert.doesNotMatch(run.err, /\n\s+at |FATAL|heap out of memory|RangeError|TypeError/, shown)
  assert.doesNotMatch(run.out, /\n\s+at \S+ \(/, shown)
  assert.match(run.out + run.err, what, shown)
  if (expected === 2) assert.match(run.err, /^fastify-gpt (check|lint): [^\n]+\n$/m, shown)
}

/** An arrival written by `write`; every act refused with a bare 204, as a conformant address would. */
const arrivalBy = (write: (response: ServerResponse) => void): Handler => (request, response) => {
  if (request.method !== 'POST') return write(response)
  request.resume()
  request.on('end', () => response.writeHead(204).end())
}

/** `{"k":{"k":...}}` nested `depth` deep, built as text (a value that deep cannot be stringified). */
const nested = (keyword: string, depth: number, inner = '{}'): string => `{"${keyword}":`.repeat(depth) + inner + '}'.repeat(depth)
const arrivalText = (sText: string): Handler => (request, response) => {
  if (request.method === 'POST') {
    request.resume()
    request.on('end', () => response.writeHead(204).end())
    return
  }
  response.writeHead(200, { 'content-type': 'application/json' }).end(`{"p":"hostile","m":[],"s":${sText}}`)
}

after(() => {
  for (const server of servers) {
    server.closeAllConnections()
    server.close()
  }
})

describe('hostile forms: the checker reasons about what it can, and names what it cannot', () => {
  for (const keyword of ['not', 'items']) {
    it(`s with "${keyword}" nested 120,000 deep: check and lint <url> say it is too deep (exit 2)`, async () => {
      const url = await hostile(arrivalText(nested(keyword, 120_000)))
      const checked = await cli('check', url, ...QUICK)
      verdict(checked, 2, /s is too deep to check: more than \d+ levels/)
      assert.match(checked.out, /skip {2}MUST {4}4-form-valid/)
      assert.match(checked.out, /pass {2}MUST {4}3\.2-json/, 'the arrival itself is read and judged')
      verdict(await cli('lint', url), 2, /too deep to lint/)
    })
  }

  const bounds: [string, object, RegExp][] = [
    ['"minItems": 1e9', { type: 'array', minItems: 1e9 }, /asks for 1000000000 items, more than the checker builds/],
    ['"minLength": 1e9', { type: 'string', minLength: 1e9 }, /asks for 1000000000 characters, more than the checker builds/],
    ['"maxLength": 1e9', { type: 'string', maxLength: 1e9 }, /"maxLength": 1000000001 asks for a near-miss larger than the checker builds/],
    ['"maxProperties": 100000', { type: 'object', maxProperties: 100000 }, /"maxProperties": 100001 asks for a near-miss larger/],
    ['"minProperties": 1e9', { type: 'object', minProperties: 1e9 }, /asks for 1000000000 members, more than the checker builds/],
    ['items of items, each of 100', nestedItems(8, 100), /building a value of s took more than 10000 steps/]
  ]
  for (const [name, s, what] of bounds) {
    it(`${name}: a bound the checker cannot build is a named skip, not an allocation (exit 2)`, async () => {
      verdict(await cli('check', await hostile(arrival(s)), ...QUICK), 2, what)
    })
  }

  it('a pattern that backtracks (^([a-z]+)+[0-9]$, minLength 30): "no verdict within" the judge\'s time, exit 2', async () => {
    const url = await hostile(arrival({ type: 'string', pattern: '^([a-z]+)+[0-9]$', minLength: 30 }))
    verdict(await cli('check', url, ...QUICK), 2, /the independent validator gave no verdict within 1500 ms/)
  })

  it('unions of $refs that multiply (2^40 paths to one refusal): no verdict in time, exit 2', async () => {
    const $defs: Record<string, object> = { d40: { type: 'string', maxLength: 0 } }
    for (let i = 39; i >= 0; i--) $defs[`d${i}`] = { anyOf: [{ $ref: `#/$defs/d${i + 1}` }, { $ref: `#/$defs/d${i + 1}` }] }
    // a value is built easily ({"b": ...}); the near-miss with an extra member sends the judge down every path
    const s = { $defs, type: 'object', properties: { b: { type: 'string' } }, required: ['b'], additionalProperties: { $ref: '#/$defs/d0' } }
    verdict(await cli('check', await hostile(arrival(s)), ...QUICK), 2, /the independent validator gave no verdict within 1500 ms/)
  })

  it('unions of $refs no value can be built from in bounded steps: said so, exit 2', async () => {
    const $defs: Record<string, object> = { d40: { type: 'string', maxLength: 0 } }
    for (let i = 39; i >= 0; i--) $defs[`d${i}`] = { anyOf: [{ $ref: `#/$defs/d${i + 1}` }, { $ref: `#/$defs/d${i + 1}` }] }
    verdict(await cli('check', await hostile(arrival({ $defs, $ref: '#/$defs/d0' })), ...QUICK), 2, /building a value of s took more than 10000 steps/)
  })

  it('a $ref that recurses into itself without consuming anything: no verdict, exit 2', async () => {
    const url = await hostile(arrival({ $defs: { a: { anyOf: [{ $ref: '#/$defs/a' }, { type: 'null' }] } }, $ref: '#/$defs/a' }))
    verdict(await cli('check', url, ...QUICK), 2, /the independent validator (gave no verdict within|could not judge)/)
  })

  it('an enum of 200,000 members: checked in full, and a refused admitted value fails (exit 1)', async () => {
    const url = await hostile(arrival({ enum: Array.from({ length: 200_000 }, (_, i) => `v${i}`) }))
    verdict(await cli('check', url, ...QUICK, '--acts', '1'), 1, /fail {2}MUST {4}5\.2-admitted/)
  })
})

/** `{type: array, minItems: n, items: ...}` nested `depth` deep: each level multiplies the parts. */
function nestedItems (depth: number, n: number): object {
  let s: object = { type: 'integer' }
  for (let i = 0; i < depth; i++) s = { type: 'array', minItems: n, items: s }
  return s
}

describe('hostile transports: every exchange is bounded in bytes and time', () => {
  it('an arrival that streams forever: read up to the bound, said to be cut (exit 2); lint <url> likewise', async () => {
    const url = await hostile(arrivalBy((response) => {
      response.writeHead(200, { 'content-type': 'application/json' })
      const chunk = Buffer.alloc(64 * 1024, 0x20)
      const more = (): void => { while (response.write(chunk)); response.once('drain', more) }
      response.write('{"p":"')
      more()
    }))
    verdict(await cli('check', url, ...QUICK), 2, /the arrival was not read in full: over the 8388608 bytes the checker reads/)
    verdict(await cli('lint', url, '--timeout', '5000'), 2, /did not come in full \((over the 8388608 bytes the checker reads|not complete within 5000 ms)\)/)
  })

  it('an arrival that announces 500 MB: not read, said so (exit 2)', async () => {
    const url = await hostile(arrivalBy((response) => {
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': '500000000' })
      response.write('{"p":')
    }))
    verdict(await cli('check', url, ...QUICK), 2, /announced 500000000 bytes, over the 8388608 the checker reads/)
  })

  it('an arrival that drips a byte at a time: cut at the time bound, a failed MUST (exit 1)', async () => {
    const url = await hostile((_, response) => {
      response.writeHead(200, { 'content-type': 'application/json' })
      const timer = setInterval(() => response.write(' '), 100)
      response.on('close', () => clearInterval(timer))
    })
    verdict(await cli('check', url, ...CUT), 1, /3\.2-json: .*\n\s+the body did not come in full \(not complete within 800 ms\)/)
  })

  it('every connection reset: a failed MUST, not an unreachable address (exit 1)', async () => {
    const url = await hostile((request) => request.socket.destroy())
    verdict(await cli('check', url, ...QUICK), 1, /fail {2}MUST {4}3\.1-bare-get/)
  })

  it('acts answered 200 and then dropped: not conformant (exit 1)', async () => {
    const url = await hostile(arrival({ type: 'integer' }, (request, response) => {
      request.resume()
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' })
      response.write('{"ok":', () => response.destroy())
    }))
    const run = await cli('check', url, ...QUICK, '--acts', '2')
    verdict(run, 1, /5\.2-empty: [^\n]*\n\s+acted on a body it must refuse: answered 200 \(the connection closed before the body ended\)/)
    assert.match(run.out, /fail {2}MUST {4}5\.3-success/)
    assert.match(run.out, /not conformant\n$/)
  })

  it('an act answered with a body that never ends: bounded, a failed MUST (exit 1)', async () => {
    const url = await hostile(arrival({ type: 'integer', minimum: 0 }, (request, response) => {
      request.resume()
      response.writeHead(200, { 'content-type': 'application/json' })
      const timer = setInterval(() => response.write('['), 100)
      response.on('close', () => clearInterval(timer))
    }))
    verdict(await cli('check', url, ...CUT, '--acts', '1'), 1, /not complete within 800 ms/)
  })

  it('redirects: check follows none (a failed MUST), lint follows none and says so (exit 2)', async () => {
    const elsewhere = await hostile(arrival({ type: 'integer' }))
    const loop = await hostile((_, response) => response.writeHead(302, { location: '/again' }).end())
    const away = await hostile((_, response) => response.writeHead(301, { location: elsewhere }).end())
    verdict(await cli('check', loop, ...QUICK), 1, /a plain GET was answered 302/)
    verdict(await cli('check', away, ...QUICK), 1, /a plain GET was answered 301/)
    verdict(await cli('lint', away), 2, new RegExp(`answered 301 \\(to ${elsewhere.replaceAll('.', '\\.')}\\): lint follows no redirect`))
  })

  it('terminal escapes in member names and bodies never reach the terminal raw', async () => {
    const name = 'a\u001b]0;owned\u0007\u001b[2J\u009b31m'
    const url = await hostile(arrival({ type: 'object', properties: { [name]: { type: 'string' } }, required: [name] }, (request, response) => {
      request.resume()
      response.writeHead(200, { 'content-type': 'text/plain' }).end('\u001b[31mred\u0007')
    }))
    const linted = await cli('lint', url)
    assert.equal(linted.code, 0, linted.err)
    const checked = await cli('check', url, ...QUICK, '--acts', '1')
    for (const run of [linted, checked, await cli('lint', url, '--json'), await cli('check', url, ...QUICK, '--json')]) {
      for (const raw of ['\u0007', '\u001b', '\u009b']) assert.ok(!(run.out + run.err).includes(raw), JSON.stringify(raw))
    }
    assert.match(linted.out, /a\\x1b\]0;owned\\x07/)
    assert.match(checked.out, /\\x1b\[31mred\\x07/)
  })
})

describe('addresses of our own that are large or deep pass', () => {
  let url = ''
  let app: ReturnType<typeof Fastify>
  before(async () => {
    app = Fastify()
    // 30,000 messages: an arrival of about 1.4 MB, which an address allows when its limits say so
    const messages = Array.from({ length: 30_000 }, (_, i) => ({ role: 'user', content: `message number ${i} of many` }))
    await app.register(gpt, { form: { type: 'integer', minimum: 0 }, act: () => ({ ok: true }), prompt: 'many', messages, limits: { messages: 30_000 }, rateLimit: false, lint: false } as unknown as GptOptions)
    url = await app.listen({ port: 0, host: '127.0.0.1' })
  })
  after(() => app.close())

  it('an arrival of 30,000 messages (1.4 MB) is read whole and passes (exit 0)', async () => {
    const size = Number((await fetch(url)).headers.get('content-length'))
    assert.ok(size > 1_300_000, `${size} bytes`)
    const run = await cli('check', url, ...QUICK)
    assert.equal(run.code, 0, run.out + run.err)
    assert.match(run.out, /pass {2}MUST {4}3\.2-json/)
  })

  it('checkAddress takes a form the plugin registers with `not` nested 150 deep', async (t) => {
    let form: object = { type: 'integer' }
    for (let i = 0; i < 150; i++) form = { not: form }
    const deep = Fastify()
    t.after(() => deep.close())
    await deep.register(gpt, { form, act: () => ({ ok: true }), prompt: 'deep', rateLimit: false, lint: false } as unknown as GptOptions)
    const report = await checkAddress(deep, { acts: 2 })
    assert.equal(report.ok, true, JSON.stringify(report.results.filter((r) => r.outcome === 'fail')))
    assert.equal(report.results.find((r) => r.id === '4-form-valid')?.outcome, 'pass')
    assert.equal(report.unfinished, undefined)
  })
})
