import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify'
import gpt, { type ActContext, type BackgroundOptions, type GptOptions } from '../../src/index.ts'

/** A promise opened from outside: an act waits on one, so it ends only when the test says. */
export interface Gate<T = void> {
  readonly promise: Promise<T>
  open (value: T): void
  fail (error: unknown): void
}

export function gate<T = void> (): Gate<T> {
  let open!: (value: T) => void
  let fail!: (error: unknown) => void
  const promise = new Promise<T>((resolve, reject) => { open = resolve; fail = reject })
  return { promise, open, fail }
}

/** A gate per name, made when first asked for; `all` holds every one made. */
export function gatesByName (): { readonly gateOf: (name: string) => Gate, readonly all: Map<string, Gate> } {
  const all = new Map<string, Gate>()
  const gateOf = (name: string): Gate => {
    let made = all.get(name)
    if (made === undefined) all.set(name, made = gate())
    return made
  }
  return { gateOf, all }
}

/**
 * An address at /slow whose act waits for the gate named by its body's `id`, then answers `{ id }`,
 * or fails where the body says `fail`: a job ended when the test says, one way or the other.
 */
export function gatedSlow (gateOf: (name: string) => Gate, background: BackgroundOptions, more: Partial<GptOptions> = {}): GptOptions {
  return {
    prefix: '/slow',
    form: { type: 'object', properties: { id: { type: 'string' }, fail: { type: 'boolean' } }, required: ['id'], additionalProperties: false },
    rateLimit: false,
    background,
    async act ({ id, fail }: { id: string, fail?: boolean }) {
      await gateOf(id).promise
      if (fail === true) throw new Error('it broke')
      return { id }
    },
    ...more
  } as unknown as GptOptions
}

export const stepsForm = {
  type: 'object',
  properties: { steps: { type: 'integer', minimum: 0, maximum: 100 } },
  required: ['steps'],
  additionalProperties: false
} as const

/** What a stepping act did: the signal it was given, the gates it waits on, and how it ended. */
export interface Stepper {
  signals: AbortSignal[]
  /** One gate a step, opened by the test: step i waits on gates[i]. */
  gates: Gate[]
  ended: string[]
}

/**
 * A host whose address at /slow steps `steps` times, each step waiting on a gate of the test's
 * and then reporting `{ step, of, message }`, and returns `{ steps }`. `host` adds the host's own
 * hooks before the address is registered.
 */
export async function slowHost (background: BackgroundOptions | undefined, more: Partial<GptOptions> = {}, server: FastifyServerOptions = {}, host?: (app: FastifyInstance) => void): Promise<{ app: FastifyInstance, stepper: Stepper }> {
  const stepper: Stepper = { signals: [], gates: Array.from({ length: 101 }, () => gate()), ended: [] }
  const app = Fastify(server)
  host?.(app)
  await app.register(gpt, {
    prefix: '/slow',
    form: stepsForm,
    rateLimit: false,
    ...(background === undefined ? {} : { background }),
    async * act ({ steps }: { steps: number }, _request: unknown, _reply: unknown, { signal }: ActContext) {
      stepper.signals.push(signal)
      try {
        for (let step = 1; step <= steps; step++) {
          await stepper.gates[step]!.promise
          yield { step, of: steps, message: `Step ${step} of ${steps}` }
        }
        stepper.ended.push('returned')
        return { steps }
      } finally {
        if (stepper.ended.length === 0) stepper.ended.push('stopped')
      }
    },
    ...more
  } as unknown as GptOptions)
  await app.ready()
  return { app, stepper }
}

/** Waits for `check` to hold, looking every few ms; fails past a generous bound (the point is that it ends). */
export async function eventually (check: () => boolean | Promise<boolean>, what: string, bound = 10_000): Promise<void> {
  const start = Date.now()
  while (!(await check())) {
    if (Date.now() - start > bound) throw new Error(`never: ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
}
