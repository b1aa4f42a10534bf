import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import Fastify from 'fastify'
import gpt from '../../src/index.ts'
import { host, noteForm } from '../helpers/host.ts'

describe('§3.1 arrival request', () => {
  it('returns the form to a GET with no header, query parameter or cookie', async () => {
    const { app } = await host()
    const response = await app.inject({ method: 'GET', url: '/' })
    assert.equal(response.statusCode, 200)
    assert.deepEqual(response.json().s, noteForm)
  })

  it('ignores query parameters and cookies', async () => {
    const { app } = await host()
    const plain = await app.inject({ method: 'GET', url: '/' })
    const decorated = await app.inject({ method: 'GET', url: '/?x=1', headers: { cookie: 'a=b' } })
    assert.equal(decorated.statusCode, 200)
    assert.equal(decorated.body, plain.body)
  })
})

describe('§3.2 arrival response', () => {
  it('is 200 application/json with p, m and s', async () => {
    const messages = [{ role: 'user', content: 'hi' }]
    const { app } = await host({ prompt: 'Leave a note.', messages })
    const response = await app.inject({ method: 'GET', url: '/' })
    assert.equal(response.statusCode, 200)
    assert.equal(response.headers['content-type'], 'application/json; charset=utf-8')
    assert.deepEqual(response.json(), { p: 'Leave a note.', m: messages, s: noteForm })
  })

  it('defaults p to "" and m to []', async () => {
    const { app } = await host()
    const arrival = (await app.inject({ method: 'GET', url: '/' })).json()
    assert.equal(arrival.p, '')
    assert.deepEqual(arrival.m, [])
  })

  it('sends the GPT-Type header only when a type is given', async () => {
    const typed = await host({ type: 'note-board' })
    assert.equal((await typed.app.inject({ method: 'GET', url: '/' })).headers['gpt-type'], 'note-board')
    const plain = await host()
    assert.equal((await plain.app.inject({ method: 'GET', url: '/' })).headers['gpt-type'], undefined)
  })

  it('does not vary with prior contact: the same bytes and headers every time', async () => {
    const { app } = await host({ rateLimit: { max: 1000 } })
    const first = await app.inject({ method: 'GET', url: '/' })
    await app.inject({ method: 'POST', url: '/', payload: '{"note":"x"}' })
    const again = await app.inject({ method: 'GET', url: '/', headers: { cookie: 'seen=1' } })
    assert.equal(again.body, first.body)
    const names = (headers: Record<string, unknown>): string[] => Object.keys(headers).filter((n) => n !== 'date').sort()
    assert.deepEqual(names(again.headers), names(first.headers))
    assert.equal(again.headers['x-ratelimit-remaining'], undefined)
  })

  it('serves precomputed bytes: nothing is serialized per request (§7.4)', async () => {
    const { app } = await host()
    const stringify = JSON.stringify
    let calls = 0
    JSON.stringify = ((...args: Parameters<typeof stringify>) => { calls++; return stringify(...args) }) as typeof stringify
    try {
      for (let i = 0; i < 5; i++) await app.inject({ method: 'GET', url: '/' })
    } finally {
      JSON.stringify = stringify
    }
    assert.equal(calls, 0)
  })

  it('answers HEAD with the headers of GET and no body', async () => {
    const { app } = await host()
    const get = await app.inject({ method: 'GET', url: '/' })
    const head = await app.inject({ method: 'HEAD', url: '/' })
    assert.equal(head.statusCode, 200)
    assert.equal(head.body, '')
    assert.equal(head.headers['content-type'], get.headers['content-type'])
    assert.equal(head.headers['content-length'], get.headers['content-length'])
  })

  it('publishes the frozen copy: mutating the caller\'s form later changes nothing', async () => {
    const form = { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: false }
    const app = Fastify()
    await app.register(gpt, { form, act: (body) => body, rateLimit: false })
    await app.ready()
    const before = (await app.inject({ method: 'GET', url: '/' })).body
    ;(form.properties.a as Record<string, unknown>)['type'] = 'number'
    ;(form as Record<string, unknown>)['additionalProperties'] = true
    assert.equal((await app.inject({ method: 'GET', url: '/' })).body, before)
    const act = await app.inject({ method: 'POST', url: '/', payload: '{"a":1}' })
    assert.equal(act.statusCode, 204, 'the enforced form did not change either')
  })
})

describe('§3.3 representation for human readers', () => {
  const json = 'application/json; charset=utf-8'
  const html = 'text/html; charset=utf-8'
  const cases: [string | undefined, string][] = [
    [undefined, json],
    ['*/*', json],
    ['application/json', json],
    ['text/html;q=0', json],
    ['text/plain, application/xml', json],
    ['image/png', json],
    ['application/json, text/html;q=0.9', json],
    ['text/html', html],
    ['TEXT/HTML', html],
    ['text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8', html],
    ['text/*, application/json;q=0.5', json],
    ['text/html;q=0.5, */*;q=0.1', html]
  ]
  for (const [accept, expected] of cases) {
    it(`Accept: ${accept ?? '(none)'} gets ${expected.split(';')[0]}`, async () => {
      const { app } = await host()
      const response = await app.inject({ method: 'GET', url: '/', headers: accept === undefined ? {} : { accept } })
      assert.equal(response.statusCode, 200)
      assert.equal(response.headers['content-type'], expected)
      assert.equal(response.headers.vary, 'Accept')
    })
  }

  it('html: false serves the JSON even to browsers', async () => {
    const { app } = await host({ html: false })
    const response = await app.inject({ method: 'GET', url: '/', headers: { accept: 'text/html' } })
    assert.equal(response.headers['content-type'], json)
  })

  it('html: a function supplies the page, built once', async () => {
    let built = 0
    const { app } = await host({ html: (view) => { built++; return `<p>${view.path}</p>` } })
    for (let i = 0; i < 3; i++) {
      const response = await app.inject({ method: 'GET', url: '/', headers: { accept: 'text/html' } })
      assert.equal(response.body, '<p>/</p>')
    }
    assert.equal(built, 1)
  })

  it('escapes p, m and s in the page and runs no script of theirs', async () => {
    const evil = '<script>alert(1)</script>'
    const { app } = await host({
      prompt: evil,
      messages: [{ role: evil, content: evil }],
      form: { type: 'string', description: evil }
    })
    const response = await app.inject({ method: 'GET', url: '/', headers: { accept: 'text/html' } })
    assert.equal(response.headers['content-type'], html)
    assert.equal(response.body.match(/<script/gi)?.length, 1, 'only the page\'s own script')
    assert.doesNotMatch(response.body, /<script>alert/i)
    assert.match(response.body, /&lt;script&gt;alert\(1\)&lt;\/script&gt;/)
    assert.match(String(response.headers['content-security-policy']), /default-src 'none'/)
    assert.equal(response.headers['x-content-type-options'], 'nosniff')
  })
})
