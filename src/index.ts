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
import { installAct } from './address/act.ts'
import { Address } from './address/address.ts'
import { Door } from './address/door.ts'
import { installArrival } from './address/arrival.ts'
import { installIdempotency } from './idempotency/index.ts'
import { resolveIdempotency } from './idempotency/option.ts'
import { installJobs } from './jobs/index.ts'
import { resolveBackground } from './jobs/settings.ts'
import { installLinks } from './links/host.ts'
import { catalogOn, hostAddress } from './hosts.ts'
import type { Hosted } from './mcp/registry.ts'
import { resolveOptions, type GptAddress, type GptOptions, type LocalGptOptions, type SharedGptAddress, type SharedGptOptions, type Settings } from './address/options.ts'
import type { ShareOptions } from './store/share.ts'
import { installRateLimit } from './address/rate-limit.ts'
import { reviewed } from './address/review.ts'

/**
 * One GPT address: GET publishes the form, POST enforces it. Everything it installs (parser,
 * validator compiler, error handler, rate limit and its quieting hook) stays inside its own
 * encapsulated instance.
 */
async function plugin (instance: FastifyInstance, options: GptOptions): Promise<void> {
  const path = instance.prefix === '' ? '/' : instance.prefix
  const settings = settle(options as unknown as Record<string, unknown>, path, instance.log)
  const address = new Address(settings)
  await address.share(instance.log)
  installLinks(instance, address, settings.links)
  // RFC 9727 §3: where the host serves an API catalog (fastify-gpt/catalog, registered anywhere
  // before or after this address), the arrival names it; that is known once the host is ready.
  instance.addHook('onReady', async () => {
    const catalog = catalogOn(instance.server)
    if (catalog !== undefined) address.catalogued(catalog)
  })
  instance.addHook('onClose', async () => { await address.close() })

  await installRateLimit(instance, settings)
  instance.decorateRequest('gptActor', undefined)
  installArrival(instance, address, settings)
  const door = new Door()
  const { act, background } = await installJobs(instance, settings, door)
  const idempotency = installIdempotency(settings.idempotency, path, settings.share, instance.log)
  if (idempotency !== undefined) {
    await idempotency.start()
    instance.addHook('onClose', idempotency.close)
  }
  installAct(instance, address, settings, { act, door, guard: idempotency?.guard })
  // Its record on the host, for the links of others and the MCP bridge (src/mcp/registry.ts):
  // entered before the host is ready, so an address's links resolve against every other.
  const hosted: Hosted = { path, address, settings, door, background }
  const leave = hostAddress(instance.server, hosted)
  instance.addHook('onClose', async () => { leave() })
  settings.onAddress?.(address)
}

/**
 * Every option checked, defaulted and frozen, once, before anything connects: the address's own
 * (src/address/options.ts), lint's review of the form, `background` and `idempotency`. A bad
 * `background` fails registration before Redis is asked anything.
 */
function settle (options: Record<string, unknown>, path: string, log: FastifyBaseLogger): Settings {
  const resolved = resolveOptions(options, path)
  return Object.freeze({
    ...resolved,
    ...reviewed(resolved, options['maxDepth'] !== undefined, log),
    background: resolveBackground(resolved.background, resolved),
    idempotency: resolveIdempotency(resolved.idempotency, path)
  })
}

declare const brand: unique symbol

/**
 * Every option in one type, and a brand no literal has. Fastify's own `register` overloads take
 * their options type from Gpt's call signature, so they never accept a literal, and their error,
 * the one TypeScript reports when ours refuse it too, names the option at fault.
 */
interface EveryOption extends Omit<LocalGptOptions, 'share' | 'onAddress'> {
  share?: ShareOptions
  onAddress?: (address: GptAddress | SharedGptAddress) => void
  readonly [brand]: true
}

/**
 * The plugin, as `app.register` sees it: the overloads below accept it, so `act` sees the body
 * type inferred from a `const` form and a misspelt option is a type error. Fastify's own overloads
 * never accept it (EveryOption); TypeScript reports the last overload that failed, and merges
 * them after ours, so what a host reads is theirs: `'promt' does not exist in type ...`.
 */
export interface Gpt {
  /** Tells this copy's plugin from another's at once, so overload resolution stays cheap. */
  readonly [brand]: true
  (instance: FastifyInstance, options: EveryOption): Promise<void>
}

declare module 'fastify' {
  // An overload for `app.register(gpt, options)` that infers the form's type from the options, so
  // `act`'s body is typed (Fastify's own overloads would fix the options type first). Merged
  // declarations must repeat the type parameters, used or not. Options with `share` come first,
  // so that onAddress is handed the address whose update() returns a promise; a value typed as
  // the union of both takes the last.
  /* eslint-disable @typescript-eslint/no-unused-vars */
  interface FastifyRegister<
    T = void,
    RawServer extends RawServerBase = RawServerDefault,
    TypeProviderDefault extends FastifyTypeProvider = FastifyTypeProvider,
    LoggerDefault extends FastifyBaseLogger = FastifyBaseLogger
  > {
    <const F extends object>(plugin: Gpt, options: SharedGptOptions<F> & RegisterOptions): T
    <const F extends object>(plugin: Gpt, options: LocalGptOptions<F> & RegisterOptions): T
    <const F extends object>(plugin: Gpt, options: GptOptions<F> & RegisterOptions): T
  }
  /* eslint-enable @typescript-eslint/no-unused-vars */
}

export const gpt = fp(plugin as FastifyPluginAsync<GptOptions>, {
  fastify: '5.x',
  name: 'fastify-gpt',
  encapsulate: true // keeps Fastify's `prefix` working and everything above inside the address
}) as unknown as Gpt

export default gpt
export * from './errors.ts'
export { DEFAULT_BODY_LIMIT, DEFAULT_BODY_TIMEOUT, DEFAULT_RATE_LIMIT } from './address/options.ts'
export { MAX_DEPTH_CEILING } from './address/review.ts'
export { keepTickObject } from './address/tick.ts'
export { DEFAULT_LIMITS, type Limits, type LimitsOption } from './limits.ts'
export type { Body } from './address/body.ts'
export type {
  Act, ActContext, AddressView, BackgroundOptions, IdempotencyOptions, Content, ContentChange, GptAddress, GptOptions, LocalGptOptions, Message, SharedGptAddress, SharedGptOptions, Update
} from './address/options.ts'
export type { ShareOptions, SharedRedis } from './store/share.ts'
export type { Json, JsonObject } from './form/compile.ts'
export type { ActTrace, EditionMessage, Outcome, RefusalMessage, Stage, Via } from './diagnostics.ts'
export { withLinks } from './links/result.ts'
export type { Link, LinkOption } from './links/option.ts'
// Keeps act.ts's `request.gptActor` declaration reachable from the package's types (index.d.ts).
export type {} from './address/act.ts'
