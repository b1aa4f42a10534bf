#!/usr/bin/env node
// fastify-gpt <command> [arguments]: each command is a module of dist/cli/ exporting main(argv).
const COMMANDS = {
  check: '../dist/cli/check.js'
}

const [name, ...argv] = process.argv.slice(2)
const path = COMMANDS[name]
if (path === undefined) {
  process.stderr.write(`Usage: fastify-gpt <command> [arguments]\nCommands: ${Object.keys(COMMANDS).join(', ')}\n`)
  process.exitCode = 2
} else {
  const { main } = await import(path)
  process.exitCode = await main(argv)
}
