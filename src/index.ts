import accepts from '@fastify/accepts'
import rateLimit, { type RateLimitPluginOptions } from '@fastify/rate-limit'
import type {
  FastifyBaseLogger,
  FastifyInstance,
  FastifyPluginAsync,
  FastifyTypeProvider,
  RawServerBase,
  RawServerDefault,
  RegisterOptions
} from 'fastify'
import fp from 'fastify-plugin'
import { actHandler, installBodyPipeline } from './act.ts'
import { arrivalHandler, buildArrival } from './arrival.ts'
import { GPT_ERR_FORM_INVALID } from './errors.ts'
import { compileForm } from './form.ts'
import { resolveOptions, type Address, type GptOptions } from './options.ts'

// draft §3.2 and §5.3: rate-limit headers on ordinary responses would make the arrival vary with
// prior contact and tell rejected bodies apart; only a 429 says when to come back.
const RATE_LIMIT_LABELS = ['limit', 'remaining', 'reset'].flatMap((name) => [`x-ratelimit-${name}`, `ratelimit-${name}`])
const SILENT = Object.fromEntries(RATE_LIMIT_LABELS.map((label) => [label, false]))
const QUIET_HEADERS = {
  addHeadersOnExceeding: SILENT,
  addHeaders: { ...SILENT, 'retry-after': true }
} satisfies RateLimitPluginOptions

/**
 * One GPT address: GET publishes the form, POST enforces it. Everything it installs (parser,
 * validator compiler, error handler, rate limit) stays inside its own encapsulated instance.
 */
async function address (instance: FastifyInstance, options: GptOptions): Promise<void> {
  const path = instance.prefix === '' ? '/' : instance.prefix
  const resolved: Address = resolveOptions(options as unknown as Record<string, unknown>, path)
  const validate = compileForm(resolved.form, path)
  const arrival = buildArrival(resolved)

  if (resolved.rateLimit !== false) {
    await instance.register(rateLimit, { ...QUIET_HEADERS, ...resolved.rateLimit, global: true })
  }
  if (arrival.html !== undefined && !instance.hasRequestDecorator('accepts')) await instance.register(accepts)
  instance.decorateRequest('gptActor', undefined)
  installBodyPipeline(instance, resolved)

  // draft §5.2 (3): the body is validated against the same value of s that GET returns.
  instance.setValidatorCompiler(({ schema }) => {
    if (schema !== resolved.form) throw new GPT_ERR_FORM_INVALID(path, 'Fastify offered a schema other than the form')
    return validate
  })
  instance.get('/', arrivalHandler(arrival))
  instance.post('/', {
    schema: { body: resolved.form },
    attachValidation: true,
    bodyLimit: resolved.bodyLimit
  }, actHandler(resolved))
}

/** The plugin, typed so that `act` sees the body type inferred from a `const` form. */
export interface Gpt {
  <const F extends object>(instance: FastifyInstance, options: GptOptions<F> & RegisterOptions): Promise<void>
}

declare module 'fastify' {
  // An overload for `app.register(gpt, options)` that infers the form's type from the options, so
  // `act`'s body is typed (Fastify's own overloads would fix the options type first). Merged
  // declarations must repeat the type parameters, used or not.
  /* eslint-disable @typescript-eslint/no-unused-vars */
  interface FastifyRegister<
    T = void,
    RawServer extends RawServerBase = RawServerDefault,
    TypeProviderDefault extends FastifyTypeProvider = FastifyTypeProvider,
    LoggerDefault extends FastifyBaseLogger = FastifyBaseLogger
  > {
    <const F extends object>(plugin: Gpt, options: GptOptions<F> & RegisterOptions): T
  }
  /* eslint-enable @typescript-eslint/no-unused-vars */
}

export const gpt = fp(address as FastifyPluginAsync<GptOptions>, {
  fastify: '5.x',
  name: 'fastify-gpt',
  encapsulate: true // keeps Fastify's `prefix` working and everything above inside the address
}) as unknown as Gpt

export default gpt
export * from './errors.ts'
export { DEFAULT_BODY_LIMIT, DEFAULT_RATE_LIMIT } from './options.ts'
export type { Act, AddressView, Body, GptOptions, Message } from './options.ts'
export type { Json, JsonObject } from './form.ts'
