import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { createConnection } from 'node:net'
import { setTimeout as sleep } from 'node:timers/promises'
import { Redis, type RedisOptions } from 'ioredis'
import { freePort } from './port.ts'

/** A real redis-server (Debian's package, installed by .ci/run) on a loopback port, keeping nothing on disk. */
export function startRedis (port: number): ChildProcess {
  return spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' })
}

export async function stopRedis (redis: ChildProcess): Promise<void> {
  if (redis.exitCode !== null || redis.signalCode !== null) return
  redis.kill()
  await once(redis, 'exit')
}

export async function waitForRedis (port: number): Promise<void> {
  for (let i = 0; i < 100; i++) {
    const ok = await new Promise<boolean>((resolve) => {
      const socket = createConnection(port)
      socket.once('data', (data) => { socket.destroy(); resolve(data.toString().startsWith('+PONG')) })
      socket.once('error', () => resolve(false))
      socket.write('PING\r\n')
    })
    if (ok) return
    await sleep(50)
  }
  throw new Error('redis-server did not start')
}

/** A redis-server of a test's own, on a free loopback port, answering PING. */
export interface RedisServer {
  readonly port: number
  /** A client that fails fast while the server is away (docs/deploying.md), ended by `stop`. */
  client: (options?: RedisOptions) => Redis
  /** A client as `client` makes it, once it is ready (before, a command fails at once). */
  ready: (options?: RedisOptions) => Promise<Redis>
  /** Ends the server (a restart later starts it empty: it keeps nothing on disk). */
  kill: () => Promise<void>
  /** Starts it again on the same port, empty, and waits until it answers. */
  restart: () => Promise<void>
  /** Stops the server in its tracks (SIGSTOP): its connections stay open and nothing answers. */
  freeze: () => void
  /** Lets a frozen server go on (SIGCONT). */
  thaw: () => void
  /** Disconnects every client it made, then ends the server. */
  stop: () => Promise<void>
}

export async function redisServer (): Promise<RedisServer> {
  const port = await freePort()
  let server = startRedis(port)
  await waitForRedis(port)
  const clients: Redis[] = []
  const client = (options: RedisOptions = {}): Redis => {
    const redis = new Redis({ host: '127.0.0.1', port, enableOfflineQueue: false, maxRetriesPerRequest: 0, ...options })
    redis.on('error', () => {}) // the client reconnects by itself; the tests watch the answers
    clients.push(redis)
    return redis
  }
  return {
    port,
    client,
    ready: async (options) => {
      const redis = client(options)
      await until(() => redis.status === 'ready', 'a client is ready')
      return redis
    },
    kill: () => stopRedis(server),
    freeze: () => { server.kill('SIGSTOP') },
    thaw: () => { server.kill('SIGCONT') },
    restart: async () => {
      await stopRedis(server)
      server = startRedis(port)
      await waitForRedis(port)
    },
    stop: async () => {
      for (const client of clients) client.disconnect()
      server.kill('SIGCONT') // a frozen server ends too
      await stopRedis(server)
    }
  }
}

/** Waits for `condition` to hold, checking every 25 ms, at most `tries` times. */
export async function until (condition: () => Promise<boolean> | boolean, what: string, tries = 400): Promise<void> {
  for (let i = 0; i < tries; i++) {
    if (await condition()) return
    await sleep(25)
  }
  throw new Error(`never happened: ${what}`)
}
