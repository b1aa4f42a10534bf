import { isObject } from '../json/value.ts'
import { parse } from '../parse/parse.ts'
import type { Form } from './act.ts'
import type { Answer, Client } from './client.ts'
import { extent, MAX_FORM_DEPTH, MAX_FORM_PARTS, MAX_ARRIVAL_VALUES, values } from './extent.ts'
import { Judge } from './judge.ts'
import { difference, type Results } from './results.ts'
import type { Response } from './types.ts'

// draft §3: the arrival. The first GET carries no header at all; every other GET must get the
// same bytes, whatever it carries.

const FIELD_VALUE = /^[\x21-\x7e]([\x20-\x7e\t]*[\x21-\x7e])?$/

const mediaType = (response: Response): string => (response.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? ''

/** What the arrival checks found: whether the address answered at all, s to act on, what could not be done. */
export interface Arrived {
  readonly reached: boolean
  readonly s: Form
  readonly unfinished?: string
  /** The answer to the first GET, when there was one. */
  readonly arrival?: Response
}

/** Checks §3 and §4: whether the address answered at all, and s if the arrival had a valid one. */
export async function checkArrival (client: Client, results: Results, judgeTimeout?: number): Promise<Arrived> {
  const first = await client.exchange({ method: 'GET', headers: {} })
  const arrival = first.response
  if (arrival === undefined) {
    if (first.lost === 'connection') results.fail('3.1-bare-get', `a plain GET got ${first.unanswered}`, [first])
    else results.skip('3.1-bare-get', first.unanswered)
    const unfinished = first.lost === 'unreachable' ? `could not reach the address (${first.unanswered})` : undefined
    return { reached: false, s: { none: 'the address did not answer a GET' }, ...(unfinished === undefined ? {} : { unfinished }) }
  }
  if (arrival.status === 200) results.pass('3.1-bare-get')
  else results.fail('3.1-bare-get', `a plain GET was answered ${arrival.status}`, [first])

  const { s: form, unfinished } = arrival.status === 200
    ? members(first, arrival, results, judgeTimeout)
    : knockOn(results, `a plain GET was answered ${arrival.status}, not 200 (3.1): no arrival to check`)
  const type = arrival.headers['gpt-type']
  if (type === undefined) results.skip('3.2-gpt-type', 'no GPT-Type header (it is optional)')
  else if (FIELD_VALUE.test(type)) results.pass('3.2-gpt-type')
  else results.fail('3.2-gpt-type', 'GPT-Type is not a plain field value', [first])

  const compare = async (id: string, variants: Readonly<Record<string, string>>[]): Promise<void> => {
    for (const headers of variants) {
      const answer = await client.exchange({ method: 'GET', headers })
      if (answer.response === undefined) return results.skip(id, answer.unanswered)
      const differs = difference(arrival, answer.response)
      if (differs !== undefined) return results.fail(id, `answers differ in ${differs}`, [first, answer])
    }
    results.pass(id)
  }
  await compare('3.2-same-again', [{}])
  await compare('3.2-same-cookie', [{ cookie: 'visited=1; session=fastify-gpt-check' }])
  await compare('3.2-same-client', [{ 'user-agent': 'fastify-gpt-check (another client)' }, { 'gpt-actor': 'fastify-gpt-check' }])
  await compare('3.3-accept-json', [{ accept: 'application/json' }])
  await compare('3.3-accept-any', [{ accept: '*/*' }])
  await compare('3.3-accept-other', [{ accept: 'image/png' }])
  await html(client, results, first, arrival)
  return { reached: true, s: form, arrival, ...(unfinished === undefined ? {} : { unfinished }) }
}

/** draft §3.2: what is wrong with a parsed arrival's members, if anything (`p` a string, `m` messages, `s` an object). */
export function wrongMembers (body: unknown): string | undefined {
  if (!isObject(body)) return 'the body is not a JSON object'
  const { p, m, s } = body
  if (typeof p !== 'string') return 'p is not a string'
  if (!Array.isArray(m) || !m.every((message) => isObject(message) && 'role' in message && 'content' in message)) return 'm is not an array of objects with role and content'
  return isObject(s) ? undefined : 's is not an object'
}

/** The checks of the arrival's body, skipped for a reason that is not the body's fault. */
function knockOn (results: Results, why: string, unfinished?: string): { s: Form, unfinished?: string } {
  for (const id of ['3.2-json', '3.2-members', '4-form-valid']) results.skip(id, why)
  return { s: { none: why }, ...(unfinished === undefined ? {} : { unfinished }) }
}

/** A body cut for its size is unread, not wrong: the transport says so with these words. */
const OVERSIZE = /the checker reads$/

function members (first: Answer, arrival: Response, results: Results, judgeTimeout?: number): { s: Form, unfinished?: string } {
  const { cut } = arrival
  if (cut !== undefined && OVERSIZE.test(cut)) {
    const why = `the arrival was not read in full: ${cut}`
    return knockOn(results, why, why)
  }
  if (cut !== undefined) {
    results.fail('3.2-json', `the body did not come in full (${cut})`, [first])
    results.skip('3.2-members', 'the arrival did not come in full (3.2-json)')
    results.skip('4-form-valid', 'the arrival did not come in full (3.2-json)')
    return { s: { none: 'the arrival did not come in full' } }
  }
  // parsing builds every value of the text: past a bound, the arrival is too large to reason about
  const count = values(arrival.body)
  if (count > MAX_ARRIVAL_VALUES) {
    const why = `the arrival holds ${count} JSON values, more than the checker reasons about (${MAX_ARRIVAL_VALUES}): too large to check`
    return knockOn(results, why, why)
  }
  let body: unknown
  try {
    body = parse(arrival.body, { maxDepth: Infinity })
  } catch (error) {
    results.fail('3.2-json', `the body is not strictly valid JSON (${(error as Error).message})`, [first])
  }
  if (body !== undefined) {
    if (arrival.status === 200 && mediaType(arrival) === 'application/json') results.pass('3.2-json')
    else results.fail('3.2-json', `answered ${arrival.status} ${arrival.headers['content-type'] ?? 'without Content-Type'}`, [first])
  }
  const s = isObject(body) ? body['s'] : undefined
  const wrong = wrongMembers(body)
  if (wrong === undefined) results.pass('3.2-members')
  else results.fail('3.2-members', wrong, [first])

  if (!isObject(s)) {
    results.skip('4-form-valid', 'there is no s to check')
    return { s: { none: 'there is no s' } }
  }
  // the judge and the generator reason about s: past these bounds, too costly to, whatever it says
  const { depth, parts } = extent(s)
  if (depth > MAX_FORM_DEPTH || parts > MAX_FORM_PARTS) {
    const why = depth > MAX_FORM_DEPTH
      ? `s is too deep to check: more than ${MAX_FORM_DEPTH} levels`
      : `s is too large to check: more than ${MAX_FORM_PARTS} values`
    results.skip('4-form-valid', why)
    return { s: { none: why }, unfinished: why }
  }
  const judge = new Judge(s, judgeTimeout)
  const { problem } = judge
  if (judge.why !== undefined) results.skip('4-form-valid', judge.why)
  else if (problem === undefined) results.pass('4-form-valid')
  else results.fail('4-form-valid', `s is not a valid 2020-12 schema: ${problem}`, [first])
  if (problem === undefined && judge.why === undefined) return { s: { form: s, judge } }
  judge.release()
  return problem === undefined
    ? { s: { none: judge.why as string }, unfinished: judge.why as string }
    : { s: { none: 'there is no valid s' } }
}

/** draft §3.3: the page may be served to those asking for it, never in place of the JSON. */
async function html (client: Client, results: Results, first: Answer, arrival: Response): Promise<void> {
  const page = await client.exchange({ method: 'GET', headers: { accept: 'text/html' } })
  if (page.response === undefined) return results.skip('3.3-html', page.unanswered)
  const type = mediaType(page.response)
  if (difference(arrival, page.response) !== undefined && (page.response.status !== 200 || type !== 'text/html')) {
    return results.fail('3.3-html', `Accept: text/html was answered ${page.response.status} ${type}: neither a page nor the arrival`, [first, page])
  }
  const after = await client.exchange({ method: 'GET', headers: {} })
  if (after.response === undefined) return results.skip('3.3-html', after.unanswered)
  const differs = difference(arrival, after.response)
  if (differs === undefined) return results.pass('3.3-html')
  results.fail('3.3-html', `after the page, a plain GET is answered otherwise (${differs})`, [first, page, after])
}
