// The packages only the tests need (test/packages/package.json), which `npm run setup:test` links
// into node_modules/ and `npm install` does not bring: where one is missing, what needs it fails in
// one line that says how to get it, never skips. Three doors: the module hook test/register.js
// registers (an import of one), `need` (a test that reaches one through require or a child
// process), and, run as a command, a script's check (`node test/helpers/test-packages.js [name...]`:
// the type-check, which reads their types, and check:package, which runs arethetypeswrong).
import { existsSync, readFileSync } from 'node:fs'

const NAMES = Object.keys(JSON.parse(readFileSync(new URL('../packages/package.json', import.meta.url), 'utf8')).dependencies)

/** The one line said when `names` are missing. @param {string[]} names */
export const missing = (names) =>
  `${names.join(', ')} ${names.length === 1 ? 'is' : 'are'} not installed: run \`npm run setup:test\` (it installs what only the tests need, test/packages/)`

/** @param {string} name */
const installed = (name) => existsSync(new URL(`../../node_modules/${name}/package.json`, import.meta.url))

/** Throws `missing`'s line unless `name` is in node_modules/. @param {string} name */
export function need (name) {
  if (!installed(name)) throw new Error(missing([name]))
}

/**
 * The module hook: an import of a missing one fails with `missing`'s line.
 * @param {string} specifier
 * @param {unknown} context
 * @param {(specifier: string, context: unknown) => Promise<unknown>} next
 */
export async function resolve (specifier, context, next) {
  try {
    return await next(specifier, context)
  } catch (error) {
    const name = NAMES.find((n) => specifier === n || specifier.startsWith(`${n}/`))
    if (name === undefined || /** @type {{ code?: string }} */ (error).code !== 'ERR_MODULE_NOT_FOUND') throw error
    throw new Error(missing([name]))
  }
}

// The command: those named, or all of them, installed, or one line and exit 1.
if (import.meta.url === `file://${process.argv[1]}`) {
  const absent = (process.argv.length > 2 ? process.argv.slice(2) : NAMES).filter((name) => !installed(name))
  if (absent.length > 0) {
    console.error(missing(absent))
    process.exitCode = 1
  }
}
