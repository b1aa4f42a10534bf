import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify'
import gpt, { type GptOptions } from '../../src/index.ts'

/** A small, closed form used across the tests. */
export const noteForm = {
  type: 'object',
  properties: {
    note: { type: 'string', minLength: 1, maxLength: 20 },
    stars: { type: 'integer', minimum: 1, maximum: 5 }
  },
  required: ['note'],
  additionalProperties: false
} as const

export interface Recorded {
  bodies: unknown[]
  actors: (string | undefined)[]
}

/** A host with one address at `/` acting by recording what it received. */
export async function host (
  options: Partial<GptOptions> = {},
  server: FastifyServerOptions = {}
): Promise<{ app: FastifyInstance, seen: Recorded }> {
  const seen: Recorded = { bodies: [], actors: [] }
  const app = Fastify(server)
  const address: GptOptions = {
    form: noteForm,
    act: (body, request) => {
      seen.bodies.push(body)
      seen.actors.push(request.gptActor)
      return { ok: true }
    },
    rateLimit: false,
    ...options
  }
  await app.register(gpt, address)
  await app.ready()
  return { app, seen }
}

/** Registers one address and returns the error `ready()` rejects with (or undefined). */
export async function registrationError (options: Record<string, unknown>, prefix?: string): Promise<unknown> {
  const app = Fastify()
  app.register(gpt, { act: () => null, ...(prefix === undefined ? {} : { prefix }), ...options } as unknown as GptOptions)
  try {
    await app.ready()
    return undefined
  } catch (error) {
    return error
  } finally {
    await app.close().catch(() => {})
  }
}
