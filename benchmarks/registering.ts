// Registering addresses with lint on and off: the forms both bench:registration and bench:mounts
// register, and the time from a fresh Fastify to `app.ready()`.
import Fastify from 'fastify'
import gpt from 'fastify-gpt'
import { unroll } from 'fastify-gpt/unroll'
import { noteBoard, poll } from '../example/addresses.js'
import { form as order } from './workload.ts'

export const tree = unroll({
  type: 'object',
  properties: { name: { type: 'string', maxLength: 40 }, children: { type: 'array', items: { $ref: '#' }, maxItems: 8 } },
  required: ['name'],
  additionalProperties: false
}, { depth: 8 })

/** The example host's forms, each registered `count` times. */
export const examples = (count: number): Array<{ name: string, form: object, addresses: number }> => [
  { name: 'note board (example)', form: noteBoard().form, addresses: count },
  { name: 'poll (example)', form: poll().form, addresses: count }
]

export { order }

/** Milliseconds from a fresh Fastify to `ready()` with `addresses` addresses of the form. */
export async function ready (form: object, addresses: number, lintOn: boolean): Promise<number> {
  const app = Fastify({ logger: false })
  const started = performance.now()
  for (let i = 0; i < addresses; i++) app.register(gpt, { prefix: `/a${i}`, form, act: () => null, rateLimit: false, lint: lintOn })
  await app.ready()
  const ms = performance.now() - started
  await app.close()
  return ms
}

/** Each form's `ready()` over `rounds` rounds, lint on and off in turn (the other way round every other round). */
export async function onAndOff (forms: ReadonlyArray<{ form: object, addresses: number }>, rounds: number, progress?: (round: number) => void):
Promise<Array<{ on: number[], off: number[] }>> {
  const runs = forms.map(() => ({ on: [] as number[], off: [] as number[] }))
  for (let round = 0; round < rounds; round++) {
    for (const [i, { form, addresses }] of forms.entries()) {
      for (const lintOn of round % 2 === 0 ? [true, false] : [false, true]) {
        runs[i]?.[lintOn ? 'on' : 'off'].push(await ready(form, addresses, lintOn))
      }
    }
    progress?.(round)
  }
  return runs
}
