// Type tests: checked by `npm run typecheck` (tsc), never run. Each @ts-expect-error fails the
// check if the error it expects goes away, so these assertions can fail both ways.
import Fastify from 'fastify'
import gpt, { type Body } from '../src/index.ts'

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends (<T>() => T extends B ? 1 : 2) ? true : false
const expectType = <T extends true>(): T => true as T

const app = Fastify()

// A const form types act's body.
await app.register(gpt, {
  form: {
    type: 'object',
    properties: { note: { type: 'string' }, stars: { type: 'integer' }, tag: { enum: ['a', 'b'] } },
    required: ['note'],
    additionalProperties: false
  },
  act: (body, request) => {
    expectType<Equal<typeof body, { note: string, stars?: number, tag?: 'a' | 'b' }>>()
    const actor: string | undefined = request.gptActor
    // @ts-expect-error the form admits no member x
    return { note: body.note, x: body.x, actor }
  }
})

// Fastify's register options go alongside.
await app.register(gpt, { prefix: '/poll', form: { enum: ['tabs', 'spaces'] }, act: (choice) => choice.toUpperCase() })

// A form typed loosely (loaded from JSON, say) gives `unknown`, never `any`.
const loaded: Record<string, unknown> = JSON.parse('{"type":"string"}')
await app.register(gpt, {
  form: loaded,
  act: (body) => {
    expectType<Equal<typeof body, unknown>>()
    return null
  }
})

expectType<Equal<Body<{ readonly type: 'integer' }>, number>>()

// @ts-expect-error act is required
await app.register(gpt, { form: { type: 'string' } })

// @ts-expect-error prompt is a string
await app.register(gpt, { form: {}, act: () => null, prompt: 1 })

// A const form held in a variable types act's body just as well.
const poll = { enum: ['tabs', 'spaces'] } as const
await app.register(gpt, {
  form: poll,
  act: (choice) => {
    expectType<Equal<typeof choice, 'tabs' | 'spaces'>>()
    return choice
  }
})

// A misspelt option is a type error, as it is an error at registration.
// @ts-expect-error promt is no option
await app.register(gpt, { promt: 'x', form: poll, act: (choice) => choice })
