#!/usr/bin/env node
// fastify-gpt <command> [arguments]: each command is a module of dist/cli/ exporting main(argv),
// which resolves to the exit status.
const COMMANDS = {
  check: 'check.js',
  lint: 'lint.js'
}

const [name, ...argv] = process.argv.slice(2)
const file = Object.hasOwn(COMMANDS, name ?? '') ? COMMANDS[name] : undefined
if (file === undefined) {
  process.stderr.write(`usage: fastify-gpt <${Object.keys(COMMANDS).join(' | ')}> [arguments]\n`)
  process.exitCode = 2
} else {
  const { main } = await import(new URL(`../dist/cli/${file}`, import.meta.url))
  process.exitCode = await main(argv)
}
