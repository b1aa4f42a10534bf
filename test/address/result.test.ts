// The `result` option: a JSON Schema of what `act` returns, refused at registration as a form is,
// and each result judged as it would be sent, before it is: one the result form does not admit is
// never sent, but a bare 500 through Fastify's error path (GPT_ERR_RESULT_INVALID). A job's handle
// is no result; the job's own result is judged, and one refused fails the job.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import Fastify, { type FastifyInstance, type LightMyRequestResponse } from 'fastify'
import gpt, { GPT_ERR_RESULT_INVALID, type GptOptions } from '../../src/index.ts'
import { registrationError } from '../helpers/host.ts'
import { gate } from '../helpers/jobs.ts'

const counted = {
  type: 'object',
  properties: { count: { type: 'integer', minimum: 0 }, at: { type: 'string' } },
  required: ['count'],
  additionalProperties: false
} as const

/** A host whose address at / returns whatever `results` gives next, and what its error path saw. */
async function returning (result: object, results: () => unknown, more: Partial<GptOptions> = {}): Promise<{ app: FastifyInstance, errors: Error[], hooked: string[] }> {
  const app = Fastify()
  const errors: Error[] = []
  const hooked: string[] = []
  app.addHook('onError', async (_request, _reply, error) => { hooked.push(String((error as { code?: string }).code)) })
  app.setErrorHandler(async (error, _request, reply) => { errors.push(error as Error); return await reply.code(418).send({ leaked: 'never sent' }) })
  await app.register(gpt, { form: { type: 'object' }, result, act: results, rateLimit: false, ...more } as GptOptions)
  await app.ready()
  return { app, errors, hooked }
}

const post = async (app: FastifyInstance, payload = '{}'): Promise<LightMyRequestResponse> =>
  await app.inject({ method: 'POST', url: '/', headers: { 'content-type': 'application/json' }, payload })

describe('result: checked at registration as a form is', () => {
  const refused: Array<[string, unknown, string, RegExp]> = [
    ['not an object', 'integer', 'GPT_ERR_OPTION_INVALID', /"result" must be a JSON Schema object/],
    ['an array', [], 'GPT_ERR_OPTION_INVALID', /"result"/],
    ['not JSON', { type: 'object', default: () => 1 }, 'GPT_ERR_FORM_NOT_JSON', /\/notes \(its result form\)/],
    ['not JSON Schema 2020-12', { type: 'nope' }, 'GPT_ERR_FORM_INVALID', /\/notes \(its result form\): the form is not a valid JSON Schema 2020-12/],
    ['a keyword that would not be enforced', { type: 'object', propertys: {} }, 'GPT_ERR_FORM_UNKNOWN_KEYWORD', /\(its result form\).*"propertys".*did you mean "properties"/],
    ['a $ref that does not resolve', { $ref: '#/$defs/none' }, 'GPT_ERR_FORM_UNRESOLVED_REF', /\(its result form\)/],
    ['a pattern the linear-time matcher cannot run', { type: 'string', pattern: '(a)\\1' }, 'GPT_ERR_FORM_PATTERN', /\(its result form\)/],
    ['larger than limits.formBytes', { type: 'object', description: 'x'.repeat(300) }, 'GPT_ERR_FORM_TOO_LARGE', /\(its result form\)/]
  ]
  for (const [what, result, code, message] of refused) {
    it(`refuses a result form ${what}: ${code}`, async () => {
      const error = await registrationError({ form: {}, result, limits: { formBytes: 256 } }, '/notes') as Error & { code?: string }
      assert.equal(error?.code, code, String(error))
      assert.match(error.message, message)
    })
  }
})

describe('result: a result the result form does not admit is never sent', () => {
  it('sends one it admits as ever; one it does not is a bare 500, GPT_ERR_RESULT_INVALID on the error path saying why', async () => {
    const next: unknown[] = [{ count: 1 }, { count: -1 }, { count: 2, extra: true }, 'two', undefined]
    const { app, errors, hooked } = await returning(counted, () => next.shift())
    const sent = await post(app)
    assert.equal(sent.statusCode, 200)
    assert.equal(sent.body, '{"count":1}')
    for (const reason of [/result\/count must be >= 0/, /result must NOT have additional properties/, /result must be object/, /result must be object/]) {
      const failed = await post(app)
      assert.equal(failed.statusCode, 500)
      assert.equal(failed.body, '', 'bare: nothing of the result, nothing of the error handler\'s answer')
      const error = errors.at(-1) as Error & { code?: string, statusCode?: number }
      assert.ok(error instanceof GPT_ERR_RESULT_INVALID)
      assert.equal(error.statusCode, 500)
      assert.match(error.message, /^fastify-gpt address \/: the act's result is not one its result form admits: /)
      assert.match(error.message, reason)
    }
    assert.deepEqual(hooked, Array(4).fill('GPT_ERR_RESULT_INVALID'), 'the host\'s onError hooks see it')
    await app.close()
  })

  it('judges a result as it is sent: an undefined member left out, a Date as its string, toJSON\'s value', async () => {
    const next: unknown[] = [{ count: 3, at: undefined }, { count: 4, at: new Date(0) }, { toJSON: () => ({ count: 5 }) }, { count: 6, toJSON: () => ({ count: -6 }) }]
    const { app } = await returning(counted, () => next.shift())
    assert.equal((await post(app)).body, '{"count":3}')
    assert.equal((await post(app)).body, '{"count":4,"at":"1970-01-01T00:00:00.000Z"}')
    assert.equal((await post(app)).body, '{"count":5}')
    assert.equal((await post(app)).statusCode, 500, 'what would be sent is {"count":-6}')
    await app.close()
  })

  it('an act that answers by itself answers as it did; an act\'s failure is GPT_ERR_ACT_FAILED still; undefined is judged as null', async () => {
    const { app, errors } = await returning({ type: 'null' }, (() => {
      let n = 0
      return (_body: unknown, _request: unknown, reply: { code: (n: number) => { send: (body: string) => unknown } }) => {
        n++
        if (n === 1) return reply.code(202).send('by itself')
        if (n === 2) throw new Error('broke')
        return undefined
      }
    })() as never)
    const itself = await post(app)
    assert.deepEqual([itself.statusCode, itself.body], [202, 'by itself'])
    assert.equal((await post(app)).statusCode, 500)
    assert.equal((errors.at(-1) as { code?: string }).code, 'GPT_ERR_ACT_FAILED')
    assert.equal((await post(app)).body, 'null')
    await app.close()
  })

  it('with idempotency, a refused result is kept as a failure is: a retry with the key gets the bare 500 again, and nothing runs', async () => {
    const next: unknown[] = [{ count: -1 }, { count: 1 }]
    const { app } = await returning(counted, () => next.shift(), { idempotency: true })
    const keyed = async (): Promise<LightMyRequestResponse> => await app.inject({ method: 'POST', url: '/', headers: { 'content-type': 'application/json', 'idempotency-key': 'k1' }, payload: '{}' })
    assert.equal((await keyed()).statusCode, 500)
    const retried = await keyed()
    assert.deepEqual([retried.statusCode, retried.body, retried.headers['idempotent-replayed']], [500, '', 'true'])
    assert.equal(next.length, 1, 'the act ran once')
    await app.close()
  })
})

describe('result with background: the handle is no result, the job\'s result is one', () => {
  it('answers a quick act as ever, judged; hands off without judging the handle; completes a job whose result it admits and fails one whose result it does not', async () => {
    const gates = [gate<unknown>(), gate<unknown>()]
    const quick: unknown[] = [{ count: 1 }, { count: -1 }]
    const logged: Array<Record<string, unknown>> = []
    const app = Fastify({ logger: { level: 'error', stream: { write: (line: string) => { logged.push(JSON.parse(line) as Record<string, unknown>) } } } })
    await app.register(gpt, {
      form: { type: 'object', properties: { slow: { type: 'integer' } } },
      result: counted,
      background: { after: 20 },
      rateLimit: false,
      act: (body: { slow?: number }) => body.slow === undefined ? quick.shift() : gates[body.slow]!.promise
    } as GptOptions)
    assert.equal((await post(app)).body, '{"count":1}')
    assert.equal((await post(app)).statusCode, 500)
    const jobs: string[] = []
    for (const slow of [0, 1]) {
      const handed = await post(app, `{"slow":${slow}}`)
      assert.equal(handed.statusCode, 200, 'the handle is sent, though the result form admits no handle')
      jobs.push((handed.json() as { href: string }).href)
    }
    gates[0]!.open({ count: 7 })
    gates[1]!.open({ count: 'seven' })
    const settled = async (href: string): Promise<Record<string, unknown>> => {
      for (;;) {
        const job = (await app.inject(href)).json() as Record<string, unknown>
        if (job['status'] !== 'working') return job
        await new Promise((resolve) => setTimeout(resolve, 5))
      }
    }
    const done = await settled(jobs[0]!)
    assert.deepEqual([done['status'], done['result']], ['completed', { count: 7 }])
    const failed = await settled(jobs[1]!)
    assert.equal(failed['status'], 'failed')
    assert.ok(!JSON.stringify(failed).includes('seven'), 'the refused result is shown nowhere')
    const error = logged.find((line) => line['msg'] === 'gpt: job failed')?.['err'] as { type?: string, message?: string } | undefined
    assert.match(String(error?.message), /result form admits: result\/count must be integer/)
    await app.close()
  })
})
