// Assembles src/parse/scan.wat into src/parse/scan-wasm.ts, the bytes src/parse/parse.ts instantiates.
// Run: npm run build:wasm. `--check` only compares, and fails if src/parse/scan-wasm.ts is stale.
import { Buffer } from 'node:buffer'
import { readFileSync } from 'node:fs'
import wabt from 'wabt'
import { writeOrCheck } from './generated.ts'

const source = new URL('../src/parse/scan.wat', import.meta.url)
const target = new URL('../src/parse/scan-wasm.ts', import.meta.url)

export async function assemble (): Promise<string> {
  const tools = await wabt()
  const module = tools.parseWat('scan.wat', readFileSync(source, 'utf8'), { simd: true })
  try {
    module.validate()
    const base64 = Buffer.from(module.toBinary({}).buffer).toString('base64')
    const lines = base64.match(/.{1,96}/g) ?? []
    return [
      '// Generated from src/parse/scan.wat by `npm run build:wasm`: edit that file, not this one.',
      'export const SCAN_WASM =',
      lines.map((line) => `  '${line}'`).join(' +\n'),
      ''
    ].join('\n')
  } finally {
    module.destroy()
  }
}

if (import.meta.url === `file://${process.argv[1]}`) writeOrCheck(target, await assemble(), 'build:wasm')
