// A file generated into src/ by a build script: written, or with `--check` only compared (exit 1
// when stale). The tests compare the same way, so a stale file fails `npm test` too.
import { readFileSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

export function writeOrCheck (target: URL, text: string, command: string): void {
  if (!process.argv.includes('--check')) return writeFileSync(target, text)
  if (readFileSync(target, 'utf8') === text) return
  console.error(`${fileURLToPath(target)} is stale: run npm run ${command}`)
  process.exit(1)
}
