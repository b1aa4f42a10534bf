import type { Answer } from './client.ts'
import { acted } from './results.ts'
import type { GateReport, Response } from './types.ts'

// A host's gate: auth in front of the address, answering a POST 401 or 403 (RFC 9110 §15.5.2,
// §15.5.4) before the address reads the body. The draft leaves auth outside the protocol (§1.2),
// and a gate never depends on the body (docs/hosts.md), so its answer judges nothing: the check is
// the gate's, neither passed nor failed. An answer that reached the address is a 204 or an act.

/** Whether a POST was answered by the host's gate rather than the address. */
export const gated = (answer: Answer): boolean => answer.response?.status === 401 || answer.response?.status === 403

/** What a check whose every answer came from the gate says. */
export const shut = (answer: Answer): string => `answered ${answer.response?.status ?? ''} by the host's gate: the address never judged the body`

const SHOWN = 200
const TOKEN = /^\s*([!#$%&'*+.^_`|~0-9A-Za-z-]+)\s*(.?)/

/** The auth-schemes a WWW-Authenticate field names, in its order (RFC 9110 §11.6.1). */
export function schemes (field: string): string[] {
  const out: string[] = []
  // a quoted string may hold commas and equals signs of its own
  for (const part of field.replace(/"(?:[^"\\]|\\.)*"?/g, '""').split(',')) {
    const [, name, next] = TOKEN.exec(part) ?? []
    // `name=value` is a parameter of the scheme before it; a scheme is followed by a space or nothing
    if (name !== undefined && next !== '=') out.push(name)
  }
  return out
}

/** What would let the checker past the gate, as the command takes it. */
export const passWith = (report: GateReport): string => report.header === undefined
  ? '--header \'NAME: VALUE\' (Authorization, or the field an API key goes in)'
  : `--header '${report.header}'`

/** What the gate did to the address's POSTs: how many it answered and how many reached the address. */
export class Gate {
  #gated = 0
  #through = 0
  #first: Response | undefined

  /** Counts a POST's answer (once each); whether the gate answered it. */
  saw (answer: Answer): boolean {
    const { response } = answer
    if (response === undefined) return false
    if (gated(answer)) {
      this.#gated++
      this.#first ??= response
      return true
    }
    if (response.status === 204 || acted(response)) this.#through++
    return false
  }

  /** Whether some POST reached the address: then a gate that answered others judged their bodies. */
  get passed (): boolean {
    return this.#through > 0
  }

  /** The report's word on the gate (`sent`: the names of the headers given with every act), if it answered any POST. */
  report (sent: readonly string[]): GateReport | undefined {
    const first = this.#first
    if (first === undefined) return undefined
    const field = first.headers['www-authenticate']
    const scheme = field === undefined ? undefined : schemes(field)[0]
    return {
      gated: this.#gated,
      through: this.#through,
      status: first.status,
      ...(field === undefined ? {} : { challenge: field.length > SHOWN ? `${field.slice(0, SHOWN)}…` : field }),
      ...(scheme === undefined ? {} : { header: `Authorization: ${scheme} …` }),
      ...(sent.length === 0 ? {} : { sent })
    }
  }
}
