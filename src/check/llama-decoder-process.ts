// The llama-cpp actor at work, in a process of its own: llama.cpp converts s and its sampler writes
// bodies (llama-cpp.ts). Native code that refuses a form by aborting, or runs long inside a call,
// ends this process, never the checker; it answers the one task it is sent, then exits.
import { random } from './generate.ts'
import { load, sample } from './llama-cpp.ts'
import type { LlamaTask } from './llama-decoder.ts'
import type { Walked } from './types.ts'

process.once('message', (task: LlamaTask & { readonly model: string }) => {
  const done = (reply: Walked): void => { process.send?.(reply, () => process.exit(0)) }
  // a model that does not load ends the process, as a form the converter refuses does: the parent reads why
  sample(load(), task.model, task.form, { next: random(task.seed), bodies: task.bodies, maxTokens: task.maxTokens }).then(done, (error: unknown) => done({ error: String(error) }))
})
