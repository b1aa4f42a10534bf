// `fastify-gpt check <url>`: checks any GPT address against draft-ferguson-gpt-00 over HTTP.
import { parseArgs } from 'node:util'
import { httpSender } from '../check/http.ts'
import { formatReport } from '../check/report.ts'
import { check, DEFAULT_BODY_SIZE, DEFAULT_MAX_REQUESTS } from '../check/run.ts'
import type { CheckOptions } from '../check/types.ts'

export const USAGE = `Usage: fastify-gpt check <url> [options]

Checks the GPT address at <url> against draft-ferguson-gpt-00. By default it sends only bodies
that a conformant address must refuse; --acts sends values the form admits, each an act.

  --acts N           also send N acts (values s admits); they have effects (default 0)
  --max-requests N   send at most N requests, retries included (default ${DEFAULT_MAX_REQUESTS})
  --interval MS      wait MS milliseconds between requests (default 0)
  --max-wait S       wait out a 429 only if its Retry-After is at most S seconds (default 60)
  --body-size BYTES  size of the bodies to be refused for their size (default ${DEFAULT_BODY_SIZE})
  --timeout MS       give up on an answer after MS milliseconds (default 10000)
  --seed N           seed of the value generator (default 1)
  --json             print the report as JSON
  --strict           a failed SHOULD also fails the run
  -h, --help         print this help

Exit status: 0 when no MUST failed (--strict: no SHOULD either), 1 when one did, 2 on a usage error.
`

export interface Output {
  write (text: string): unknown
}

const INTEGERS = ['acts', 'max-requests', 'interval', 'max-wait', 'body-size', 'timeout', 'seed'] as const

/** Runs the command with the arguments after `check`; resolves to the exit status. */
export async function main (argv: string[], out: Output = process.stdout, err: Output = process.stderr): Promise<number> {
  let parsed
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        ...Object.fromEntries(INTEGERS.map((name) => [name, { type: 'string' as const }])),
        json: { type: 'boolean' },
        strict: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' }
      }
    })
  } catch (error) {
    err.write(`${(error as Error).message}\n\n${USAGE}`)
    return 2
  }
  const { positionals } = parsed
  const values: Record<string, string | boolean | undefined> = parsed.values
  if (values['help'] === true) {
    out.write(USAGE)
    return 0
  }
  const numbers: Partial<Record<typeof INTEGERS[number], number>> = {}
  for (const name of INTEGERS) {
    const text = values[name]
    if (typeof text !== 'string') continue
    if (!/^\d+$/.test(text)) {
      err.write(`--${name} takes a non-negative integer, not "${text}"\n`)
      return 2
    }
    numbers[name] = Number(text)
  }
  const [target, ...extra] = positionals
  let url: URL
  try {
    if (target === undefined || extra.length > 0) throw new TypeError('give one URL')
    url = new URL(target)
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new TypeError(`not an http(s) URL: ${target}`)
  } catch (error) {
    err.write(`${(error as Error).message}\n\n${USAGE}`)
    return 2
  }
  const options: CheckOptions = {
    strict: values['strict'] === true,
    ...(numbers.acts === undefined ? {} : { acts: numbers.acts }),
    ...(numbers['max-requests'] === undefined ? {} : { maxRequests: numbers['max-requests'] }),
    ...(numbers.interval === undefined ? {} : { interval: numbers.interval }),
    ...(numbers['max-wait'] === undefined ? {} : { maxWait: numbers['max-wait'] }),
    ...(numbers['body-size'] === undefined ? {} : { bodySize: numbers['body-size'] }),
    ...(numbers.seed === undefined ? {} : { seed: numbers.seed })
  }
  const report = await check(httpSender(url, numbers.timeout), url.href, options)
  out.write(values['json'] === true ? `${JSON.stringify(report, null, 2)}\n` : formatReport(report))
  return report.ok ? 0 : 1
}
