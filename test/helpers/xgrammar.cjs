// XGrammar's own JSON Schema converter (@mlc-ai/web-xgrammar), loaded as the CommonJS it is: the
// package declares "type": "module" but ships a UMD bundle, so require() would read it as ESM.
const { createRequire, Module } = require('node:module')
const { readFileSync } = require('node:fs')
const { dirname } = require('node:path')

const file = createRequire(__filename).resolve('@mlc-ai/web-xgrammar/lib/index.js')
const source = readFileSync(file, 'utf8')
function load () {
  const bundle = new Module(file, module)
  bundle.filename = file
  bundle.paths = Module._nodeModulePaths(dirname(file))
  bundle._compile(source, file)
  return bundle.exports
}
// A converter that aborted (its way of refusing a form) is not to be trusted after: a fresh one.
let xgrammar = load()

/** Runs fn with the converter's own warnings (printed to the console) silenced. */
async function quietly (fn) {
  const saved = [console.log, console.warn, console.error]
  console.log = console.warn = console.error = () => {}
  try {
    return await fn()
  } finally {
    [console.log, console.warn, console.error] = saved
  }
}

/** The grammar XGrammar compiles a schema into (strict mode, as vLLM and SGLang use it), or the error. */
const compile = (schema) => quietly(() => xgrammar.Grammar.fromJSONSchema(JSON.stringify(schema)).then((grammar) => ({ grammar: { grammar, by: xgrammar } }), (error) => {
  xgrammar = load()
  return { error }
}))

/** Whether the grammar accepts the whole text. */
const accepts = ({ grammar, by }, text) => quietly(() => by.Testings.isGrammarAcceptString(grammar, text))

/** Frees a grammar's memory in the converter. */
const release = ({ grammar }) => grammar.dispose()

// A model's vocabulary in small: every printable ASCII character, whitespace and control
// characters (real vocabularies hold byte tokens for them), characters of two to four UTF-8 bytes,
// line and paragraph separators, and tokens of several characters as JSON and escapes come.
const STOP = '</s>'
const VOCABULARY = [
  ...Array.from({ length: 0x7f - 0x20 }, (_, i) => String.fromCharCode(0x20 + i)),
  '\t', '\n', '\r', '\u0001', '\u001f', '\u007f',
  'é', 'ß', '中', '文', '😀', '\u2028', '\u2029',
  '{"', '":', '": ', '","', '", "', '"}', '},', '],', 'true', 'false', 'null', '00', '10', '.5', 'e+', 'e-', 'E',
  '\\u', '\\"', '\\\\', '\\n', 'd8', 'dc', '00', 'a', 'an', 'the', ' note', 'note', 'author', 'choice', 'tabs', 'spaces', 'name', 'children',
  STOP
]

/** The vocabulary, the tokenizer information and the compiler built on it: once a process (or after an abort). */
let decoding
async function decoder () {
  if (decoding?.by === xgrammar) return decoding
  const by = xgrammar
  const info = await by.TokenizerInfo.createTokenizerInfo(VOCABULARY, 'raw', false, undefined, [VOCABULARY.length - 1])
  decoding = { by, compiler: await by.GrammarCompiler.createGrammarCompiler(info, false) }
  return decoding
}

// Tokens that bring a value to its end, preferred once a walk is long enough.
const CLOSING = new Set(['"', '}', ']', '"}', '},', '],', STOP])

/**
 * An actor under XGrammar: the form compiled as vLLM and SGLang compile it, then walks of its
 * GrammarMatcher with random choices (`next`, numbers in [0, 1): seeded, for walks that repeat)
 * among the tokens it allows, as a model sampling under the grammar would. Past `patience` tokens a walk takes a closing token when one is allowed, so
 * that walks end; a walk still going at `maxTokens` is dropped. Resolves to the bodies' texts, or
 * to `{ error }` when the converter refuses the form.
 */
async function act (schema, { next, bodies = 20, patience = 24, maxTokens = 800 }) {
  const { by, compiler } = await decoder()
  let compiled
  try {
    compiled = await quietly(() => compiler.compileJSONSchema(JSON.stringify(schema)))
  } catch (error) {
    xgrammar = load()
    return { error }
  }
  const texts = []
  let dropped = 0
  try {
    for (let n = 0; n < bodies; n++) {
      const matcher = await by.GrammarMatcher.createGrammarMatcher(compiled)
      const limit = patience + Math.floor(next() * patience)
      let text = ''
      let steps = 0
      for (; steps < maxTokens && !matcher.isTerminated(); steps++) {
        const mask = await matcher.getNextTokenBitmask()
        const allowed = []
        for (let id = 0; id < VOCABULARY.length; id++) if ((mask[id >> 5] >>> (id & 31)) & 1) allowed.push(id)
        const closing = steps >= limit ? allowed.filter((id) => CLOSING.has(VOCABULARY[id])) : []
        const from = closing.length > 0 ? closing : allowed
        const id = from[Math.floor(next() * from.length)]
        if (id === undefined || !matcher.acceptToken(id)) throw new Error(`the matcher refused the token it allowed after ${JSON.stringify(text)}`)
        if (VOCABULARY[id] !== STOP) text += VOCABULARY[id]
      }
      matcher.dispose()
      if (steps < maxTokens) texts.push(text)
      else dropped++
    }
  } finally {
    compiled.dispose()
  }
  return { texts, dropped }
}

module.exports = { compile, accepts, release, act, VOCABULARY }
