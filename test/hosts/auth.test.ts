import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import auth from '@fastify/auth'
import bearerAuth from '@fastify/bearer-auth'
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify'
import gpt from '../../src/index.ts'
import { checkAddress } from '../../src/check/testing.ts'
import { arrivalNeedsNothingAndNeverVaries, everyRejectionTheSameBare204, noteForm } from '../helpers/beside.ts'

const KEY = 'a-long-random-key'
const authorized = { authorization: `Bearer ${KEY}` }

/** The setup docs/hosts.md shows: @fastify/bearer-auth without its hook, checked for acts (POST) only. */
async function bearerForActs (): Promise<{ app: FastifyInstance, seen: unknown[] }> {
  const app = Fastify()
  const seen: unknown[] = []
  await app.register(async (scope) => {
    await scope.register(bearerAuth, { keys: new Set([KEY]), addHook: false })
    // draft §3.1: the arrival needs no header, so only an act (a POST) is asked for the key
    scope.addHook('onRequest', (request, reply, done) => {
      if (request.method !== 'POST') return done()
      scope.verifyBearerAuth?.(request, reply, done)
    })
    await scope.register(gpt, { prefix: '/notes', form: noteForm, act: (body) => { seen.push(body); return { ok: true } }, rateLimit: false })
  })
  await app.ready()
  return { app, seen }
}

/** The same with @fastify/auth, composing the bearer key or a header of the host's own. */
async function composedForActs (): Promise<{ app: FastifyInstance, seen: unknown[] }> {
  const app = Fastify()
  const seen: unknown[] = []
  await app.register(auth)
  await app.register(async (scope) => {
    await scope.register(bearerAuth, { keys: new Set([KEY]), addHook: false })
    const partner = async (request: FastifyRequest, _reply: FastifyReply): Promise<void> => {
      if (request.headers['x-partner'] !== 'trusted') throw new Error('not a partner')
    }
    const verifyBearer = scope.verifyBearerAuth
    if (verifyBearer === undefined) throw new Error('@fastify/bearer-auth did not decorate')
    const gate = scope.auth([verifyBearer, partner], { relation: 'or' })
    scope.addHook('onRequest', (request, reply, done) => request.method === 'POST' ? gate.call(scope, request, reply, done) : done())
    await scope.register(gpt, { prefix: '/notes', form: noteForm, act: (body) => { seen.push(body); return { ok: true } }, rateLimit: false })
  })
  await app.ready()
  return { app, seen }
}

describe('auth for acts only (draft §3.1)', () => {
  it('the setup the docs warn against: @fastify/bearer-auth\'s own hook gates GET, which the checker reports', async () => {
    const app = Fastify()
    await app.register(async (scope) => {
      await scope.register(bearerAuth, { keys: new Set([KEY]) })
      await scope.register(gpt, { prefix: '/notes', form: noteForm, act: () => null, rateLimit: false })
    })
    assert.equal((await app.inject('/notes')).statusCode, 401)
    const report = await checkAddress(app, { path: '/notes' })
    assert.equal(report.results.find((result) => result.id === '3.1-bare-get')?.outcome, 'fail')
    await app.close()
  })

  for (const [name, build] of [['@fastify/bearer-auth', bearerForActs], ['@fastify/auth', composedForActs]] as const) {
    it(`with ${name}: GET needs no header and does not vary with contact, authorized or not`, async () => {
      const { app } = await build()
      await arrivalNeedsNothingAndNeverVaries(app, '/notes', [
        { method: 'POST', url: '/notes', payload: '{"note":"a"}' },
        { method: 'POST', url: '/notes', payload: '{"note":"a"}', headers: authorized },
        { method: 'GET', url: '/notes', headers: authorized }
      ])
      const withKey = await app.inject({ url: '/notes', headers: authorized })
      const without = await app.inject({ url: '/notes' })
      assert.equal(withKey.body, without.body)
      const report = await checkAddress(app, { path: '/notes' })
      assert.equal(report.results.find((result) => result.id === '3.1-bare-get')?.outcome, 'pass')
      await app.close()
    })

    it(`with ${name}: an act without the key is refused before its body is read; with it, the act sees exactly the value sent`, async () => {
      const { app, seen } = await build()
      for (const headers of [{}, { authorization: 'Bearer wrong' }]) {
        const response = await app.inject({ method: 'POST', url: '/notes', payload: '{"note":"a"}', headers })
        assert.equal(response.statusCode, 401)
      }
      assert.deepEqual(seen, [])
      const response = await app.inject({ method: 'POST', url: '/notes', payload: '{"note":"é ok"}', headers: authorized })
      assert.equal(response.statusCode, 200)
      assert.deepEqual(seen, [{ note: 'é ok' }])
      await app.close()
    })

    it(`with ${name}: every refused body of an authorized actor gets the same bare 204`, async () => {
      const { app, seen } = await build()
      const rejections = [{ payload: '{"note":""}' }, { payload: '{"note":"a","note":"b"}' }, { payload: '{"note":"a","x":1}' }, { payload: '' }]
      await everyRejectionTheSameBare204(app, '/notes', rejections, authorized)
      assert.deepEqual(seen, [])
      await app.close()
    })
  }

  it('with @fastify/auth: the host\'s own partner header admits an act too', async () => {
    const { app, seen } = await composedForActs()
    const response = await app.inject({ method: 'POST', url: '/notes', payload: '{"note":"p"}', headers: { 'x-partner': 'trusted' } })
    assert.equal(response.statusCode, 200)
    assert.deepEqual(seen, [{ note: 'p' }])
    await app.close()
  })
})
