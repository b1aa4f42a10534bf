// The decoder actor at work, in a thread of its own: XGrammar compiles s and writes bodies
// (xgrammar.ts). A form can make its converter take long or much memory (a bound of thousands
// unrolled into the grammar); here that costs a thread the checker ends, never the checker.
import { parentPort, workerData } from 'node:worker_threads'
import { random } from './generate.ts'
import { load, refusal, walk, type Walked } from './xgrammar.ts'

export interface Task {
  readonly form: unknown
  readonly bodies: number
  readonly seed: number
  readonly maxTokens: number
}

const task = workerData as Task
// The converter says why it refuses a form on the console it found when loaded, then aborts: this
// thread's console, kept, so that the report gives its words.
const said: string[] = []
console.log = console.warn = console.error = (...words: unknown[]) => { said.push(words.map(String).join(' ')) }
let reply: Walked
try {
  reply = await walk(load(), task.form, { next: random(task.seed), bodies: task.bodies, maxTokens: task.maxTokens })
  /* c8 ignore next 3: walk() answers a converter's refusal as its result, so no test can reach this; a fault of its own still gets the thread an answer */
} catch (error) {
  reply = { error: error instanceof Error ? error.message : String(error) }
}
parentPort?.postMessage('error' in reply ? { error: refusal(said) ?? reply.error } : reply)
