// XGrammar (@mlc-ai/web-xgrammar), behind one door: the checker's decoder actor and the tests load
// it here and nowhere else. It is an optional peer dependency (docs/decisions.md): absent, the
// actor says so and nothing else changes. What it touches of the package: `lib/index.js` (a UMD
// bundle), its `package.json` (the version), and TokenizerInfo.createTokenizerInfo,
// GrammarCompiler.createGrammarCompiler / compileJSONSchema, Grammar.fromJSONSchema,
// GrammarMatcher.createGrammarMatcher / getNextTokenBitmask / acceptToken / isTerminated, and
// Testings.isGrammarAcceptString.
import { createRequire, Module } from 'node:module'
import { readFileSync } from 'node:fs'
import { dirname } from 'node:path'
import type { Walked } from './types.ts'

export type { Walked }

/** What an actor may use of the package. */
export interface XGrammar {
  readonly TokenizerInfo: { createTokenizerInfo: (vocabulary: string[], type: string, prependSpace: boolean, size: undefined, stop: number[]) => Promise<Disposable> }
  readonly GrammarCompiler: { createGrammarCompiler: (info: Disposable, cache: boolean) => Promise<Compiler> }
  readonly GrammarMatcher: { createGrammarMatcher: (grammar: Disposable) => Promise<Matcher> }
  readonly Grammar: { fromJSONSchema: (schema: string) => Promise<Disposable> }
  readonly Testings: { isGrammarAcceptString: (grammar: Disposable, text: string) => boolean }
}
export interface Disposable { dispose: () => void }
interface Compiler extends Disposable { compileJSONSchema: (schema: string) => Promise<Disposable> }
interface Matcher extends Disposable {
  getNextTokenBitmask: () => Promise<Int32Array>
  acceptToken: (id: number) => boolean
  isTerminated: () => boolean
}

const PACKAGE = '@mlc-ai/web-xgrammar'
const require = createRequire(import.meta.url)

/** Said in one line when the package is not installed. */
export const MISSING = `the xgrammar actor needs ${PACKAGE}, which is not installed: npm install ${PACKAGE}`

/** The file of the package's bundle, or undefined when it is not installed. */
function bundle (): string | undefined {
  try {
    return require.resolve(`${PACKAGE}/lib/index.js`)
    /* c8 ignore next 3: reached only where the optional peer is not installed, and the tests run with it installed (npm run setup:test) */
  } catch {
    return undefined
  }
}

/** The package's name and version, as it says, or undefined when it is not installed. */
export function installed (): string | undefined {
  const file = bundle()
  if (file === undefined) return undefined
  const { version } = JSON.parse(readFileSync(`${dirname(dirname(file))}/package.json`, 'utf8')) as { version: string }
  return `${PACKAGE} ${version}`
}

/**
 * A fresh instance of the package. It declares "type": "module" but ships a UMD bundle, so
 * import() would run it as ESM and require() refuses it: it is compiled as the CommonJS it is.
 * A converter that aborted (its way of refusing a form) is not to be trusted after: load again.
 */
export function load (): XGrammar {
  const file = bundle()
  if (file === undefined) throw new Error(MISSING)
  const loaded = new Module(file) as Module & { _compile: (source: string, file: string) => void, paths: string[] }
  loaded.filename = file
  loaded.paths = (Module as unknown as { _nodeModulePaths: (dir: string) => string[] })._nodeModulePaths(dirname(file))
  loaded._compile(readFileSync(file, 'utf8'), file)
  return loaded.exports as XGrammar
}

/**
 * Runs fn with the converter's own words (printed to the console) kept from the console: into
 * `said`, when given.
 */
export async function quietly<T> (fn: () => Promise<T> | T, said: string[] = []): Promise<T> {
  const saved = [console.log, console.warn, console.error] as const
  console.log = console.warn = console.error = (...words: unknown[]) => { said.push(words.map(String).join(' ')) }
  try {
    return await fn()
  } finally {
    [console.log, console.warn, console.error] = saved
  }
}

// A model's vocabulary in small: every printable ASCII character, whitespace and control
// characters (real vocabularies hold byte tokens for them), characters of two to four UTF-8 bytes,
// line and paragraph separators, and tokens of several characters as JSON and escapes come.
const STOP = '</s>'
export const VOCABULARY: readonly string[] = [
  ...Array.from({ length: 0x7f - 0x20 }, (_, i) => String.fromCharCode(0x20 + i)),
  '\t', '\n', '\r', '\u0001', '\u001f', '\u007f',
  'é', 'ß', '中', '文', '😀', '\u2028', '\u2029',
  '{"', '":', '": ', '","', '", "', '"}', '},', '],', 'true', 'false', 'null', '00', '10', '.5', 'e+', 'e-', 'E',
  '\\u', '\\"', '\\\\', '\\n', 'd8', 'dc', '00', 'a', 'an', 'the', ' note', 'note', 'author', 'choice', 'tabs', 'spaces', 'name', 'children',
  STOP
]
// Tokens that bring a value to its end, preferred once a walk is long enough.
const CLOSING = new Set(['"', '}', ']', '"}', '},', '],', STOP])

/** The converter's reason for refusing a form, in its own words, from what it printed as it aborted. */
export function refusal (said: readonly string[]): string | undefined {
  for (const line of [...said].reverse()) {
    const words = /\[FATAL\] [^:]*:\d+: (.*)/s.exec(line)?.[1]
    if (words !== undefined) return words.trim()
  }
  return undefined
}

export interface WalkOptions {
  /** Random numbers in [0, 1): seeded, for walks that repeat. */
  readonly next: () => number
  /** How many bodies to write. */
  readonly bodies: number
  /** Past 1 to 2 times this many tokens, a walk takes a closing token when one is allowed. Default 24. */
  readonly patience?: number
  /** A walk still going at this many tokens is dropped. Default 800. */
  readonly maxTokens?: number
}

/**
 * An actor under XGrammar: the form compiled as vLLM and SGLang compile it (strict mode, any
 * whitespace), then walks of its GrammarMatcher with random choices among the tokens it allows,
 * as a model sampling under the grammar would, without weights. `xgrammar` is spent if the
 * converter refuses the form (it aborts): the caller loads another.
 */
export async function walk (xgrammar: XGrammar, form: unknown, options: WalkOptions): Promise<Walked> {
  const { next, bodies, patience = 24, maxTokens = 800 } = options
  const info = await xgrammar.TokenizerInfo.createTokenizerInfo([...VOCABULARY], 'raw', false, undefined, [VOCABULARY.length - 1])
  const compiler = await xgrammar.GrammarCompiler.createGrammarCompiler(info, false)
  let compiled: Disposable
  const said: string[] = []
  try {
    compiled = await quietly(() => compiler.compileJSONSchema(JSON.stringify(form)), said)
  } catch (error) {
    return { error: refusal(said) ?? (error instanceof Error ? error.message : String(error)) }
  }
  const texts: string[] = []
  let dropped = 0
  try {
    for (let n = 0; n < bodies; n++) {
      const matcher = await xgrammar.GrammarMatcher.createGrammarMatcher(compiled)
      const limit = patience + Math.floor(next() * patience)
      let text = ''
      let steps = 0
      try {
        for (; steps < maxTokens && !matcher.isTerminated(); steps++) {
          const mask = await matcher.getNextTokenBitmask()
          const allowed: number[] = []
          for (let id = 0; id < VOCABULARY.length; id++) if (((mask[id >> 5] ?? 0) >>> (id & 31)) & 1) allowed.push(id)
          const closing = steps >= limit ? allowed.filter((id) => CLOSING.has(VOCABULARY[id] as string)) : []
          const from = closing.length > 0 ? closing : allowed
          const id = from[Math.floor(next() * from.length)]
          // a matcher that allows no token, or refuses the one it allowed, has a fault of its own
          if (id === undefined || !matcher.acceptToken(id)) throw new Error(`the matcher refused the token it allowed after ${JSON.stringify(text)}`)
          if (VOCABULARY[id] !== STOP) text += VOCABULARY[id] as string
        }
      } finally {
        matcher.dispose()
      }
      if (steps < maxTokens) texts.push(text)
      else dropped++
    }
  } finally {
    compiled.dispose()
    compiler.dispose()
    info.dispose()
  }
  return { texts, dropped }
}
