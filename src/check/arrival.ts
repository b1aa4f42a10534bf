import { parse } from '../parse.ts'
import type { Answer, Client } from './client.ts'
import { formProblem } from './judge.ts'
import { difference, type Results } from './results.ts'
import type { Response } from './types.ts'

// draft §3: the arrival. The first GET carries no header at all; every other GET must get the
// same bytes, whatever it carries.

const FIELD_VALUE = /^[\x21-\x7e]([\x20-\x7e\t]*[\x21-\x7e])?$/

const mediaType = (response: Response): string => (response.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? ''

/** Checks §3 and §4: whether the address answered at all, and s if the arrival had a valid one. */
export async function checkArrival (client: Client, results: Results): Promise<{ reached: boolean, form?: object }> {
  const first = await client.exchange({ method: 'GET', headers: {} })
  const arrival = first.response
  if (arrival === undefined) {
    if (first.lost === 'connection') results.fail('3.1-bare-get', `a plain GET got ${first.unanswered}`, [first])
    else results.skip('3.1-bare-get', first.unanswered)
    return { reached: false }
  }
  if (arrival.status === 200) results.pass('3.1-bare-get')
  else results.fail('3.1-bare-get', `a plain GET was answered ${arrival.status}`, [first])

  const form = members(first, arrival, results)
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
  return form === undefined ? { reached: true } : { reached: true, form }
}

function members (first: Answer, arrival: Response, results: Results): object | undefined {
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
  const object = body !== null && typeof body === 'object' && !Array.isArray(body) ? body as Record<string, unknown> : undefined
  const { p, m, s } = object ?? {}
  const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value)
  const wrong = object === undefined
    ? 'the body is not a JSON object'
    : typeof p !== 'string'
      ? 'p is not a string'
      : !Array.isArray(m) || !m.every((message) => isObject(message) && 'role' in message && 'content' in message)
          ? 'm is not an array of objects with role and content'
          : !isObject(s) ? 's is not an object' : undefined
  if (wrong === undefined) results.pass('3.2-members')
  else results.fail('3.2-members', wrong, [first])

  if (!isObject(s)) {
    results.skip('4-form-valid', 'there is no s to check')
    return undefined
  }
  const problem = formProblem(s)
  if (problem === undefined) results.pass('4-form-valid')
  else results.fail('4-form-valid', `s is not a valid 2020-12 schema: ${problem}`, [first])
  return problem === undefined ? s : undefined
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
