/** Resolves after `ms` (never, for Infinity) or as soon as the signal aborts, whichever is first. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted || ms <= 0) return Promise.resolve()
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer)
      signal.removeEventListener('abort', done)
      resolve()
    }
    const timer = Number.isFinite(ms) ? setTimeout(done, ms) : undefined
    signal.addEventListener('abort', done, { once: true })
  })
}
