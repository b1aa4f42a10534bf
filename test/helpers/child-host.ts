import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'

/** A host in a process of its own: the child, the stdout line that said it was ready, and its end. */
export interface ChildHost {
  child: ChildProcess
  /** The first line of stdout that `ready` accepted (a fixture host prints its URL and nothing else). */
  line: string
  stop: () => Promise<void>
}

export interface ChildOptions {
  /** Added to this process's environment. */
  env?: Record<string, string>
  /** Which stdout line says the host is ready; by default the first. */
  ready?: (line: string) => boolean
  /** A generous bound on starting, so that a host that never gets ready fails the test instead of hanging it. */
  within?: number
}

/**
 * Starts `node ...args` from the package root and resolves once a whole line of its stdout
 * satisfies `ready`; rejects with what it printed if it exits first or is not ready `within` ms
 * (then it is ended). Its stdout is read to the end, so a host that logs on every request never
 * blocks on a full pipe; its stderr is ours.
 */
export async function startChild (args: string[], options: ChildOptions = {}): Promise<ChildHost> {
  const { env = {}, ready = () => true, within = 60_000 } = options
  const child = spawn(process.execPath, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] })
  const stop = (): Promise<void> => stopChild(child)
  const line = await new Promise<string>((resolve, reject) => {
    let out = ''
    let done = false
    const settle = (): boolean => {
      if (done) return false
      done = true
      clearTimeout(timer)
      return true
    }
    const fail = (why: string): void => {
      if (settle()) reject(new Error(`node ${args.join(' ')} ${why}; it printed: ${out}`))
    }
    const timer = setTimeout(() => { fail(`was not ready within ${within} ms`); child.kill() }, within)
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      if (done) return
      out += chunk
      // The last piece has no newline yet: a line still being written is not read.
      const found = out.split('\n').slice(0, -1).find(ready)
      if (found !== undefined && settle()) resolve(found.trim())
    })
    child.once('exit', (code, signal) => fail(`ended (${signal ?? code}) before it was ready`))
  })
  return { child, line, stop }
}

/** Starts a test fixture host (`test/fixtures/NAME.ts ...args`, from the sources) and resolves to it and its URL. */
export async function startFixtureHost (fixture: string, args: string[], env?: Record<string, string>): Promise<ChildHost & { url: string }> {
  const started = await startChild(['--import', './test/register.js', `test/fixtures/${fixture}.ts`, ...args], env === undefined ? {} : { env })
  return { ...started, url: started.line }
}

/** Ends a child process and waits until it has: a test's `after` leaves nothing running. */
export async function stopChild (child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return
  const exited = once(child, 'exit')
  child.kill()
  await exited
}
