import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { createConnection } from 'node:net'
import { setTimeout as sleep } from 'node:timers/promises'
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

/** Waits for `condition` to hold, checking every 25 ms, at most `tries` times. */
export async function until (condition: () => Promise<boolean> | boolean, what: string, tries = 400): Promise<void> {
  for (let i = 0; i < tries; i++) {
    if (await condition()) return
    await sleep(25)
  }
  throw new Error(`never happened: ${what}`)
}

/** A real redis-server on a free loopback port, started and answering. */
export async function runningRedis (): Promise<{ port: number, server: ChildProcess }> {
  const port = await freePort()
  const server = startRedis(port)
  await waitForRedis(port)
  return { port, server }
}
