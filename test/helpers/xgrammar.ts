// XGrammar's own JSON Schema converter (@mlc-ai/web-xgrammar), for the tests: loaded, and its
// actor walked, through the checker's one door to it (src/check/xgrammar.ts).
import type { Json } from '../../src/form/compile.ts'
import { load, quietly, walk, type Disposable, type Walked, type XGrammar } from '../../src/check/xgrammar.ts'
import type { Converter } from './lint-check.ts'
import { need } from './test-packages.js'

export { VOCABULARY } from '../../src/check/xgrammar.ts'

need('@mlc-ai/web-xgrammar')
// A converter that aborted (its way of refusing a form) is not to be trusted after: a fresh one.
let xgrammar: XGrammar = load()

interface Grammar { readonly grammar: Disposable, readonly by: XGrammar }

/** The grammar XGrammar compiles a schema into (strict mode, as vLLM and SGLang use it), or the error. */
export const compile = (schema: Json): Promise<{ grammar: Grammar } | { error: unknown }> => quietly(() =>
  xgrammar.Grammar.fromJSONSchema(JSON.stringify(schema)).then((grammar) => ({ grammar: { grammar, by: xgrammar } }), (error: unknown) => {
    xgrammar = load()
    return { error }
  }))

/** Whether the grammar accepts the whole text. */
export const accepts = ({ grammar, by }: Grammar, text: string): Promise<boolean> => quietly(() => by.Testings.isGrammarAcceptString(grammar, text))

/** Frees a grammar's memory in the converter. */
export const release = ({ grammar }: Grammar): void => grammar.dispose()

/** XGrammar, as test/helpers/lint-check.ts holds lint's xgrammar profile to it. */
export const XGRAMMAR: Converter<Grammar> = {
  decoder: 'xgrammar',
  nearMisses: 1500,
  batch: 1,
  compile,
  accepts: async (grammar, texts) => {
    const out: boolean[] = []
    for (const text of texts) out.push(await accepts(grammar, text))
    return out
  },
  release
}

/** Bodies an actor under XGrammar writes for a schema (src/check/xgrammar.ts `walk`), or the converter's refusal. */
export async function act (schema: Json, options: { next: () => number, bodies?: number, patience?: number, maxTokens?: number }): Promise<Walked> {
  const walked = await walk(xgrammar, schema, { bodies: 20, ...options })
  if ('error' in walked) xgrammar = load()
  return walked
}
