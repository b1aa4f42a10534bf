import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'

// The test runner gives no --expose-gc: the flag set now makes `gc` for contexts made after it.
setFlagsFromString('--expose-gc')
const gc = runInNewContext('gc') as () => void

/** The heap once garbage is collected, after the current turn has let go of what it held. */
export async function settledHeap (): Promise<number> {
  await new Promise((resolve) => setImmediate(resolve))
  gc()
  return process.memoryUsage().heapUsed
}
