// `fastify-gpt lint <form.json | url>`: lint a form file, or the `s` of an address's arrival.
// The registration checks come first: a form the plugin would refuse at boot is an error here,
// with the same code and message, so that a CI job that lints fails where `ready()` would.
import { readFile, stat } from 'node:fs/promises'
import { extent, MAX_ARRIVAL_VALUES, MAX_FORM_DEPTH, MAX_FORM_PARTS, values as valuesOf } from '../check/extent.ts'
import { DEFAULT_MAX_BYTES, DEFAULT_TIMEOUT, httpSender } from '../check/http.ts'
import { visible, visibleJson } from '../check/visible.ts'
import { compileForm, freezeJson, type Json } from '../form/compile.ts'
import { DECODERS, decoderProfiles, lint, runtimeVerdicts, type DecoderName, type Finding } from '../lint/index.ts'
import { parse as parseJson } from '../parse/parse.ts'
import { cannot, COMMON_USAGE, count, EXIT, integer, parse, STD, usageError, type Io, type Options } from './args.ts'

export type { Io } from './args.ts'

const USAGE = `usage: fastify-gpt lint <form.json | url> [options]

  form.json             a JSON Schema 2020-12 form; a URL: the s of its arrival (one GET, no redirect followed)
  --decoder NAME        judge only these decoders (${DECODERS.join(', ')}); refusals become errors (repeatable)
  --body-limit BYTES    the address's bodyLimit (default 65536)
  --max-depth N         the address's maxDepth (default 64)
  --timeout MS          give up on the GET after MS milliseconds, body included (default ${DEFAULT_TIMEOUT})
  --max-bytes BYTES     read at most BYTES of the arrival (default ${DEFAULT_MAX_BYTES})
${COMMON_USAGE}

Exit status: 0 without errors; 1 with errors (a form the plugin would refuse at registration is
one); 2 when the form cannot be read or is not a JSON Schema object, or on a usage error.
`

const OPTIONS: Options = {
  decoder: { type: 'string', multiple: true },
  'body-limit': { type: 'string' },
  'max-depth': { type: 'string' },
  timeout: { type: 'string' },
  'max-bytes': { type: 'string' }
}

/** A form file larger than this is no form anyone writes by hand, nor one worth reading whole. */
const MAX_FILE = 64 * 1024 * 1024

/** What stands in the way of linting: said in one line, exit 2. */
class Unreadable extends Error {}

/** The form: the file's JSON, or the `s` of the arrival at a URL, read within bounds. */
async function read (source: string, timeout?: number, maxBytes?: number): Promise<unknown> {
  if (!/^https?:\/\//i.test(source)) {
    if ((await stat(source)).size > MAX_FILE) throw new Unreadable(`${source} is over ${MAX_FILE} bytes`)
    return JSON.parse(await readFile(source, 'utf8'))
  }
  const url = new URL(source)
  const send = httpSender(url, { ...(timeout === undefined ? {} : { timeout }), ...(maxBytes === undefined ? {} : { maxBytes }) })
  const response = await send({ method: 'GET', headers: { accept: 'application/json' } })
  if (response.status >= 300 && response.status < 400) {
    throw new Unreadable(`GET ${source} answered ${response.status}${response.headers['location'] === undefined ? '' : ` (to ${response.headers['location']})`}: ` +
      'lint follows no redirect; give the address\'s own URL')
  }
  if (response.status !== 200) throw new Unreadable(`GET ${source} answered ${response.status}`)
  if (response.cut !== undefined) throw new Unreadable(`GET ${source}: the arrival did not come in full (${response.cut})`)
  if (valuesOf(response.body) > MAX_ARRIVAL_VALUES) throw new Unreadable(`GET ${source}: the arrival holds more than ${MAX_ARRIVAL_VALUES} JSON values: too large to lint`)
  let arrival: unknown
  try {
    arrival = parseJson(response.body, { maxDepth: Infinity })
  } catch (error) {
    throw new Unreadable(`GET ${source} is no arrival: not strictly valid JSON (${(error as Error).message})`)
  }
  if (arrival === null || typeof arrival !== 'object' || !('s' in arrival)) throw new Unreadable(`GET ${source} is no arrival: it has no "s"`)
  return arrival.s
}

/** What registration says of the form: the error the plugin would throw, as a finding, or none. */
function registration (form: object, source: string): Finding | undefined {
  try {
    compileForm(freezeJson(form, source), source)
    return undefined
  } catch (error) {
    const { code, message } = error as { code?: unknown, message?: unknown }
    return {
      rule: typeof code === 'string' ? code : 'registration',
      severity: 'error',
      pointer: '',
      message: typeof code === 'string' ? String(message) : `the plugin would fail to register it: ${String(message)}`,
      decoders: []
    }
  }
}

const line = (f: Finding): string => {
  const where = f.pointer === '' ? '(form)' : f.pointer
  const also = [f.section === undefined ? '' : `draft §${f.section}`, f.decoders.length === 0 ? '' : f.decoders.join(', ')].filter(Boolean).join('; ')
  // member names come from whoever wrote the form: never raw to a terminal
  return `${visible(where)}\n  ${f.severity.padEnd(7)} ${f.rule}  ${visible(f.message)}${also === '' ? '' : `  [${also}]`}\n`
}

export async function main (argv: string[], io: Io = STD): Promise<number> {
  const parsed = parse('lint', USAGE, argv, OPTIONS, io)
  if (typeof parsed === 'number') return parsed
  const { values, positionals } = parsed
  const decoders = (values['decoder'] ?? []) as string[]
  const unknown = decoders.find((name) => !DECODERS.includes(name as DecoderName))
  if (unknown !== undefined) return usageError('lint', USAGE, `--decoder takes one of ${DECODERS.join(', ')}, not "${unknown}"`, io)
  const numbers: Record<string, number | undefined> = {}
  for (const name of ['body-limit', 'max-depth', 'timeout', 'max-bytes']) {
    const n = integer(values, name, 1)
    if (typeof n === 'string') return usageError('lint', USAGE, n, io)
    numbers[name] = n
  }
  const [source, ...extra] = positionals
  if (source === undefined) return usageError('lint', USAGE, 'a form file or URL is required', io)
  if (extra.length > 0) return usageError('lint', USAGE, `unexpected argument "${extra[0] ?? ''}"`, io)

  let form: unknown
  try {
    form = await read(source, numbers['timeout'], numbers['max-bytes'])
  } catch (error) {
    return cannot('lint', error instanceof Unreadable ? error.message : `cannot read ${source}: ${error instanceof Error ? error.message : String(error)}`, io)
  }
  if (form === null || typeof form !== 'object' || Array.isArray(form)) {
    return cannot('lint', `${source} is not a JSON Schema object (it is ${form === null ? 'null' : Array.isArray(form) ? 'an array' : `a ${typeof form}`})`, io)
  }
  const { depth, parts } = extent(form)
  if (depth > MAX_FORM_DEPTH) return cannot('lint', `${source}: the form is too deep to lint (more than ${MAX_FORM_DEPTH} levels)`, io)
  if (parts > MAX_FORM_PARTS) return cannot('lint', `${source}: the form is too large to lint (more than ${MAX_FORM_PARTS} values)`, io)

  const refused = registration(form, source)
  let findings: Finding[]
  try {
    findings = lint(form as Json, {
      ...(decoders.length > 0 ? { decoders: decoders as DecoderName[] } : {}),
      ...(numbers['body-limit'] === undefined ? {} : { bodyLimit: numbers['body-limit'] }),
      ...(numbers['max-depth'] === undefined ? {} : { maxDepth: numbers['max-depth'] })
    })
    /* c8 ignore next 4: lint() reads any JSON value within the bounds checked above without throwing, so no test can reach this; a fault of lint's is then said in one line, exit 2, as a CLI must */
  } catch (error) {
    // a form registration refuses is reported as refused; lint's own trouble with it is no news
    if (refused === undefined) return cannot('lint', `could not lint ${source}: ${error instanceof Error ? error.message : String(error)}`, io)
    findings = []
  }
  if (refused !== undefined) findings = [refused, ...findings]
  const tally = (severity: Finding['severity']): number => findings.filter((f) => f.severity === severity).length
  if (values['json'] === true) {
    // which converter, at which version, each verdict rests on (docs/forms.md)
    const named = decoders.length > 0 ? decoders : DECODERS
    const verdicts = new Map(runtimeVerdicts(findings).map(({ decoder, verdict }) => [decoder, verdict]))
    const profiles = decoderProfiles().filter(({ decoder }) => named.includes(decoder)).map((profile) => ({ ...profile, verdict: verdicts.get(profile.decoder) }))
    io.out(`${visibleJson(JSON.stringify({ source, profiles, findings }, null, 2))}\n`)
  } else {
    for (const finding of findings) io.out(line(finding))
    io.out(`${visible(source)}: ${count(tally('error'), 'error')}, ${count(tally('warning'), 'warning')}, ${count(tally('info'), 'note')}\n`)
  }
  return tally('error') > 0 ? EXIT.failed : EXIT.ok
}
