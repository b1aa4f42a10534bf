import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import Fastify, { type FastifyError, type FastifyInstance } from 'fastify'
import gpt, { type Act } from '../../src/index.ts'
import { arrivalNeedsNothingAndNeverVaries, everyRejectionTheSameBare204, noteForm, shape } from '../helpers/beside.ts'

const SECRET = 'the database password is hunter2'

interface Tracked { hooks: FastifyError[], handled: FastifyError[] }

/**
 * A host tracking errors as Sentry's, OpenTelemetry's or a log shipper's Fastify integrations do:
 * an onError hook, and an error handler that answers with the message (as a careless one might).
 */
async function tracked (act: Act, actTimeout?: number): Promise<{ app: FastifyInstance, tracked: Tracked }> {
  const app = Fastify()
  const seen: Tracked = { hooks: [], handled: [] }
  app.addHook('onError', async (_request, _reply, error) => { seen.hooks.push(error) })
  app.setErrorHandler((error: FastifyError, _request, reply) => {
    seen.handled.push(error)
    return reply.code(418).header('x-tracked', error.message).send({ message: error.message, cause: String(error.cause) })
  })
  app.addHook('onRequest', async (_request, reply) => { reply.header('x-request-id', 'r1') })
  await app.register(gpt, { prefix: '/notes', form: noteForm, act, rateLimit: false, ...(actTimeout === undefined ? {} : { actTimeout }) })
  await app.ready()
  return { app, tracked: seen }
}

const post = { method: 'POST' as const, url: '/notes', payload: '{"note":"a"}' }

describe('§5.3 a failed act reaches the host\'s error tracking', () => {
  const failing: [string, Act, string][] = [
    ['throws', () => { throw new Error(SECRET) }, 'it threw'],
    ['rejects', async () => { await Promise.resolve(); throw new Error(SECRET) }, 'its promise rejected'],
    ['returns what cannot be JSON', () => ({ n: 1n, note: SECRET }), 'its result cannot be sent as JSON'],
    ['throws after setting headers and a status', (_body, _request, reply) => { reply.code(201).header('x-note', SECRET); throw new Error(SECRET) }, 'it threw']
  ]
  for (const [name, act, how] of failing) {
    it(`an act that ${name}: onError hooks and the error handler see GPT_ERR_ACT_FAILED, its cause the act's error; the client a bare 500`, async () => {
      const { app, tracked: seen } = await tracked(act)
      const response = await app.inject(post)
      assert.equal(response.statusCode, 500)
      assert.equal(response.body, '')
      assert.equal(response.headers['x-request-id'], 'r1', 'the host\'s own headers from before the act stay')
      assert.equal(response.headers['x-tracked'], undefined, 'nothing the error handler set')
      assert.equal(response.headers['x-note'], undefined, 'nothing the act set')
      assert.ok(!JSON.stringify(response.headers).includes('hunter2'))
      assert.equal(seen.hooks.length, 1)
      assert.equal(seen.handled.length, 1)
      const [error] = seen.handled
      assert.equal(error, seen.hooks[0])
      assert.equal(error?.code, 'GPT_ERR_ACT_FAILED')
      assert.equal(error?.statusCode, 500)
      assert.equal(error?.message, `fastify-gpt address /notes: the act failed: ${how}`)
      assert.ok(error?.cause instanceof Error)
      if (!name.includes('JSON')) assert.equal((error.cause as Error).message, SECRET)
      await app.close()
    })
  }

  it('an act past actTimeout: GPT_ERR_ACT_TIMEOUT reaches them, the client gets a bare 503, the late result is dropped', async () => {
    let finish!: (value: unknown) => void
    const { app, tracked: seen } = await tracked(() => new Promise((resolve) => { finish = resolve }), 20)
    const response = await app.inject(post)
    assert.equal(response.statusCode, 503)
    assert.equal(response.body, '')
    assert.equal(response.headers['x-tracked'], undefined)
    assert.deepEqual(seen.handled.map((error) => [error.code, error.statusCode]), [['GPT_ERR_ACT_TIMEOUT', 503]])
    assert.equal(seen.hooks[0], seen.handled[0])
    finish({ late: true })
    await new Promise((resolve) => setImmediate(resolve))
    assert.equal(seen.handled.length, 1, 'the late result raises nothing more')
    await app.close()
  })

  it('with Fastify\'s default error handler: logged once at error, with the act\'s error as its cause; the client gets a bare 500', async () => {
    const lines: { level: number, msg: string, err?: { code?: string, message?: string } }[] = []
    const app = Fastify({ logger: { level: 'error', stream: { write: (line: string) => { lines.push(JSON.parse(line)) } } } })
    await app.register(gpt, { form: noteForm, act: () => { throw new Error(SECRET) }, rateLimit: false })
    const plain = await app.inject({ method: 'POST', url: '/', payload: '{"note":"a"}' })
    assert.equal(plain.statusCode, 500)
    assert.equal(plain.body, '')
    assert.equal(plain.headers['content-type'], undefined)
    assert.equal(lines.length, 1)
    assert.equal(lines[0]?.err?.code, 'GPT_ERR_ACT_FAILED')
    assert.match(String(lines[0]?.err?.message), /hunter2/, 'the cause is in the log, for operators')
    await app.close()
  })

  it('leaves rejections and the arrival alone: nothing reaches error tracking, the draft\'s invariants hold', async () => {
    const { app, tracked: seen } = await tracked(() => ({ ok: true }))
    await arrivalNeedsNothingAndNeverVaries(app, '/notes', [post, { ...post, payload: '{"note":1}' }])
    await everyRejectionTheSameBare204(app, '/notes', [{ payload: '{"note":""}' }, { payload: '{"note":"a","note":"a"}' }, { payload: '[' }])
    assert.deepEqual(seen.hooks, [])
    assert.deepEqual(seen.handled, [])
    assert.equal((await app.inject(post)).statusCode, 200)
    await app.close()
  })

  it('a failed act\'s 500 is the same whatever the host\'s error handler answers', async () => {
    const quiet = await tracked(() => { throw new Error('a') })
    const loud = Fastify()
    loud.addHook('onRequest', async (_request, reply) => { reply.header('x-request-id', 'r1') })
    loud.setErrorHandler((error, _request, reply) => reply.code(502).type('text/plain').send(String(error)))
    await loud.register(gpt, { prefix: '/notes', form: noteForm, act: () => { throw new Error(SECRET) }, rateLimit: false })
    assert.deepEqual(shape(await loud.inject(post)), shape(await quiet.app.inject(post)))
    await Promise.all([loud.close(), quiet.app.close()])
  })
})
