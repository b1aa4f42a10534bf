import { spec } from './catalogue.ts'
import { evidence, type Answer } from './client.ts'
import type { CheckResult, Outcome, Response } from './types.ts'

const SHOWN = 3

/** The results of a run, in the order the checks concluded. */
export class Results {
  readonly list: CheckResult[] = []
  /** Why checks were skipped at one of the checker's own bounds (what it builds, reads or waits for). */
  readonly limits: string[] = []

  add (id: string, outcome: Outcome, detail?: string, answers: readonly Answer[] = []): void {
    const shown = outcome === 'fail' ? answers.slice(0, SHOWN).map(evidence) : []
    this.list.push({
      id,
      ...spec(id),
      outcome,
      ...(detail === undefined ? {} : { detail }),
      ...(shown.length === 0 ? {} : { exchanges: shown })
    })
  }

  pass (id: string): void { this.add(id, 'pass') }
  skip (id: string, detail: string): void { this.add(id, 'skip', detail) }
  /** A check the host's gate answered for the address (src/check/gate.ts): nothing was judged. */
  gate (id: string, detail: string): void { this.add(id, 'gate', detail) }
  /** A skip at one of the checker's bounds: the run is unfinished. */
  limit (id: string, detail: string): void {
    this.add(id, 'skip', detail)
    if (!this.limits.includes(detail)) this.limits.push(detail)
  }

  fail (id: string, detail: string, answers: readonly Answer[] = []): void { this.add(id, 'fail', detail, answers) }
}

// Fields that may differ between two identical answers: when, and how the connection goes on.
const UNCOMPARED = new Set(['date', 'connection', 'keep-alive'])

/** What differs between two answers, in a phrase, or undefined when nothing does. */
export function difference (a: Response, b: Response): string | undefined {
  if (a.status !== b.status) return `status ${a.status} and ${b.status}`
  const names = new Set([...Object.keys(a.headers), ...Object.keys(b.headers)])
  for (const name of names) {
    if (!UNCOMPARED.has(name) && a.headers[name] !== b.headers[name]) return `header ${name}: ${a.headers[name] ?? '(none)'} and ${b.headers[name] ?? '(none)'}`
  }
  if (a.body.length !== b.body.length || !a.body.every((byte, i) => byte === b.body[i])) return 'body'
  return undefined
}

/** draft §5.3: an act is answered 2xx; 204 is the refusal (status 0 never occurs: no answer is no response). */
export const acted = (response: Response): boolean => response.status >= 200 && response.status < 300 && response.status !== 204

/** draft §5.3: an act's answer is a whole JSON body, labelled application/json. */
export function isJsonResponse (response: Response): boolean {
  if (response.cut !== undefined || !/^application\/json\s*(;|$)/i.test(response.headers['content-type'] ?? '')) return false
  try {
    JSON.parse(new TextDecoder().decode(response.body))
    return true
  } catch {
    return false
  }
}
