/**
 * Resolves on the event loop's next turn, after the I/O this turn started and the writes it
 * queued: Node sends a response's writes, and a client request, only once the current run of
 * JavaScript (with its promise callbacks) has ended (docs/decisions/012). `setImmediate` where the
 * runtime has one (Node, Bun, Deno); a zero timeout elsewhere, as the app stays Web-standard.
 */
export function nextTurn(): Promise<void> {
  const immediate = (globalThis as { setImmediate?: (callback: () => void) => unknown })
    .setImmediate
  return new Promise((resolve) => {
    if (immediate === undefined) setTimeout(resolve, 0)
    else immediate(resolve)
  })
}
