/** An act that reports progress returns one of these: each yield is progress, the return is the result. */
export type Progressing = AsyncIterable<unknown, unknown>

/** Whether `value` is an async iterable (an async generator's object, say). A getter may throw. */
export function isProgressing (value: unknown): value is Progressing {
  return value !== null && typeof value === 'object' && typeof (value as { [Symbol.asyncIterator]?: unknown })[Symbol.asyncIterator] === 'function'
}

/**
 * Pulls values until the iterator is done and resolves with its return value; each yielded value
 * goes to `progress`. `stop()` true after a value: the iterator is told to finish (its `finally`
 * blocks run) and nothing more is pulled; resolves with `undefined` then.
 */
export async function drain (iterable: Progressing, progress: (value: unknown) => void, stop: () => boolean): Promise<unknown> {
  const iterator = iterable[Symbol.asyncIterator]()
  for (;;) {
    const step = await iterator.next()
    if (step.done === true) return step.value
    if (stop()) {
      Promise.resolve(iterator.return?.()).catch(() => {})
      return undefined
    }
    progress(step.value)
  }
}
