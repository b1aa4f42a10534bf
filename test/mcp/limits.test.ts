// The bridge's own rate limit, and a refused call counted by its address's limit as a post is.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import Fastify from 'fastify'
import gpt from '../../src/index.ts'
import mcp, { DEFAULT_RATE_LIMIT } from '../../src/mcp/index.ts'

const json = { 'content-type': 'application/json' }
const list = { method: 'POST' as const, url: '/mcp', headers: json, payload: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}' }
// A duplicated member: the strict parser refuses the request, which reads loosely as a call.
const duplicated = { method: 'POST' as const, url: '/mcp', headers: json, payload: '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"notes","arguments":{"value":"a","value":"b"}}}' }

describe('rate limits on the bridge', () => {
  it('limits every request to the bridge per client, 600 a minute by default, with Retry-After and no rate-limit headers', async (t) => {
    assert.deepEqual({ ...DEFAULT_RATE_LIMIT }, { max: 600, timeWindow: 60_000 })
    const app = Fastify()
    t.after(() => app.close())
    await app.register(gpt, { prefix: '/notes', form: { type: 'string' }, act: (note) => note, rateLimit: false })
    await app.register(mcp, { rateLimit: { max: 2, timeWindow: 60_000 } })
    const answers = [await app.inject(list), await app.inject(list), await app.inject(list)]
    assert.deepEqual(answers.map((a) => a.statusCode), [200, 200, 429])
    assert.ok(Number(answers[2]?.headers['retry-after']) > 0)
    for (const answer of answers) assert.equal(Object.keys(answer.headers).some((name) => /ratelimit/.test(name)), false)
  })

  it('takes rateLimit: false', async (t) => {
    const app = Fastify()
    t.after(() => app.close())
    await app.register(gpt, { prefix: '/notes', form: { type: 'string' }, act: (note) => note, rateLimit: false })
    await app.register(mcp, { rateLimit: false })
    for (let i = 0; i < 700; i++) assert.equal((await app.inject(list)).statusCode, 200)
  })

  it('counts a call the strict parser refused by its address\'s limit, with the posts', async (t) => {
    const app = Fastify()
    t.after(() => app.close())
    await app.register(gpt, { prefix: '/notes', form: { type: 'string' }, act: (note) => note, rateLimit: { max: 2, timeWindow: 60_000 } })
    await app.register(mcp, { rateLimit: false })
    assert.equal((await app.inject({ method: 'POST', url: '/notes', payload: '"a"' })).statusCode, 200)
    const refused = await app.inject(duplicated)
    assert.equal(refused.statusCode, 200)
    assert.equal(refused.json().result.isError, true)
    const limited = await app.inject(duplicated)
    assert.equal(limited.statusCode, 429)
    assert.ok(Number(limited.headers['retry-after']) > 0)
    assert.equal((await app.inject({ method: 'POST', url: '/notes', payload: '"b"' })).statusCode, 429)
  })
})
