// `fastify-gpt lint <form.json | url>`: lint a form file, or the `s` of an address's arrival.
import { readFile } from 'node:fs/promises'
import { DECODERS, lint, type DecoderName, type Finding } from '../lint/index.ts'

const USAGE = `usage: fastify-gpt lint <form.json | url> [--json] [--decoder NAME]... [--body-limit BYTES] [--max-depth N]
  form.json       a JSON Schema 2020-12 form; a URL: the s of its arrival (GET)
  --json          print the findings as a JSON array
  --decoder NAME  judge only these decoders (${DECODERS.join(', ')}); refusals become errors
  --body-limit    the address's bodyLimit (default 65536)
  --max-depth     the address's maxDepth (default 64)
Exit status: 0 without errors, 1 with errors, 2 when the form cannot be read.`

export interface Io {
  readonly out: (text: string) => void
  readonly err: (text: string) => void
}
const STD: Io = { out: (text) => process.stdout.write(text), err: (text) => process.stderr.write(text) }

interface Args { source: string, json: boolean, decoders: DecoderName[], bodyLimit?: number, maxDepth?: number }

function parseArgs (argv: readonly string[]): Args | string {
  const args: Args = { source: '', json: false, decoders: [] }
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string
    const value = (): string | undefined => argv[++i]
    if (arg === '--json') args.json = true
    else if (arg === '--decoder') {
      const name = value()
      if (!DECODERS.includes(name as DecoderName)) return `--decoder takes one of ${DECODERS.join(', ')}`
      args.decoders.push(name as DecoderName)
    } else if (arg === '--body-limit' || arg === '--max-depth') {
      const n = Number(value())
      if (!Number.isSafeInteger(n) || n <= 0) return `${arg} takes a positive integer`
      if (arg === '--body-limit') args.bodyLimit = n
      else args.maxDepth = n
    } else if (arg.startsWith('-') || args.source !== '') return `unexpected argument "${arg}"`
    else args.source = arg
  }
  return args.source === '' ? 'a form file or URL is required' : args
}

/** The form: the file's JSON, or the `s` of the arrival at a URL. */
async function read (source: string): Promise<unknown> {
  if (/^https?:\/\//i.test(source)) {
    const response = await fetch(source, { headers: { accept: 'application/json' } })
    if (!response.ok) throw new Error(`GET ${source} answered ${response.status}`)
    const arrival: unknown = await response.json()
    if (arrival === null || typeof arrival !== 'object' || !('s' in arrival)) throw new Error(`GET ${source} is no arrival: it has no "s"`)
    return arrival.s
  }
  return JSON.parse(await readFile(source, 'utf8'))
}

const line = (f: Finding): string => {
  const where = f.pointer === '' ? '(form)' : f.pointer
  const also = [f.section === undefined ? '' : `draft §${f.section}`, f.decoders.length === 0 ? '' : f.decoders.join(', ')].filter(Boolean).join('; ')
  return `${where}\n  ${f.severity.padEnd(7)} ${f.rule}  ${f.message}${also === '' ? '' : `  [${also}]`}\n`
}

export async function main (argv: string[], io: Io = STD): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    io.out(`${USAGE}\n`)
    return 0
  }
  const args = parseArgs(argv)
  if (typeof args === 'string') {
    io.err(`fastify-gpt lint: ${args}\n${USAGE}\n`)
    return 2
  }
  let form: unknown
  try {
    form = await read(args.source)
  } catch (error) {
    io.err(`fastify-gpt lint: cannot read ${args.source}: ${error instanceof Error ? error.message : String(error)}\n`)
    return 2
  }
  const findings = lint(form, {
    ...(args.decoders.length > 0 ? { decoders: args.decoders } : {}),
    ...(args.bodyLimit === undefined ? {} : { bodyLimit: args.bodyLimit }),
    ...(args.maxDepth === undefined ? {} : { maxDepth: args.maxDepth })
  })
  const count = (severity: Finding['severity']): number => findings.filter((f) => f.severity === severity).length
  if (args.json) io.out(`${JSON.stringify(findings, null, 2)}\n`)
  else {
    for (const finding of findings) io.out(line(finding))
    io.out(`${args.source}: ${count('error')} errors, ${count('warning')} warnings, ${count('info')} notes\n`)
  }
  return count('error') > 0 ? 1 : 0
}
