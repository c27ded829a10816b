// Test support, shared by the *.test.ts files; never imported by the app itself.
import type { RegistrySnapshot, SnapshotRemote } from '@tessera/contracts'
import { createApp } from '../http/app.ts'
import type { AppDeps } from '../http/app.ts'
import type { Clock } from '../platform/clock.ts'
import { loadEnv } from '../platform/env.ts'
import { createLogger } from '../platform/logger.ts'
import { createEventHub } from '../modules/events/event-hub.ts'
import { createTelemetryStore } from '../modules/registry/telemetry-store.ts'

/** The origin tests send requests from; it is in the test app's allowlist. */
export const TEST_ORIGIN = 'http://localhost:5173'

/** A clock tests move by hand. */
export function createManualClock(start = Date.parse('2026-01-01T00:00:00Z')): Clock & {
  advance(ms: number): void
} {
  let now = start
  return { now: () => now, advance: (ms) => (now += ms) }
}

/** A well-formed registry entry, changed by `overrides`. */
export function remoteEntry(overrides: Partial<SnapshotRemote> = {}): SnapshotRemote {
  const name = overrides.name ?? 'billing'
  return {
    name,
    version: '1.2.3',
    entryUrl: `http://localhost:8788/${name}/1.2.3/assets/remoteEntry.js`,
    contract: 1,
    basePath: `/${name}`,
    nav: { label: name, order: 1 },
    slots: [],
    previous: null,
    ...overrides,
  }
}

/**
 * A dependency this test app does not have: any use fails, naming what to use instead. Tests
 * that sign in use `startIdentityTestApp()` (identity-testing.ts), with a database and Auth.
 */
function missing<T extends object>(what: string): T {
  return new Proxy({} as T, {
    get(_target, property) {
      // Not a thenable: `await` on it must not call anything.
      if (property === 'then') return undefined
      throw new Error(
        `createTestApp() has no ${what} (${String(property)} was used); use startIdentityTestApp().`,
      )
    },
  })
}

/** Builds the app with in-memory deps; every dep can be replaced, and logs are collected. */
export function createTestApp(
  options: {
    env?: Record<string, string>
    registry?: unknown
    deps?: Partial<AppDeps>
  } = {},
) {
  const logs: Record<string, unknown>[] = []
  const logger = createLogger({
    level: 'debug',
    write: (line) => logs.push(JSON.parse(line) as Record<string, unknown>),
  })
  const env = loadEnv({
    ALLOWED_ORIGINS: TEST_ORIGIN,
    // A busy two-core machine can hold a statement past 200 ms; a test of the fallback sets its own.
    SHARED_LIMIT_TIMEOUT_MS: '10000',
    ...options.env,
  })
  const hub = createEventHub()
  const clock = createManualClock()
  const telemetry = createTelemetryStore()
  let registryContent: unknown = options.registry ?? { remotes: [remoteEntry()] }
  const deps: AppDeps = {
    env,
    logger,
    hub,
    clock,
    telemetry,
    registry: { read: async () => registryContent },
    db: missing('database'),
    authGateway: missing('Supabase Auth'),
    accessTokens: missing('access token verifier'),
    // Without a database, limits count in this process; with one, each app counts apart unless a
    // test makes two apps share one namespace (two replicas).
    sharedLimits: options.deps?.db === undefined ? false : { namespace: crypto.randomUUID() },
    ...options.deps,
  }
  const app = createApp(deps)
  return {
    app,
    deps,
    logs,
    // The app's own hub, also when a test passed one in.
    hub: deps.hub,
    clock,
    telemetry,
    setRegistry(content: unknown) {
      registryContent = content
    },
  }
}

/** Reads a JSON response body as the snapshot (checked by the caller's assertions). */
export async function snapshotOf(response: Response): Promise<RegistrySnapshot> {
  return (await response.json()) as RegistrySnapshot
}

/** Headers of a state-changing request that passes the CSRF check. */
export const csrfHeaders = {
  origin: TEST_ORIGIN,
  'x-tessera-csrf': '1',
  'content-type': 'application/json',
} as const

/** Polls `check` until it returns a value other than undefined, or fails after `timeoutMs`. */
export async function waitFor<T>(
  check: () => T | undefined | Promise<T | undefined>,
  options: { timeoutMs?: number; what?: string } = {},
): Promise<T> {
  const deadline = Date.now() + (options.timeoutMs ?? 5000)
  for (;;) {
    const value = await check()
    if (value !== undefined) return value
    if (Date.now() > deadline)
      throw new Error(`Timed out waiting for ${options.what ?? 'a condition'}`)
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

/** Reads SSE frames from a response body as they arrive. */
export function sseReader(response: Response) {
  const body = response.body
  if (body === null) throw new Error('The response has no body to stream')
  const reader = body.pipeThrough(new TextDecoderStream()).getReader()
  const frames: { event: string; data: string; id?: string; retry?: string }[] = []
  let buffer = ''
  let pending: Promise<void> | null = null
  let ended = false
  const pump = async (): Promise<void> => {
    const { done, value } = await reader.read()
    if (done) {
      ended = true
      return
    }
    buffer += value
    let end = buffer.indexOf('\n\n')
    while (end !== -1) {
      const frame: { event: string; data: string; id?: string; retry?: string } = {
        event: 'message',
        data: '',
      }
      const dataLines: string[] = []
      for (const line of buffer.slice(0, end).split('\n')) {
        const colon = line.indexOf(':')
        const field = line.slice(0, colon)
        const value = line.slice(colon + 1).replace(/^ /, '')
        if (field === 'event') frame.event = value
        else if (field === 'data') dataLines.push(value)
        else if (field === 'id') frame.id = value
        else if (field === 'retry') frame.retry = value
      }
      frame.data = dataLines.join('\n')
      frames.push(frame)
      buffer = buffer.slice(end + 2)
      end = buffer.indexOf('\n\n')
    }
  }
  return {
    frames,
    /** Whether the server ended the stream. */
    ended: () => ended,
    /** Waits until a frame matching `match` has arrived and returns it. */
    async next(
      match: (frame: (typeof frames)[number]) => boolean,
      timeoutMs = 5000,
    ): Promise<(typeof frames)[number]> {
      const deadline = Date.now() + timeoutMs
      for (;;) {
        const found = frames.find(match)
        if (found !== undefined) return found
        if (ended) throw new Error('The SSE stream ended before the frame arrived')
        if (Date.now() > deadline) throw new Error('Timed out waiting for an SSE frame')
        pending ??= pump().finally(() => {
          pending = null
        })
        await Promise.race([pending, new Promise((resolve) => setTimeout(resolve, 20))])
      }
    },
    /** Waits until the server ends the stream. */
    async closed(timeoutMs = 5000): Promise<void> {
      const deadline = Date.now() + timeoutMs
      while (!ended) {
        if (Date.now() > deadline) throw new Error('Timed out waiting for the SSE stream to end')
        pending ??= pump().finally(() => {
          pending = null
        })
        await Promise.race([pending, new Promise((resolve) => setTimeout(resolve, 20))])
      }
    },
    cancel: () => reader.cancel(),
  }
}
