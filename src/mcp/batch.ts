// JSON-RPC batches, which 2025-03-26 alone has: its servers MUST accept them (its "Base Protocol",
// "Batching"), and 2025-06-18 removed them. Under that revision an array of messages is answered
// as an array of the requests' responses, in any order JSON-RPC allows, and one of notifications
// and responses alone as a single message of them is: 202. Under any other, 400.
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { Bridge } from './bridge.ts'
import { errorOf, INVALID_REQUEST } from './jsonrpc.ts'
import { answer, batchedResponse, messageOf } from './rpc.ts'
import { revisionOf } from './session.ts'
import { itemSpans } from './span.ts'

/** Most messages one batch holds: each call is an act, each list a GET of every address (draft §7.4). */
export const MAX_BATCH = 32

/** A 202 for what needs no answer: no body, so no Content-Type. */
export function accepted (reply: FastifyReply): FastifyReply {
  reply.removeHeader('content-type')
  return reply.code(202).send()
}

/** The answer to a batch: its responses as one array; each request answered as it would be alone, but in the array. */
export async function answerBatch (bridge: Bridge, request: FastifyRequest, reply: FastifyReply, bytes: Buffer, messages: readonly unknown[]): Promise<FastifyReply> {
  const shapes = revisionOf(request)
  if (!shapes.batches) return reply.code(400).send(errorOf(null, INVALID_REQUEST, 'Batches are not accepted: 2025-03-26 alone has them'))
  if (messages.length === 0 || messages.length > MAX_BATCH) return reply.code(400).send(errorOf(null, INVALID_REQUEST, `A batch holds 1 to ${MAX_BATCH} messages`))
  const spans = itemSpans(bytes)
  const responses = await Promise.all(messages.map(async (message, i) => {
    const read = messageOf(message)
    if (read.kind === 'invalid') return read.error
    if (read.kind === 'taken') return undefined
    const [start, end] = spans[i] as readonly [number, number]
    // Each message's own bytes: a call's arguments are found in them, as in a request's.
    const response = await answer(bridge, { request, reply, bytes: bytes.subarray(start, end), batched: true, shapes, client: undefined }, read.id, read.method, read.params)
    return batchedResponse(read.id, response)
  }))
  const answered = responses.filter((json) => json !== undefined)
  return answered.length === 0 ? accepted(reply) : reply.send(`[${answered.join(',')}]`)
}
