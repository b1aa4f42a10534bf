#!/usr/bin/env node
// fastify-gpt <command> [arguments]: each command is a module of dist/cli/ exporting main(argv),
// which resolves to the exit status: 0 done and nothing failed, 1 something failed, 2 not done.
import { readFileSync } from 'node:fs'

const COMMANDS = {
  check: ['check.js', 'check a GPT address at a URL against draft-ferguson-gpt-00'],
  lint: ['lint.js', 'lint a form (a file, or the s of an address at a URL)']
}
const USAGE = `usage: fastify-gpt <${Object.keys(COMMANDS).join(' | ')}> [arguments]

${Object.entries(COMMANDS).map(([name, [, what]]) => `  ${name.padEnd(7)}${what}`).join('\n')}

  fastify-gpt <command> --help   the command's options
  fastify-gpt --version          the version

Exit status: 0 done, nothing failed; 1 done, something failed; 2 not done (usage, unreachable, unreadable).
`

/** Anything unforeseen ends the command in one line, never a stack trace. */
function fail (error) {
  process.stderr.write(`fastify-gpt: ${error instanceof Error ? error.message : String(error)}\n`)
  process.exit(2)
}
process.on('uncaughtException', fail)
process.on('unhandledRejection', fail)

const [name, ...argv] = process.argv.slice(2)
if (name === '--help' || name === '-h') process.stdout.write(USAGE)
else if (name === '--version') {
  process.stdout.write(`fastify-gpt ${JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version}\n`)
} else if (name === undefined || !Object.hasOwn(COMMANDS, name)) {
  process.stderr.write(name === undefined ? USAGE : `fastify-gpt: no command ${JSON.stringify(name)}\n\n${USAGE}`)
  process.exitCode = 2
} else {
  const { main } = await import(new URL(`../dist/cli/${COMMANDS[name][0]}`, import.meta.url))
  process.exitCode = await main(argv)
}
