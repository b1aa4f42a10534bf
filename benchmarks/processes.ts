// Child processes for the benchmarks: hosts and the load generator, each pinned to its own core
// where `taskset` exists, talking to the orchestrator over IPC.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { cpus } from 'node:os'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, relative, resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

export const ROOT = resolve(fileURLToPath(new URL('.', import.meta.url)), '..')
const LOADER = pathToFileURL(resolve(ROOT, 'test/register.js')).href

/** Whether processes can be pinned: `taskset` exists and the machine has at least two cores. */
export const canPin = spawnSync('taskset', ['-c', '1', 'true']).status === 0

/** The server side gets core 1, the load generator core 0 (when pinning is possible). */
export const HOST_CORE = 1
export const LOAD_CORE = 0

export interface Child {
  readonly process: ChildProcess
  /** The first message the child sends once it is ready (a host sends its port). */
  readonly ready: Promise<Record<string, unknown>>
  /** Sends a request and resolves with the child's reply to it. */
  ask<T = Record<string, unknown>>(message: Record<string, unknown>): Promise<T>
  /** Asks the child to close and waits for it to exit (killing it after `graceMs`). */
  stop(graceMs?: number): Promise<void>
}

interface Reply { id?: number, error?: string }

/** Starts `script` (a .ts file under benchmarks/) in its own Node process, pinned to `core`. */
export function startChild (script: string, args: readonly string[], core: number | undefined, nodeFlags: readonly string[] = []): Child {
  // an absolute path to plain JavaScript runs without the TypeScript loader (see benchmarks/ladder.ts)
  const plain = script.startsWith('/') && script.endsWith('.js')
  const node = [...nodeFlags, ...(plain ? [] : ['--import', LOADER]), plain ? script : resolve(ROOT, 'benchmarks', script), ...args]
  const child = canPin && core !== undefined
    ? spawn('taskset', ['-c', String(core), process.execPath, ...node], { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
    : spawn(process.execPath, node, { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })

  let nextId = 1
  const pending = new Map<number, { resolve: (value: never) => void, reject: (error: Error) => void }>()
  let exited: Error | undefined
  const exit = new Promise<void>((resolve) => child.once('exit', (code, signal) => {
    exited = new Error(`${script} ${args.join(' ')} exited (${signal ?? code})`)
    for (const waiter of pending.values()) waiter.reject(exited)
    pending.clear()
    resolve()
  }))

  const ready = new Promise<Record<string, unknown>>((resolve, reject) => {
    child.once('message', (message) => resolve(message as Record<string, unknown>))
    child.once('exit', () => reject(exited))
    child.once('error', reject)
  })
  child.on('message', (message: Reply) => {
    if (message.id === undefined) return
    const waiter = pending.get(message.id)
    if (waiter === undefined) return
    pending.delete(message.id)
    if (message.error !== undefined) waiter.reject(new Error(`${script}: ${message.error}`))
    else waiter.resolve(message as never)
  })

  return {
    process: child,
    ready,
    ask<T>(message: Record<string, unknown>): Promise<T> {
      if (exited !== undefined) return Promise.reject(exited)
      const id = nextId++
      return new Promise<T>((resolve, reject) => {
        pending.set(id, { resolve: resolve as (value: never) => void, reject })
        child.send({ ...message, id })
      })
    },
    async stop (graceMs = 10_000): Promise<void> {
      if (exited !== undefined) return
      if (child.connected) child.send({ type: 'close' })
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs)
      await exit
      clearTimeout(timer)
    }
  }
}

/** Answers the orchestrator's requests in a child: `handle` returns the reply's fields. */
export function serve (handle: (message: Record<string, unknown>) => Promise<Record<string, unknown>> | Record<string, unknown>): void {
  process.on('message', (message: Record<string, unknown> & { id?: number }) => {
    Promise.resolve()
      .then(() => handle(message))
      .then(
        (reply) => process.send?.({ ...reply, id: message.id }),
        (error: unknown) => process.send?.({ id: message.id, error: error instanceof Error ? error.stack ?? error.message : String(error) })
      )
  })
  // the orchestrator went away: do not linger
  process.on('disconnect', () => process.exit(0))
}

export const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = sorted.length >> 1
  return sorted.length % 2 === 1 ? sorted[middle] as number : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2
}

/** What every results file says of where it was measured. */
export function machine (): Record<string, unknown> {
  return {
    date: new Date().toISOString(),
    node: process.version,
    cpu: cpus()[0]?.model ?? 'unknown',
    cores: cpus().length,
    pinned: canPin ? { hosts: HOST_CORE, autocannon: LOAD_CORE } : false
  }
}

/** Writes a results file as JSON and says where. */
export function writeResults (out: string, report: { totalSeconds: number }): void {
  mkdirSync(dirname(out), { recursive: true })
  writeFileSync(out, `${JSON.stringify(report, null, 2)}\n`)
  console.log(`\nwritten to ${relative(ROOT, out)} in ${report.totalSeconds} s`)
}

/** Clock ticks per second, the unit of /proc/<pid>/stat's CPU times. */
export const TICKS = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout?.trim()) || 100

/** A process's user + system CPU seconds so far (proc(5): fields 14 and 15 of its stat). */
export function cpuSeconds (pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  // the command name, in parentheses, may hold spaces: count fields after its closing one
  const fields = stat.slice(stat.lastIndexOf(') ') + 2).split(' ')
  return (Number(fields[11]) + Number(fields[12])) / TICKS
}

/** A process's resident set size in bytes (proc(5): VmRSS of its status). */
export function rssBytes (pid: number): number {
  const line = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
  return line === null ? Number.NaN : Number(line[1]) * 1024
}
