/** Timer functions, injected so tests can drive time with fake timers or by hand. */
export interface Timers {
  setTimeout(callback: () => void, ms: number): unknown
  clearTimeout(handle: unknown): void
}

export const browserTimers: Timers = {
  setTimeout: (callback, ms) => globalThis.setTimeout(callback, ms),
  clearTimeout: (handle) =>
    globalThis.clearTimeout(handle as ReturnType<typeof globalThis.setTimeout>),
}

/** `console.warn` without a trailing "undefined" when there is no detail to show. */
export function warnToConsole(message: string, detail?: unknown): void {
  if (detail === undefined) console.warn(message)
  else console.warn(message, detail)
}
