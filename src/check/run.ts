import { checkAct } from './act.ts'
import { checkArrival } from './arrival.ts'
import { Client } from './client.ts'
import { Results } from './results.ts'
import { lint, runtimeVerdicts } from '../lint/index.ts'
import type { CheckOptions, FormSummary, Report, Send } from './types.ts'

export const DEFAULT_MAX_REQUESTS = 200
export const DEFAULT_BODY_SIZE = 10 * 1024 * 1024

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

/**
 * Checks the address behind `send` against draft-ferguson-gpt-00: every check once, in order, one
 * request at a time. `target` only names the address in the report.
 */
export async function check (send: Send, target: string, options: CheckOptions = {}): Promise<Report> {
  const acts = options.acts ?? 0
  const maxRequests = options.maxRequests ?? DEFAULT_MAX_REQUESTS
  for (const [name, value] of Object.entries({ acts, maxRequests, interval: options.interval ?? 0, maxWait: options.maxWait ?? 0 })) {
    if (!Number.isSafeInteger(value) || value < 0) throw new RangeError(`${name} must be a non-negative integer`)
  }
  const client = new Client(send, {
    maxRequests,
    interval: options.interval ?? 0,
    maxWait: options.maxWait ?? 60,
    sleep: options.sleep ?? sleep
  })
  const results = new Results()
  const { reached, form } = await checkArrival(client, results)
  // nothing answered: no other check can say anything
  if (reached) await checkAct(client, results, form, { acts, bodySize: options.bodySize ?? DEFAULT_BODY_SIZE, seed: options.seed ?? 1 })
  return { ...report(target, options, client, results), ...(form === undefined ? {} : { form: summary(form) }) }
}

/** The linter's word on the form, summarised: which actors' decoders can act on it exactly. */
function summary (form: object): FormSummary {
  const findings = lint(form)
  const count = (severity: string): number => findings.filter((f) => f.severity === severity).length
  return { errors: count('error'), warnings: count('warning'), runtimes: runtimeVerdicts(findings) }
}

function report (target: string, options: CheckOptions, client: Client, results: Results): Report {
  const strict = options.strict === true
  const count = (outcome: string): number => results.list.filter((r) => r.outcome === outcome).length
  const failed = results.list.filter((r) => r.outcome === 'fail' && (r.level === 'MUST' || (strict && r.level === 'SHOULD')))
  return {
    target,
    draft: 'draft-ferguson-gpt-00',
    ok: failed.length === 0,
    strict,
    counts: { pass: count('pass'), fail: count('fail'), skip: count('skip') },
    requests: client.requests,
    rateLimited: client.rateLimited,
    results: results.list
  }
}
