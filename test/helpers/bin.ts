// The bin as users run it: from the checkout, or from a copy of the package as a user installs it
// without one optional package.
import { spawn } from 'node:child_process'
import { cpSync, mkdirSync, mkdtempSync, readdirSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

export const ROOT = new URL('../..', import.meta.url).pathname

/** Runs `fastify-gpt` with `args` from `cwd` (the checkout by default). */
export function bin (args: readonly string[], cwd = ROOT): Promise<{ code: number | null, out: string, err: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['bin/fastify-gpt.js', ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    let err = ''
    child.stdout.on('data', (chunk: Buffer) => { out += chunk.toString() })
    child.stderr.on('data', (chunk: Buffer) => { err += chunk.toString() })
    child.on('close', (code) => resolve({ code, out, err }))
  })
}

/** A copy of the built package beside every dependency but the scope `missing` (`@mlc-ai`): its folder. */
export function without (missing: string): string {
  const dir = mkdtempSync(join(tmpdir(), `no-${missing.replace('@', '')}-`))
  for (const part of ['package.json', 'bin', 'dist']) cpSync(join(ROOT, part), join(dir, part), { recursive: true })
  mkdirSync(join(dir, 'node_modules'))
  for (const entry of readdirSync(join(ROOT, 'node_modules'))) {
    if (entry !== missing && entry !== '.bin') symlinkSync(join(ROOT, 'node_modules', entry), join(dir, 'node_modules', entry))
  }
  return dir
}
