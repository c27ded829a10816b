import type { LogLevel } from './env.ts'

export type LogFields = Record<string, unknown>

export interface Logger {
  debug(msg: string, fields?: LogFields): void
  info(msg: string, fields?: LogFields): void
  warn(msg: string, fields?: LogFields): void
  error(msg: string, fields?: LogFields): void
  /**
   * `info` for a hot path whose fields have a fixed shape, written by the caller as JSON members
   * (`"a":1,"b":"x"`, nothing else): the line is the one `info(msg, fields)` writes, without the
   * objects that copy it. Optional: a logger without it gets `info`.
   */
  infoMembers?(msg: string, members: string): void
}

const ranks: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 }

/** Errors do not serialise with JSON.stringify; keep what an operator needs to find the bug. */
function toLoggable(_key: string, value: unknown): unknown {
  if (value instanceof Error) {
    return { name: value.name, message: value.message, stack: value.stack }
  }
  return value
}

/**
 * Whether an Error sits in the fields (top level, or one object down, as `{ details: { error } }`):
 * only then is the replacer, which JSON.stringify calls for every key, worth its cost.
 */
function hasError(fields: LogFields): boolean {
  for (const key in fields) {
    const value = fields[key]
    if (value instanceof Error) return true
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
      for (const inner of Object.values(value)) if (inner instanceof Error) return true
    }
  }
  return false
}

/**
 * A logger writing one JSON object per line (`{level, time, msg, ...fields}`). `write` defaults
 * to console.log so the module stays Web-standard; tests pass their own to read the lines.
 */
export function createLogger(
  options: { level?: LogLevel; write?: (line: string) => void; now?: () => number } = {},
): Logger {
  const threshold = ranks[options.level ?? 'info']
  const write = options.write ?? ((line: string) => console.log(line))
  const now = options.now ?? Date.now
  // The time as ISO text, formatted again only when the millisecond changes (a busy process
  // writes many lines in one).
  let isoMs = Number.NaN
  let iso = ''
  const isoTime = (): string => {
    const ms = now()
    if (ms !== isoMs) {
      isoMs = ms
      iso = new Date(ms).toISOString()
    }
    return iso
  }
  const log =
    (level: Exclude<LogLevel, 'silent'>) =>
    (msg: string, fields: LogFields = {}): void => {
      if (ranks[level] < threshold) return
      const head = { level, time: isoTime(), msg }
      // Fields cannot overwrite level, time or msg; the head keeps its place at the front.
      // The replacer (called for every key) only when an Error needs it: 5 µs a line otherwise.
      const line = Object.assign({ ...head }, fields, head)
      write(JSON.stringify(line, hasError(fields) ? toLoggable : undefined))
    }
  const infoMembers = (msg: string, members: string): void => {
    if (ranks.info < threshold) return
    write(`{"level":"info","time":"${isoTime()}","msg":${JSON.stringify(msg)},${members}}`)
  }
  return {
    debug: log('debug'),
    info: log('info'),
    warn: log('warn'),
    error: log('error'),
    infoMembers,
  }
}
