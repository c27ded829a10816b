/** Where the app reads the time, so tests can move it (rate-limit windows, timestamps). */
export interface Clock {
  /** Milliseconds since the epoch, like `Date.now()`. */
  now(): number
}

export const systemClock: Clock = { now: () => Date.now() }
