import { Worker } from 'node:worker_threads'
import type { Task } from './decoder-worker.ts'
import type { Walked } from './xgrammar.ts'

// The decoder actor's bodies, from a thread bounded in time and memory: the converter runs there,
// and a thread that does not answer in time is ended.

const here = import.meta.url
const WORKER = new URL(here.endsWith('.ts') ? './decoder-worker.ts' : './decoder-worker.js', here)
const HEAP_MB = 512

/** Bodies XGrammar writes for `form`, or why it wrote none: the converter refused, or time ran out. */
export function decode (task: Task, timeout: number): Promise<Walked> {
  return new Promise((resolve) => {
    const worker = new Worker(WORKER, { workerData: task, resourceLimits: { maxOldGenerationSizeMb: HEAP_MB }, stdout: true, stderr: true })
    let done = false
    const end = (walked: Walked): void => {
      if (done) return
      done = true
      clearTimeout(timer)
      worker.terminate().catch(() => {})
      resolve(walked)
    }
    const timer = setTimeout(() => end({ error: `the decoder wrote no bodies within ${timeout} ms` }), timeout)
    worker.on('message', (walked: Walked) => end(walked))
    worker.on('error', (error) => end({ error: `the decoder failed: ${error.message}` }))
    worker.on('exit', (code) => end({ error: `the decoder's thread ended (exit ${code})` }))
  })
}
