import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import cors from '@fastify/cors'
import fc from 'fast-check'
import Fastify, { type FastifyInstance } from 'fastify'
import gpt from '../../src/index.ts'
import { arrivalNeedsNothingAndNeverVaries, everyRejectionTheSameBare204, noteForm } from '../helpers/beside.ts'

/** The names a Vary field value lists, lower-cased. */
const varyNames = (value: unknown): string[] => String(value ?? '').split(',').map((name) => name.trim().toLowerCase()).filter((name) => name !== '')

async function withCors (hook?: 'onRequest' | 'preValidation' | 'preHandler'): Promise<{ app: FastifyInstance, seen: unknown[] }> {
  const app = Fastify()
  const seen: unknown[] = []
  await app.register(cors, { origin: true, ...(hook === undefined ? {} : { hook }) })
  await app.register(gpt, { prefix: '/notes', form: noteForm, act: (body) => { seen.push(body); return { ok: true } }, rateLimit: false })
  await app.ready()
  return { app, seen }
}

describe('§3.3 the arrival beside @fastify/cors', () => {
  it('a job address and its events keep the host\'s Vary: Origin beside Vary: Accept too', async () => {
    const app = Fastify()
    await app.register(cors, { origin: true })
    let release = (): void => {}
    await app.register(gpt, { prefix: '/slow', form: noteForm, rateLimit: false, background: { after: 1 }, act: () => new Promise((resolve) => { release = () => { resolve({ ok: true }) } }) })
    await app.ready()
    try {
      const handed = await app.inject({ method: 'POST', url: '/slow', payload: '{"note":"a"}', headers: { 'content-type': 'application/json' } })
      const href = (handed.json() as { href: string }).href
      release()
      for (const url of [href, `${href}/events`]) {
        const response = await app.inject({ method: 'GET', url, headers: { origin: 'https://one.example' } })
        const names = varyNames(response.headers.vary)
        assert.ok(names.includes('origin') && names.includes('accept'), `${url}: ${String(response.headers.vary)}`)
      }
    } finally {
      await app.close()
    }
  })

  for (const hook of ['onRequest', 'preValidation', 'preHandler'] as const) {
    it(`keeps the host's Vary: Origin beside Vary: Accept (cors hook ${hook}), for JSON and HTML alike`, async () => {
      const { app } = await withCors(hook)
      for (const accept of [undefined, 'text/html']) {
        const response = await app.inject({ method: 'GET', url: '/notes', headers: { origin: 'https://one.example', ...(accept === undefined ? {} : { accept }) } })
        assert.equal(response.statusCode, 200)
        assert.equal(response.headers['access-control-allow-origin'], 'https://one.example')
        const names = varyNames(response.headers.vary)
        assert.ok(names.includes('origin'), `Vary names Origin: ${String(response.headers.vary)}`)
        assert.equal(names.filter((name) => name === 'accept').length, 1, `Vary names Accept once: ${String(response.headers.vary)}`)
      }
      await app.close()
    })
  }

  it('adds Accept to any Vary a host hook sets, never dropping a name and never naming Accept twice (property)', async () => {
    const token = fc.stringMatching(/^[A-Za-z][A-Za-z0-9-]{0,12}$/)
    await fc.assert(fc.asyncProperty(fc.array(fc.oneof(token, fc.constant('Accept'), fc.constant('*')), { maxLength: 4 }), async (names) => {
      const app = Fastify()
      app.addHook('onRequest', async (_request, reply) => { if (names.length > 0) reply.header('vary', names.join(', ')) })
      await app.register(gpt, { form: noteForm, act: () => null, rateLimit: false })
      const response = await app.inject({ method: 'GET', url: '/' })
      await app.close()
      const sent = varyNames(response.headers.vary)
      for (const name of names) assert.ok(sent.includes(name.toLowerCase()), `${name} kept in ${String(response.headers.vary)}`)
      const named = names.filter((name) => name.toLowerCase() === 'accept').length
      if (!names.includes('*')) assert.equal(sent.filter((name) => name === 'accept').length, Math.max(named, 1), 'Accept added once, if at all')
    }), { numRuns: 60 })
  })

  it('needs no header, does not vary with prior contact, and answers preflights for acts', async () => {
    const { app } = await withCors()
    const origin = { origin: 'https://one.example' }
    await arrivalNeedsNothingAndNeverVaries(app, '/notes', [
      { method: 'POST', url: '/notes', payload: '{"note":"a"}', headers: origin },
      { method: 'POST', url: '/notes', payload: '{"note":1}', headers: { origin: 'https://two.example' } },
      { method: 'OPTIONS', url: '/notes', headers: { ...origin, 'access-control-request-method': 'POST' } }
    ], { headers: origin })
    const preflight = await app.inject({ method: 'OPTIONS', url: '/notes', headers: { ...origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' } })
    assert.equal(preflight.statusCode, 204)
    assert.equal(preflight.headers['access-control-allow-origin'], 'https://one.example')
    await app.close()
  })
})

describe('§5 acts beside @fastify/cors', () => {
  it('acts from another origin, the act seeing exactly the value sent', async () => {
    const { app, seen } = await withCors()
    const response = await app.inject({ method: 'POST', url: '/notes', payload: '{"note":"from afar"}', headers: { origin: 'https://one.example', 'content-type': 'application/json' } })
    assert.equal(response.statusCode, 200)
    assert.equal(response.headers['access-control-allow-origin'], 'https://one.example')
    assert.deepEqual(seen, [{ note: 'from afar' }])
    await app.close()
  })

  it('answers every refused body with the same bare 204', async () => {
    const { app, seen } = await withCors()
    await everyRejectionTheSameBare204(app, '/notes', [
      { payload: '{"note":""}' },
      { payload: '{"note":"a","note":"b"}' },
      { payload: '{"note":"a"} x' },
      { payload: '' },
      { payload: '{"note":"a"}', headers: { 'content-type': 'application/json', 'content-length': '999999' } }
    ].map((request) => ({ ...request, headers: { ...request.headers } })))
    assert.deepEqual(seen, [])
    await app.close()
  })
})
