// Assembles src/scan.wat into src/scan-wasm.ts, the bytes src/parse.ts instantiates.
// Run: npm run build:wasm. `--check` only compares, and fails if src/scan-wasm.ts is stale.
import { readFileSync, writeFileSync } from 'node:fs'
import { Buffer } from 'node:buffer'
import wabt from 'wabt'

const source = new URL('../src/scan.wat', import.meta.url)
const target = new URL('../src/scan-wasm.ts', import.meta.url)

export async function assemble (): Promise<string> {
  const tools = await wabt()
  const module = tools.parseWat('scan.wat', readFileSync(source, 'utf8'), { simd: true })
  try {
    module.validate()
    const base64 = Buffer.from(module.toBinary({}).buffer).toString('base64')
    const lines = base64.match(/.{1,96}/g) ?? []
    return [
      '// Generated from src/scan.wat by `npm run build:wasm`: edit that file, not this one.',
      'export const SCAN_WASM =',
      lines.map((line) => `  '${line}'`).join(' +\n'),
      ''
    ].join('\n')
  } finally {
    module.destroy()
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const text = await assemble()
  if (process.argv.includes('--check')) {
    if (readFileSync(target, 'utf8') !== text) {
      console.error('src/scan-wasm.ts is stale: run npm run build:wasm')
      process.exit(1)
    }
  } else {
    writeFileSync(target, text)
  }
}
