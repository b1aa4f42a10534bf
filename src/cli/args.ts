// What every subcommand shares: one argument parser (node:util parseArgs), the options every
// command takes (--help, --version, --json, --verbose), where output goes, and the exit statuses.
import { readFileSync } from 'node:fs'
import { parseArgs, type ParseArgsConfig } from 'node:util'
import { visible } from '../check/visible.ts'

/** Exit statuses, the same for every command (docs/checking.md, docs/forms.md). */
export const EXIT = {
  /** Done, and nothing failed. */
  ok: 0,
  /** Done, and something failed: a MUST of the draft, an error in the form. */
  failed: 1,
  /** Not done: a usage error, or what it was given could not be read, reached or checked. */
  cannot: 2
} as const

/** Where a command writes: its report to `out`, usage errors, progress and what it could not do to `err`. */
export interface Io {
  readonly out: (text: string) => void
  readonly err: (text: string) => void
  /** Whether `err` is a terminal a person watches: progress goes there then. */
  readonly tty?: boolean
}

export const STD: Io = {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
  tty: process.stderr.isTTY === true
}

export type Options = NonNullable<ParseArgsConfig['options']>

const COMMON: Options = {
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean' },
  json: { type: 'boolean' },
  verbose: { type: 'boolean' }
}

export const COMMON_USAGE = `  --json             print the result as JSON
  --verbose          say on stderr what it waits for (always, when stderr is a terminal)
  -h, --help         print this help
  --version          print the version of fastify-gpt`

/** The version of this package, read from its package.json. */
export function version (): string {
  const text = readFileSync(new URL('../../package.json', import.meta.url), 'utf8')
  return (JSON.parse(text) as { version: string }).version
}

export interface Parsed {
  readonly values: Readonly<Record<string, string | boolean | string[] | undefined>>
  readonly positionals: readonly string[]
}

/**
 * The command line after the command's name, parsed the one way every command does: `--name
 * value` and `--name=value` alike. Resolves to what was asked, or to the exit status when it was
 * --help, --version or a usage error (said on `io`).
 */
export function parse (command: string, usage: string, argv: readonly string[], options: Options, io: Io): Parsed | number {
  let parsed
  try {
    parsed = parseArgs({ args: [...argv], allowPositionals: true, strict: true, options: { ...COMMON, ...options } })
  } catch (error) {
    return usageError(command, usage, (error as Error).message, io)
  }
  if (parsed.values['help'] === true) {
    io.out(usage)
    return EXIT.ok
  }
  if (parsed.values['version'] === true) {
    io.out(`fastify-gpt ${version()}\n`)
    return EXIT.ok
  }
  return parsed as Parsed
}

/** A usage error: what was wrong, in one line, then the usage; exit 2. */
export function usageError (command: string, usage: string, message: string, io: Io): number {
  io.err(`fastify-gpt ${command}: ${visible(message)}\n\n${usage}`)
  return EXIT.cannot
}

/** What the command could not do, in one line; exit 2. */
export function cannot (command: string, message: string, io: Io): number {
  io.err(`fastify-gpt ${command}: ${visible(message)}\n`)
  return EXIT.cannot
}

/** An integer option: its value, undefined if not given, or a usage message. */
export function integer (values: Parsed['values'], name: string, least = 0): number | undefined | string {
  const text = values[name]
  if (text === undefined) return undefined
  if (typeof text !== 'string' || !/^\d+$/.test(text) || !Number.isSafeInteger(Number(text)) || Number(text) < least) {
    return `--${name} takes ${least === 0 ? 'a non-negative' : 'a positive'} integer, not "${String(text)}"`
  }
  return Number(text)
}

/** A count with its noun, pluralised: `1 error`, `2 errors`. */
export const count = (n: number, noun: string, plural = `${noun}s`): string => `${n} ${n === 1 ? noun : plural}`
