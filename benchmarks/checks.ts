// What every measured run must show whatever its figures: the statuses the scenario expects, no
// errors, and both sides serving the same bytes; and the counts a benchmark's options give.
import { Buffer } from 'node:buffer'
import type { LoadSummary } from './load.ts'
import { arrivalBytes, bodies, type Scenario, type Side } from './workload.ts'

/** What is wrong with one run of `scenario` on `side`: nothing if every response was as expected. */
export function runProblems (summary: LoadSummary, scenario: Scenario, side: Side): string[] {
  const problems: string[] = []
  const expected = String(scenario.expect[side])
  const wrong = summary.responses - (summary.statuses[expected] ?? 0)
  const label = `${scenario.name} on ${side}`
  if (summary.responses === 0) problems.push(`${label}: no response`)
  if (wrong > 0) problems.push(`${label}: ${wrong} responses were not ${expected} (${JSON.stringify(summary.statuses)})`)
  // Fastify closes the connection after a 413 (the client may still be sending): resets there
  // are the baseline's own behaviour, not a failed run.
  const resetsExpected = side === 'baseline' && scenario.expect.baseline === 413
  if ((summary.errors > 0 && !resetsExpected) || summary.timeouts > 0) {
    problems.push(`${label}: ${summary.errors} errors, ${summary.timeouts} timeouts`)
  }
  return problems
}

/** Both sides must serve the same bytes on GET and, unless `getOnly`, the same result to an accepted act. */
export async function sameAnswers (urls: Readonly<Record<Side, string>>, getOnly = false): Promise<string[]> {
  const problems: string[] = []
  for (const side of ['baseline', 'gpt'] as const) {
    const url = urls[side]
    const arrival = Buffer.from(await (await fetch(url)).arrayBuffer())
    if (!arrival.equals(arrivalBytes)) problems.push(`${side}: GET does not send the arrival bytes`)
    if (getOnly) continue
    const act = await fetch(url, { method: 'POST', body: bodies.small, headers: { 'content-type': 'application/json' } })
    const text = await act.text()
    if (act.status !== 200 || text !== '{"accepted":true,"items":1}') problems.push(`${side}: the act answered ${act.status} ${text}`)
  }
  return problems
}

/** Lists the problems found, if any; the exit code they make. */
export function exitCodeOf (problems: readonly string[]): number {
  if (problems.length === 0) return 0
  console.error(`\n${problems.length} problem(s):\n${problems.map((p) => `  ${p}`).join('\n')}`)
  return 1
}

/** Throws unless every count is a whole number of at least 1, naming the option that gave it. */
export function requireCounts (counts: Readonly<Record<string, number>>): void {
  for (const [name, value] of Object.entries(counts)) {
    if (!Number.isInteger(value) || value < 1) throw new Error(`--${name} must be a whole number of at least 1`)
  }
}
