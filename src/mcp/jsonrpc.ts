// JSON-RPC 2.0's messages as the bridge writes them, and the error codes it answers with: a leaf
// every other module of the bridge may use.

export type Id = string | number

/** Every JSON answer's Content-Type. */
export const JSON_TYPE = 'application/json; charset=utf-8'

/** A JSON-RPC id as MCP allows it: a string or an integer (never null). */
export const isId = (id: unknown): id is Id => typeof id === 'string' || (typeof id === 'number' && Number.isSafeInteger(id))

export const resultOf = (id: Id, result: string): string => `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${result}}`
export const errorOf = (id: Id | null, code: number, message: string, data?: unknown): string =>
  JSON.stringify({ jsonrpc: '2.0', id, error: data === undefined ? { code, message } : { code, message, data } })

/** JSON-RPC's error codes. */
export const INVALID_REQUEST = -32600
export const METHOD_NOT_FOUND = -32601
export const INVALID_PARAMS = -32602
export const PARSE_ERROR = -32700
/** Resource not found, until 2026-07-28 made it INVALID_PARAMS. */
export const RESOURCE_NOT_FOUND = -32002
/** MCP's own (2026-07-28, "Error Codes"): header fields that do not say what the body says, and a revision not spoken. */
export const HEADER_MISMATCH = -32020
/** MCP's own (2026-07-28, "Error Codes"): the request needs a capability its client did not declare. */
export const MISSING_CLIENT_CAPABILITY = -32021
export const UNSUPPORTED_PROTOCOL_VERSION = -32022
