import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { connect } from 'node:net'
import { describe, it } from 'node:test'
import Fastify from 'fastify'
import gpt, { type GptAddress } from '../../src/index.ts'
import { host } from '../helpers/host.ts'

const etagOf = (body: string): string => `"${createHash('sha256').update(body).digest('base64url').slice(0, 32)}"`

describe('Appendix B "Form Change": entity tags', () => {
  it('sends a strong ETag that is the hash of the arrival bytes', async () => {
    const { app } = await host()
    const response = await app.inject({ method: 'GET', url: '/' })
    assert.equal(response.headers.etag, etagOf(response.body))
  })

  it('gives the HTML view its own ETag', async () => {
    const { app } = await host()
    const json = await app.inject({ method: 'GET', url: '/' })
    const html = await app.inject({ method: 'GET', url: '/', headers: { accept: 'text/html' } })
    assert.equal(html.headers.etag, etagOf(html.body))
    assert.notEqual(html.headers.etag, json.headers.etag)
  })

  it('answers If-None-Match with 304 and no body, for GET and HEAD', async () => {
    const { app } = await host()
    const { etag } = (await app.inject({ method: 'GET', url: '/' })).headers
    for (const field of [String(etag), `"other", ${String(etag)}`, `W/${String(etag)}`, '*']) {
      for (const method of ['GET', 'HEAD'] as const) {
        const response = await app.inject({ method, url: '/', headers: { 'if-none-match': field } })
        assert.equal(response.statusCode, 304, `${method} ${field}`)
        assert.equal(response.body, '')
        assert.equal(response.headers.etag, etag)
        assert.equal(response.headers.vary, 'Accept')
      }
    }
    const stale = await app.inject({ method: 'GET', url: '/', headers: { 'if-none-match': '"stale"' } })
    assert.equal(stale.statusCode, 200)
  })
})

describe('Appendix B "Form Change": live updates', () => {
  async function live (options: Record<string, unknown> = {}): Promise<{ app: ReturnType<typeof Fastify>, address: GptAddress }> {
    let handle: GptAddress | undefined
    const app = Fastify()
    await app.register(gpt, {
      prompt: 'v0',
      form: { const: 0 },
      act: (body) => ({ got: body }),
      rateLimit: false,
      onAddress: (address) => { handle = address },
      ...options
    })
    await app.ready()
    assert.ok(handle !== undefined, 'onAddress was called')
    return { app, address: handle }
  }

  it('hands the application a handle with the current content', async () => {
    const { address } = await live({ prefix: '/poll' })
    assert.equal(address.path, '/poll')
    assert.equal(address.prompt, 'v0')
    assert.deepEqual(address.form, { const: 0 })
    assert.deepEqual(address.messages, [])
    assert.match(address.etag, /^"[\w-]{32}"$/)
  })

  it('changes what is published and what is enforced together', async () => {
    const { app, address } = await live()
    const before = await app.inject({ method: 'GET', url: '/' })
    address.update({ form: { const: 1 }, prompt: 'v1' })
    const after = await app.inject({ method: 'GET', url: '/' })
    assert.deepEqual(after.json(), { p: 'v1', m: [], s: { const: 1 } })
    assert.notEqual(after.headers.etag, before.headers.etag)
    assert.equal(after.headers.etag, address.etag)
    assert.equal((await app.inject({ method: 'POST', url: '/', payload: '0' })).statusCode, 204)
    assert.equal((await app.inject({ method: 'POST', url: '/', payload: '1' })).statusCode, 200)
  })

  it('keeps what it leaves out of an update', async () => {
    const { app, address } = await live()
    address.update({ messages: [{ role: 'user', content: 'hi' }] })
    assert.deepEqual((await app.inject({ method: 'GET', url: '/' })).json(), { p: 'v0', m: [{ role: 'user', content: 'hi' }], s: { const: 0 } })
  })

  it('takes a function of the current content, applied at once', async () => {
    const { app, address } = await live({ messages: [{ role: 'user', content: 'a' }] })
    const seen: unknown[] = []
    const result = address.update((current) => {
      seen.push(current)
      return { messages: [...current.messages, { role: 'user', content: 'b' }] }
    })
    assert.equal(result, undefined, 'synchronous without sharing')
    assert.deepEqual(seen, [{ prompt: 'v0', messages: [{ role: 'user', content: 'a' }], form: { const: 0 } }])
    assert.deepEqual((await app.inject({ method: 'GET', url: '/' })).json().m, [{ role: 'user', content: 'a' }, { role: 'user', content: 'b' }])
    assert.throws(() => address.update(() => ({ form: { type: 'text' } })), { code: 'GPT_ERR_FORM_INVALID' })
    assert.equal(address.messages.length, 2)
  })

  it('refuses a bad update with a named error and changes nothing', async () => {
    const { app, address } = await live()
    const before = (await app.inject({ method: 'GET', url: '/' })).body
    assert.throws(() => address.update({ form: { type: 'text' } }), { code: 'GPT_ERR_FORM_INVALID' })
    assert.throws(() => address.update({ prompt: 1 as unknown as string }), { code: 'GPT_ERR_OPTION_INVALID' })
    assert.throws(() => address.update({ from: {} } as never), { code: 'GPT_ERR_OPTION_UNKNOWN' })
    assert.equal((await app.inject({ method: 'GET', url: '/' })).body, before)
    assert.equal((await app.inject({ method: 'POST', url: '/', payload: '0' })).statusCode, 200)
  })

  it('refuses anything but an object of changes, naming the address, and changes nothing', async () => {
    const { app, address } = await live({ prefix: '/poll' })
    const before = { etag: address.etag, prompt: address.prompt, form: address.form, arrival: (await app.inject({ method: 'GET', url: '/poll' })).body }
    for (const change of [null, undefined, 5, 'prompt', ['prompt'], true, () => 5, async () => ({}), Promise.resolve({})]) {
      assert.throws(() => address.update(change as never), (error: Error & { code?: string }) => {
        assert.equal(error.code, 'GPT_ERR_OPTION_INVALID', String(change))
        assert.match(error.message, /address \/poll:/)
        assert.match(error.message, /update\(\) takes an object with form, prompt and\/or messages/)
        return true
      })
    }
    assert.deepEqual({ etag: address.etag, prompt: address.prompt, form: address.form, arrival: (await app.inject({ method: 'GET', url: '/poll' })).body }, before)
    assert.equal((await app.inject({ method: 'POST', url: '/poll', payload: '0' })).statusCode, 200)
  })

  it('never shows a request a mix of old and new, under concurrent updates', async () => {
    const { app, address } = await live({ ifMatch: true })
    const url = await app.listen({ port: 0, host: '127.0.0.1' })
    const running = { stop: false }
    let version = 0
    const swapper = (async () => {
      while (!running.stop) {
        version++
        address.update({ form: { const: version }, prompt: `v${version}` })
        await new Promise((resolve) => setTimeout(resolve, 40))
      }
    })()
    const outcomes = { ok: 0, changed: 0 }
    // At least 40 rounds, and on until the form has changed often and both outcomes have been
    // seen: however fast or slow the machine, never a verdict on how long the rounds took.
    let rounds = 0
    const enough = (): boolean => rounds >= 40 && version > 10 && outcomes.ok > 0 && outcomes.changed > 0
    try {
      for (; !enough() && rounds < 4000; rounds++) {
        await Promise.all(Array.from({ length: 10 }, async () => {
          const arrival = await fetch(url)
          const text = await arrival.text()
          const { p, s } = JSON.parse(text)
          assert.equal(arrival.headers.get('etag'), etagOf(text), 'bytes and tag from one edition')
          assert.equal(p, `v${String(s.const)}`, 'p and s from one edition')
          const act = await fetch(url, { method: 'POST', body: JSON.stringify(s.const), headers: { 'if-match': String(arrival.headers.get('etag')) } })
          // Validated against the edition whose tag matched, or refused before validation: never 204.
          assert.ok(act.status === 200 || act.status === 412, `status ${act.status}`)
          outcomes[act.status === 200 ? 'ok' : 'changed']++
        }))
      }
    } finally {
      running.stop = true
      await swapper
      await app.close()
    }
    assert.ok(version > 10, 'the form changed many times during the run')
    assert.equal(outcomes.ok + outcomes.changed, rounds * 10)
    assert.ok(outcomes.ok > 0 && outcomes.changed > 0, `both outcomes happen: ${JSON.stringify(outcomes)}`)
  })
})

describe('Appendix B "Form Change": If-Match on acts', () => {
  it('refuses with 412, without acting, an act whose arrival is no longer current', async () => {
    let handle: GptAddress | undefined
    const acted: unknown[] = []
    const app = Fastify()
    await app.register(gpt, { form: {}, act: (body) => { acted.push(body); return 1 }, rateLimit: false, ifMatch: true, onAddress: (a) => { handle = a } })
    const first = await app.inject({ method: 'GET', url: '/' })
    const page = await app.inject({ method: 'GET', url: '/', headers: { accept: 'text/html' } })
    const post = (ifMatch?: string): Promise<{ statusCode: number, body: string }> =>
      app.inject({ method: 'POST', url: '/', payload: '1', headers: ifMatch === undefined ? {} : { 'if-match': ifMatch } })
    assert.equal((await post(String(first.headers.etag))).statusCode, 200)
    assert.equal((await post(String(page.headers.etag))).statusCode, 200, 'the page\'s tag names the same edition')
    assert.equal((await post()).statusCode, 200, 'If-Match stays optional')
    assert.equal((await post(`W/${String(first.headers.etag)}`)).statusCode, 412, 'a weak tag never matches strongly')
    handle?.update({ prompt: 'changed' })
    const stale = await post(String(first.headers.etag))
    assert.equal(stale.statusCode, 412)
    assert.equal(stale.body, '')
    assert.equal(acted.length, 3)
  })

  it('is off by default: a stale If-Match is ignored', async () => {
    const { app } = await host({ form: {} })
    assert.equal((await app.inject({ method: 'POST', url: '/', payload: '1', headers: { 'if-match': '"stale"' } })).statusCode, 200)
  })
})

describe('Appendix B "Failure Reporting": explain', () => {
  it('answers a rejected body with 422 problem+json naming the failed constraints', async () => {
    const { app } = await host({ explain: true })
    const invalid = await app.inject({ method: 'POST', url: '/', payload: '{"note":"","stars":9}' })
    assert.equal(invalid.statusCode, 422)
    assert.match(String(invalid.headers['content-type']), /^application\/problem\+json/)
    const problem = invalid.json()
    assert.equal(problem.status, 422)
    const keywords = problem.errors.map((error: { keyword: string }) => error.keyword).sort()
    assert.deepEqual(keywords, ['maximum', 'minLength'], 'every failed constraint, not just the first')
    const duplicate = await app.inject({ method: 'POST', url: '/', payload: '{"note":"a","note":"b"}' })
    assert.equal(duplicate.statusCode, 422)
    assert.match(duplicate.json().detail, /duplicate member "note" in the object at the root/)
  })

  it('lists at most a hundred failed constraints, and says how many it left out', async () => {
    const { app } = await host({ explain: true, form: { type: 'array', items: { type: 'string' } } })
    const problem = (await app.inject({ method: 'POST', url: '/', payload: JSON.stringify(Array(5000).fill(1)) })).json()
    assert.equal(problem.errors.length, 100)
    assert.equal(problem.omitted, 4900)
    assert.match(problem.detail, /and 4992 more$/)
    const few = (await app.inject({ method: 'POST', url: '/', payload: '[1, 2]' })).json()
    assert.equal(few.errors.length, 2)
    assert.equal(few.omitted, undefined)
  })

  it('warns at start when on in production', async () => {
    const lines: string[] = []
    const previous = process.env['NODE_ENV']
    process.env['NODE_ENV'] = 'production'
    try {
      await host({ explain: true }, { logger: { level: 'warn', stream: { write: (line: string) => { lines.push(line) } } } })
    } finally {
      if (previous === undefined) delete process.env['NODE_ENV']
      else process.env['NODE_ENV'] = previous
    }
    assert.ok(lines.some((line) => /explain is on in production/.test(line)))
  })
})

describe('robustness of acts', () => {
  it('actTimeout: a slow act gets 503 and its late result is dropped', async () => {
    let finished = false
    const { app } = await host({
      actTimeout: 30,
      act: async () => { await new Promise((resolve) => setTimeout(resolve, 120)); finished = true; return 'late' }
    })
    const response = await app.inject({ method: 'POST', url: '/', payload: '{"note":"a"}' })
    assert.equal(response.statusCode, 503)
    assert.equal(response.body, '')
    await new Promise((resolve) => setTimeout(resolve, 150))
    assert.equal(finished, true)
    assert.equal((await app.inject({ method: 'GET', url: '/' })).statusCode, 200)
  })

  it('a fast act is unaffected by actTimeout', async () => {
    const { app } = await host({ actTimeout: 1000, act: async () => 'quick' })
    assert.equal((await app.inject({ method: 'POST', url: '/', payload: '{"note":"a"}' })).body, '"quick"')
  })

  it('a client hanging up mid-body or mid-act leaves no unhandled rejection and no leak', async () => {
    const unhandled: unknown[] = []
    const onUnhandled = (reason: unknown): void => { unhandled.push(reason) }
    process.on('unhandledRejection', onUnhandled)
    let acts = 0
    const { app } = await host({
      act: async () => { acts++; await new Promise((resolve) => setTimeout(resolve, 60)); return 'done' }
    })
    const url = new URL(await app.listen({ port: 0, host: '127.0.0.1' }))
    const hangUp = (bytes: string, after: number): Promise<void> => new Promise((resolve) => {
      const socket = connect(Number(url.port), '127.0.0.1', () => {
        socket.write(bytes)
        setTimeout(() => { socket.destroy(); resolve() }, after)
      })
    })
    try {
      const body = '{"note":"a"}'
      for (let i = 0; i < 20; i++) {
        await hangUp(`POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n${body}`, 5) // mid-body
        await hangUp(`POST / HTTP/1.1\r\nHost: x\r\nContent-Length: ${body.length}\r\n\r\n${body}`, 10) // mid-act
      }
      await new Promise((resolve) => setTimeout(resolve, 150))
      assert.deepEqual(unhandled, [])
      assert.equal(acts, 20, 'only the complete bodies acted')
      const check = await fetch(url, { method: 'POST', body })
      assert.equal(check.status, 200)
      const connections = await new Promise<number>((resolve, reject) => app.server.getConnections((error, count) => error ? reject(error) : resolve(count)))
      assert.ok(connections <= 1, `connections left open: ${connections}`)
    } finally {
      process.off('unhandledRejection', onUnhandled)
      await app.close()
    }
  })
})
