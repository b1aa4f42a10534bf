// The `result` option: a JSON Schema of what `act` returns, compiled as the form is (the same
// vocabulary, audit and bounds), and each result checked against it before it is sent. A result
// it does not admit is never sent: the act fails closed (GPT_ERR_RESULT_INVALID, a bare 500).
import { GPT_ERR_OPTION_INVALID } from '../errors.ts'
import { compileForm, freezeJson, type JsonObject } from '../form/compile.ts'
import type { Limits } from '../limits.ts'
import { reasonOf } from './pipeline.ts'
import { compileSerializer } from './serialize.ts'

/** The result form: the schema as published (an MCP tool's outputSchema, OpenAPI's 200), and its check. */
export interface ResultForm {
  readonly schema: JsonObject
  /**
   * Why a result is not one the form admits, or undefined where it is. Judged as sent: its JSON
   * text read back, so that what `toJSON`, a Date or an undefined member make of it is what counts.
   */
  refuses (json: string): string | undefined
  /**
   * A result's JSON text where the form admits it, else why not: data the compiled serializer
   * takes is judged as it is and written by it (src/address/serialize.ts), anything else written
   * by JSON.stringify and judged as `refuses` does. Throws where it cannot be written as JSON.
   */
  judge (result: unknown): string | { readonly refused: string }
}

/** The option checked and compiled, at registration; its errors name the address and say it is the result form. */
export function resolveResult (value: unknown, path: string, limits: Limits): ResultForm | undefined {
  if (value === undefined) return undefined
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new GPT_ERR_OPTION_INVALID(path, '"result" must be a JSON Schema object')
  const where = `${path} (its result form)`
  const schema = freezeJson(value, where, '', { bytes: limits.formBytes, depth: limits.formDepth }) as JsonObject
  const validate = compileForm(schema, where, { limits })
  const serializer = compileSerializer(schema)
  const why = (): { refused: string } => ({ refused: reasonOf(validate.errors ?? [], 'result') })
  const refuses = (json: string): string | undefined => validate(JSON.parse(json)) ? undefined : why().refused
  return Object.freeze({
    schema,
    refuses,
    judge (result: unknown) {
      if (serializer?.takes(result) === true) return validate(result) ? serializer.write(result) : why()
      const json = JSON.stringify(result) ?? 'null'
      return validate(JSON.parse(json)) ? json : why()
    }
  })
}
