// Test support for everything that signs in: the BFF in-process over a fresh database, with the
// Supabase Auth stand-in on a free port sharing that database and the clock. Never imported by
// the app itself.
import type { Sql } from '@tessera/db/sql'
import { createTestDatabase, databaseSetupTimeout } from '@tessera/db/testing'
import type { StartSupabaseEmulatorOptions } from '@tessera/emulators/supabase/node'
import { startTestSupabase } from '@tessera/emulators/supabase/test-support'
import type { TestSupabase } from '@tessera/emulators/supabase/test-support'
import type { MailMessage } from '@tessera/emulators/supabase/mailbox-store'
import { expect } from 'vitest'
import { z } from 'zod/mini'
import type { AppDeps } from '../http/app.ts'
import type { Clock } from '../platform/clock.ts'
import { createAccessTokenVerifier } from '../modules/identity/access-tokens.ts'
import { createSupabaseAuthGateway } from '../modules/identity/auth-gateway.ts'
import type { AuthGateway, AuthTokens } from '../modules/identity/auth-gateway.ts'
import { createEventHub } from '../modules/events/event-hub.ts'
import type { EventHub, HubMessage } from '../modules/events/event-hub.ts'
import { TEST_ORIGIN, createTestApp, csrfHeaders, sseReader } from './app.ts'

export { databaseSetupTimeout }

// The one variable of the BFF's test support, read once: a PostgreSQL server to run the suite
// against instead of PGlite (CI runs it both ways). Each test file gets a database of its own.
const testEnv = z
  .object({ TEST_DATABASE_URL: z.optional(z.url()) })
  .parse({ TEST_DATABASE_URL: process.env.TEST_DATABASE_URL || undefined })

/** A fresh database with the bootstrap and supabase/migrations applied. */
export function createBffTestDatabase(): Promise<Sql> {
  return createTestDatabase(
    testEnv.TEST_DATABASE_URL === undefined ? {} : { serverUrl: testEnv.TEST_DATABASE_URL },
  )
}

/** The password every test account starts with. */
export const testPassword = 'correct horse battery staple'

export type TestClock = Clock & { advance(ms: number): void }

export interface RecordedResponse {
  method: string
  path: string
  status: number
  headers: [string, string][]
  body: string
}

export interface TestBrowser {
  /** The session cookie this browser holds, if any. */
  cookie(): string | undefined
  /** Every Set-Cookie header this browser received, in order. */
  setCookies: string[]
  request(path: string, init?: RequestInit): Promise<Response>
  get(path: string): Promise<Response>
  /** A JSON request with the CSRF header and an allowed Origin. */
  send(method: 'POST' | 'PATCH' | 'DELETE', path: string, body?: unknown): Promise<Response>
  /** Opens `/api/events` as this browser. */
  events(): Promise<ReturnType<typeof sseReader>>
}

export interface IdentityTestApp extends ReturnType<typeof createTestApp> {
  db: Sql
  supabase: TestSupabase
  clock: TestClock
  /** Requests to Auth's refresh grant, as the BFF sent them. */
  refreshCalls(): number
  /** Every message published on the hub, in order. */
  published: HubMessage[]
  /** The auth events published so far (`data.event` of each), optionally for one session. */
  authEvents(sessionId?: string): string[]
  /**
   * A second BFF over the same database and Auth, as another process would be (its own hub,
   * its own in-process state).
   */
  secondApp(): ReturnType<typeof createTestApp>['app']
  /** `app.request`, with the response kept for the token scan of `finish()`. */
  request(path: string, init?: RequestInit): Promise<Response>
  /** A browser with its own cookie jar (talking to `app`, by default this BFF). */
  browser(options?: {
    userAgent?: string
    app?: ReturnType<typeof createTestApp>['app']
    client?: string
  }): TestBrowser
  /** Signs up through the BFF, opens the confirmation email, and returns the signed-in browser. */
  signUp(
    email: string,
    options?: { displayName?: string; userAgent?: string },
  ): Promise<TestBrowser>
  /** A new browser signed in with a password. */
  signIn(email: string, password?: string, options?: { userAgent?: string }): Promise<TestBrowser>
  /** The newest email to `to` matching `match`, waiting for it. */
  mail(to: string, match?: (message: MailMessage) => boolean): Promise<MailMessage>
  /**
   * Checks that no response of this app carried an access or refresh token (bodies, headers,
   * event streams) and that every session cookie had its flags, then stops everything.
   */
  finish(): Promise<void>
}

export interface IdentityTestOptions {
  env?: Record<string, string>
  /** The registry file's content (see createTestApp). */
  registry?: unknown
  deps?: Partial<AppDeps>
  supabase?: Partial<StartSupabaseEmulatorOptions>
  /** The app's public origin; https gives `__Host-` cookies. */
  publicOrigin?: string
  /** Wraps the database the app uses (not Auth's): a test can make statements fail. */
  wrapDb?: (db: Sql) => Sql
}

const jwtShape = /eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}/

/** The gateway, noting every token Auth hands the BFF (signed-out ones vanish from Auth). */
function recordingGateway(gateway: AuthGateway, issued: Set<string>): AuthGateway {
  const note = <T extends AuthTokens | null>(tokens: T): T => {
    if (tokens !== null) {
      issued.add(tokens.accessToken)
      issued.add(tokens.refreshToken)
    }
    return tokens
  }
  return {
    ...gateway,
    signUp: async (input) => note(await gateway.signUp(input)),
    signInWithPassword: async (email, password) =>
      note(await gateway.signInWithPassword(email, password)),
    verifyEmailLink: async (tokenHash, type) =>
      note(await gateway.verifyEmailLink(tokenHash, type)),
    refresh: async (refreshToken) => note(await gateway.refresh(refreshToken)),
    updateUser: async (tokens, changes, redirectTo) => {
      const result = await gateway.updateUser(tokens, changes, redirectTo)
      note(result.tokens)
      return result
    },
  }
}

/** Starts the BFF (in-process, `app.request`) and the Auth stand-in over one fresh database. */
export async function startIdentityTestApp(
  options: IdentityTestOptions = {},
): Promise<IdentityTestApp> {
  const publicOrigin = options.publicOrigin ?? 'http://app.tessera.test'
  const db = await createBffTestDatabase()
  const supabase = await startTestSupabase({
    db,
    siteUrl: publicOrigin,
    // Tests send several emails to one address in a row; the limit has its own test.
    emailRateLimitSeconds: 0,
    ...options.supabase,
  })
  // One clock for both: the BFF decides when to refresh by the time Auth signs tokens with.
  const clock: TestClock = {
    now: () => supabase.clock.now().getTime(),
    advance: (ms) => supabase.clock.advance(ms),
  }
  let refreshes = 0
  const issuedTokens = new Set<string>()
  const countingFetch: typeof fetch = (input, init) => {
    const url = input instanceof Request ? input.url : String(input)
    if (url.includes('grant_type=refresh_token')) refreshes += 1
    return fetch(input, init)
  }
  const published: HubMessage[] = []
  const recordingHub = (): EventHub => {
    const hub = createEventHub()
    return {
      ...hub,
      publish(message) {
        published.push(message)
        return hub.publish(message)
      },
    }
  }
  const build = () =>
    createTestApp({
      env: {
        PUBLIC_ORIGIN: publicOrigin,
        ALLOWED_ORIGINS: TEST_ORIGIN,
        // The BFF's own emails (invites) go to the stand-in's mailbox, as in the local stack.
        MAIL_API_URL: supabase.mailboxUrl,
        ...options.env,
      },
      ...(options.registry === undefined ? {} : { registry: options.registry }),
      deps: {
        clock,
        db: options.wrapDb?.(db) ?? db,
        hub: recordingHub(),
        authGateway: recordingGateway(
          createSupabaseAuthGateway({
            url: supabase.url,
            anonKey: supabase.anonKey,
            fetch: countingFetch,
          }),
          issuedTokens,
        ),
        accessTokens: createAccessTokenVerifier({
          jwksUrl: supabase.jwksUrl,
          issuer: `${supabase.url}/auth/v1`,
          clock,
        }),
        // In-process requests have no network address; tests name their client in a header.
        clientKey: (c) => c.req.header('x-test-client'),
        ...options.deps,
      },
    })
  const context = build()

  const recorded: RecordedResponse[] = []
  const streams: { text: () => string }[] = []
  const cookieName = publicOrigin.startsWith('https:')
    ? '__Host-tessera_session'
    : 'tessera_session'
  const deviceCookieName = publicOrigin.startsWith('https:')
    ? '__Host-tessera_device'
    : 'tessera_device'

  /** Records what the browser received; event streams are read on a copy as they arrive. */
  const record = async (method: string, path: string, response: Response): Promise<Response> => {
    const headers = [...response.headers.entries()]
    const isStream = (response.headers.get('content-type') ?? '').includes('text/event-stream')
    if (!isStream || response.body === null) {
      const body = await response.clone().text()
      recorded.push({ method, path, status: response.status, headers, body })
      return response
    }
    // What the test reads of the stream passes through here and is kept for the scan.
    let text = ''
    const decoder = new TextDecoder()
    const copy = new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        text += decoder.decode(chunk, { stream: true })
        controller.enqueue(chunk)
      },
    })
    streams.push({ text: () => text })
    recorded.push({ method, path, status: response.status, headers, body: '' })
    return new Response(response.body.pipeThrough(copy), response)
  }

  const browser: IdentityTestApp['browser'] = (browserOptions = {}) => {
    const app = browserOptions.app ?? context.app
    // Each browser is its own client (per-client limits), unless a test names one.
    const client = browserOptions.client ?? crypto.randomUUID()
    let cookie: string | undefined
    // The cookie that makes this browser known to the accounts it signed in to (sign-in throttle).
    let device: string | undefined
    const setCookies: string[] = []
    const request = async (path: string, init: RequestInit = {}) => {
      const headers = new Headers(init.headers)
      const jar = [
        ...(cookie === undefined ? [] : [`${cookieName}=${cookie}`]),
        ...(device === undefined ? [] : [`${deviceCookieName}=${device}`]),
      ]
      if (jar.length > 0) headers.set('cookie', jar.join('; '))
      headers.set(
        'user-agent',
        browserOptions.userAgent ??
          'Mozilla/5.0 (X11; Linux x86_64; rv:140.0) Gecko/20100101 Firefox/140.0',
      )
      headers.set('x-test-client', client)
      const response = await record(
        init.method ?? 'GET',
        path,
        await app.request(path, { ...init, headers }),
      )
      for (const line of response.headers.getSetCookie()) {
        setCookies.push(line)
        const [pair] = line.split(';')
        const [name, value] = (pair ?? '').split('=')
        if (name === deviceCookieName) device = value
        if (name !== cookieName) continue
        cookie = value === '' || /max-age=0/i.test(line) ? undefined : value
      }
      return response
    }
    return {
      cookie: () => cookie,
      setCookies,
      request,
      get: (path) => request(path),
      send: (method, path, body) =>
        request(path, {
          method,
          headers: csrfHeaders,
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        }),
      events: async () => sseReader(await request('/api/events')),
    }
  }

  const mail = (to: string, match?: (message: MailMessage) => boolean) =>
    supabase.waitForMail(to, match)

  const harness: IdentityTestApp = {
    ...context,
    clock,
    db,
    supabase,
    refreshCalls: () => refreshes,
    published,
    authEvents: (sessionId) =>
      published
        .filter((message) => message.event.type === 'auth')
        .map((message) => message.event.data as { event: string; sessionId: string | null })
        .filter((data) => sessionId === undefined || data.sessionId === sessionId)
        .map((data) => data.event),
    secondApp: () => build().app,
    request: async (path, init = {}) =>
      record(init.method ?? 'GET', path, await context.app.request(path, init)),
    browser,
    mail,
    async signUp(email, signUpOptions = {}) {
      const visitor = browser(
        signUpOptions.userAgent === undefined ? {} : { userAgent: signUpOptions.userAgent },
      )
      const answer = await visitor.send('POST', '/api/auth/sign-up', {
        email,
        password: testPassword,
        ...(signUpOptions.displayName === undefined
          ? {}
          : { displayName: signUpOptions.displayName }),
      })
      expect(answer.status, await answer.clone().text()).toBe(202)
      const message = await mail(email, (candidate) => candidate.type === 'signup')
      const confirmed = await visitor.send('POST', '/api/auth/confirm', {
        tokenHash: message.token_hash,
        type: 'signup',
      })
      expect(confirmed.status, await confirmed.clone().text()).toBe(200)
      return visitor
    },
    async signIn(email, password = testPassword, signInOptions = {}) {
      const visitor = browser(signInOptions)
      const answer = await visitor.send('POST', '/api/auth/sign-in', { email, password })
      expect(answer.status, await answer.clone().text()).toBe(200)
      return visitor
    },
    async finish() {
      try {
        const { rows } = await db.query<{ token: string }>('select token from auth.refresh_tokens')
        const tokens = [...new Set([...issuedTokens, ...rows.map((row) => row.token)])]
        expect(tokens.length, 'the suite signed nobody in').toBeGreaterThan(0)
        const texts = [
          ...recorded.map(
            (response) =>
              `${response.method} ${response.path} → ${response.status}\n${response.headers
                .map(([name, value]) => `${name}: ${value}`)
                .join('\n')}\n\n${response.body}`,
          ),
          ...streams.map((stream) => stream.text()),
        ]
        for (const text of texts) {
          expect(text, 'an access token reached the browser').not.toMatch(jwtShape)
          for (const token of tokens)
            expect(text.includes(token), `a token reached the browser:\n${text}`).toBe(false)
        }
        for (const response of recorded) {
          for (const [name, value] of response.headers) {
            const ours = [cookieName, deviceCookieName].some((our) => value.startsWith(`${our}=`))
            if (name !== 'set-cookie' || !ours) continue
            expect(value).toMatch(/; HttpOnly/)
            expect(value).toMatch(/; SameSite=Lax/)
            expect(value).toMatch(/; Path=\//)
            if (publicOrigin.startsWith('https:')) expect(value).toMatch(/; Secure/)
          }
        }
      } finally {
        await supabase.stop()
        await db.close()
      }
    },
  }
  return harness
}

/** Reads a JSON body. */
export async function jsonOf<T = Record<string, unknown>>(response: Response): Promise<T> {
  return (await response.json()) as T
}
