// Keeps one process.nextTick object alive for the life of the process.
//
// Node 20 builds each tick object with an object literal whose first keys are computed
// ({ [async_id_symbol], [trigger_async_id_symbol], callback, args }). V8 keeps no polymorphic
// feedback for such keys: one store that meets another map marks the site megamorphic for good.
// The maps of tick objects are held weakly, so a full collection that finds no tick object alive
// (one that finishes while a host serves its first requests, say, after a registration that
// allocated a few megabytes) clears them; the next tick records new maps, the feedback turns
// megamorphic, and from then on every nextTick, several per request, takes V8's runtime path:
// 15 to 20 % of the CPU of a small route, on every route of the host. One tick object kept
// alive keeps those maps alive (docs/benchmarks.md, "A process-wide cost").
import { createHook } from 'node:async_hooks'

let kept: object | undefined

/** Captures and keeps one tick object; later calls do nothing. */
export function keepTickObject (): void {
  if (kept !== undefined) return
  const hook = createHook({
    init (_id, type, _trigger, resource) {
      if (type === 'TickObject') kept ??= resource as object
    }
  })
  hook.enable()
  try {
    process.nextTick(noop)
  } finally {
    hook.disable()
  }
}

/** The tick object kept, if any: for tests. */
export const keptTickObject = (): object | undefined => kept

function noop (): void {}
