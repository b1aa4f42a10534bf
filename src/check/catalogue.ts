import { KEYWORDS } from './near-miss.ts'
import type { Level } from './types.ts'

// Every check the checker runs: its draft section, its level and what it proves. docs/checking.md
// says what each sends.

export interface Spec {
  readonly section: string
  readonly level: Level
  readonly title: string
}

const FIXED: Readonly<Record<string, Spec>> = {
  '3.1-bare-get': { section: '3.1', level: 'MUST', title: 'a GET with no header, cookie or query is answered 200' },
  '3.2-json': { section: '3.2', level: 'MUST', title: 'the arrival is 200 application/json, a strictly valid JSON text' },
  '3.2-members': { section: '3.2', level: 'MUST', title: 'the arrival is an object: p a string, m an array of {role, content}, s an object' },
  '3.2-gpt-type': { section: '3.2', level: 'MAY', title: 'GPT-Type, if sent, is a plain field value (advisory only)' },
  '3.2-same-again': { section: '3.2', level: 'MUST', title: 'the arrival is the same on a second contact' },
  '3.2-same-cookie': { section: '3.2', level: 'MUST', title: 'the arrival is the same with a cookie from an earlier visit' },
  '3.2-same-client': { section: '3.2', level: 'MUST', title: 'the arrival is the same for another User-Agent or GPT-Actor' },
  '3.3-accept-json': { section: '3.3', level: 'MUST', title: 'Accept: application/json gets the same arrival' },
  '3.3-accept-any': { section: '3.3', level: 'MUST', title: 'Accept: */* gets the same arrival' },
  '3.3-accept-other': { section: '3.3', level: 'MUST', title: 'Accept naming a type the address does not offer (image/png) gets the same arrival' },
  '3.3-html': { section: '3.3', level: 'MUST', title: 'a text/html representation, if any, does not replace the JSON one' },
  '4-form-valid': { section: '4', level: 'MUST', title: 's is a valid JSON Schema 2020-12' },
  '5.1-content-type': { section: '5.1', level: 'SHOULD', title: 'the body is read whatever the Content-Type (curl -d sends form-urlencoded)' },
  '5.2-size-declared': { section: '5.2', level: 'MUST', title: 'a body over the size limit, announced by Content-Length, is refused' },
  '5.2-size-chunked': { section: '5.2', level: 'MUST', title: 'a body over the size limit, sent chunked, is refused' },
  '5.2-empty': { section: '5.2', level: 'MUST', title: 'an empty body is refused' },
  '5.2-trailing': { section: '5.2', level: 'MUST', title: 'bytes after the JSON value are refused' },
  '5.2-duplicate': { section: '5.2', level: 'MUST', title: 'a duplicate member name at the top is refused' },
  '5.2-duplicate-nested': { section: '5.2', level: 'MUST', title: 'a duplicate member name below the top is refused' },
  '5.2-duplicate-escaped': { section: '5.2', level: 'MUST', title: 'a duplicate member name spelt with an escape ("a", "\\u0061") is refused' },
  '5.2-utf8': { section: '5.2', level: 'MUST', title: 'a body that is not UTF-8 is refused (RFC 8259 §8.1: parse strictly)' },
  '5.2-admitted': { section: '5.2', level: 'MUST', title: 'every value s admits is acted on (validated against s itself)' },
  '5.2-decoder': { section: '5.2', level: 'MUST', title: 'a body a constrained decoder (--actor) writes is acted on exactly when it is strict JSON that s admits' },
  '5.3-success': { section: '5.3', level: 'MUST', title: 'an act is answered 200 application/json' },
  '5.3-bare-204': { section: '5.3', level: 'SHOULD', title: 'a refused body is answered 204 with no body' },
  '5.3-uniform': { section: '5.3', level: 'SHOULD', title: 'every refusal is the same answer: none says which constraint failed' },
  '6-actor': { section: '6', level: 'MUST', title: 'GPT-Actor does not decide whether an act is taken' },
  // Appendix B, "Composition": fastify-gpt's answer, not the draft's rule, so never a MUST (docs/links.md).
  'B-links-member': { section: 'B', level: 'SHOULD', title: 'l, where an arrival has it, is an array of { href, p? } with href a URL reference' },
  'B-links-address': { section: 'B', level: 'SHOULD', title: 'every address l names on this origin answers a plain GET with an arrival' },
  // With --mcp: the address's tool on an MCP bridge against its POST. Held to what POST does and s
  // says (draft §5.1: no intermediary reshapes the body; §5.2 (3): s itself, not a copy, is checked).
  'MCP-tool': { section: 'MCP', level: 'MUST', title: 'the bridge lists a tool for the address: its _meta["fastify-gpt/address"] is the path, or its name is made from it' },
  'MCP-input-schema': { section: 'MCP', level: 'MUST', title: 'the tool\'s inputSchema is s, or s wrapped as the one member value of an object' },
  'MCP-refused': { section: 'MCP', level: 'MUST', title: 'a body s refuses (near-misses, duplicate members, bad UTF-8) is refused as a tools/call as it is as a POST' },
  'MCP-admitted': { section: 'MCP', level: 'MUST', title: 'a value s admits is acted on as a tools/call as it is as a POST' },
  'MCP-answer': { section: 'MCP', level: 'MUST', title: 'an act\'s result is its JSON as text; where POST echoes the body, those very bytes' },
  'MCP-uniform': { section: 'MCP', level: 'SHOULD', title: 'every refused tools/call is the same result, byte for byte: none says which constraint failed' }
}

/** The check of one keyword of the form: a value only it refuses is refused (draft §5.2 (3)). */
export const formCheck = (keyword: string): string => `5.2-form-${keyword}`

export function spec (id: string): Spec {
  const fixed = FIXED[id]
  if (fixed !== undefined) return fixed
  const keyword = id.slice(formCheck('').length)
  const known = (KEYWORDS as readonly string[]).includes(keyword)
  // 2020-12 makes format an annotation unless a form asks otherwise; draft §5.2 (4) asks that no
  // constraint be treated as absent, so an asserted format is the conformant reading, not the only one.
  return {
    section: '5.2',
    level: keyword === 'format' ? 'SHOULD' : 'MUST',
    title: known ? `a near-miss that only "${keyword}" refuses is refused` : `"${keyword}" is enforced (no near-miss is built for it)`
  }
}

export const FIXED_CHECKS: readonly string[] = Object.keys(FIXED)
