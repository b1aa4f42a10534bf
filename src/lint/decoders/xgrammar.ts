// XGrammar, as @mlc-ai/web-xgrammar 0.1.27 compiles it (strict mode, the default of vLLM and
// SGLang): src/lint/xgrammar.ts walks the form as its converter does, once per lint; every
// judgement is checked against the converter by test/lint/xgrammar.test.ts.
import { converterWalk } from '../xgrammar.ts'
import type { Context, Judgement, Profile } from './profile.ts'

const walks = new WeakMap<Context, Map<string, Judgement[]>>()
export const xgrammar: Profile = {
  name: 'xgrammar',
  version: '@mlc-ai/web-xgrammar 0.1.27 (run in the tests); where 0.2.5 and later differ, the finding says so',
  runtimes: 'vLLM, SGLang, Ollama (MLX runner), MLC',
  judge (_, place, context) {
    let said = walks.get(context)
    if (said === undefined) walks.set(context, said = converterWalk(context.form))
    return said.get(place.pointer) ?? []
  }
}
