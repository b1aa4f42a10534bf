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

module.exports = { compile, accepts, release }
