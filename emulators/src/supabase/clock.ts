/** The stand-in's notion of now: real time, or a clock tests move forward instead of sleeping. */
export interface Clock {
  now(): Date
}

export const systemClock: Clock = { now: () => new Date() }

export interface ManualClock extends Clock {
  /** Moves the clock forward by `ms` milliseconds. */
  advance(ms: number): void
}

/** A clock that follows real time plus whatever `advance()` added. */
export function createManualClock(): ManualClock {
  let offset = 0
  return {
    now: () => new Date(Date.now() + offset),
    advance: (ms) => {
      offset += ms
    },
  }
}
