// A Redis client's connection and one pub/sub channel: what the shared editions
// (src/store/editions.ts) and the shared jobs (src/jobs/shared.ts) each subscribe with.
import type { SharedRedis } from './share.ts'

/** How long registration waits for Redis before it fails. */
const START_TIMEOUT = 10_000

/** Resolves once the client is connected; rejects if it gives up or is not connected after START_TIMEOUT. */
export async function ready (redis: SharedRedis): Promise<void> {
  if (redis.status === 'ready') return
  if (redis.status === 'wait') redis.connect().catch(() => {}) // lazyConnect: the first command would connect it
  await new Promise<void>((resolve, reject) => {
    const settle = (error?: Error): void => {
      clearTimeout(timer)
      redis.off('ready', onReady)
      redis.off('end', onEnd)
      if (error === undefined) resolve()
      else reject(error)
    }
    const onReady = (): void => { settle() }
    const onEnd = (): void => { settle(new Error('the Redis client gave up connecting')) }
    const timer = setTimeout(() => { settle(new Error(`Redis not ready after ${START_TIMEOUT} ms (${redis.status})`)) }, START_TIMEOUT)
    redis.on('ready', onReady)
    redis.on('end', onEnd)
  })
}

/**
 * A connection of its own (a subscribed client can send nothing else) to one channel, its
 * messages handed to `onMessage`. It reconnects by itself, and its errors are those reconnections.
 */
export class Subscriber {
  readonly #client: SharedRedis
  readonly #channel: string
  readonly #onMessage: (channel: string, message: string) => void
  #onReady: (() => void) | undefined

  constructor (redis: SharedRedis, channel: string, onMessage: (channel: string, message: string) => void) {
    this.#client = redis.duplicate()
    this.#channel = channel
    this.#onMessage = onMessage
    this.#client.on('error', () => {})
    this.#client.on('message', onMessage)
  }

  /** Connected and subscribed; rejects as `ready` does. */
  async start (): Promise<void> {
    await ready(this.#client)
    await this.#client.subscribe(this.#channel)
  }

  /** Calls `then` after each reconnection, once the channel is subscribed again. */
  resubscribed (then: () => void): void {
    this.#onReady = () => { this.#client.subscribe(this.#channel).then(then, () => {}) }
    this.#client.on('ready', this.#onReady)
  }

  async close (): Promise<void> {
    if (this.#onReady !== undefined) this.#client.off('ready', this.#onReady)
    this.#client.off('message', this.#onMessage)
    await this.#client.quit().catch(() => {})
  }
}
