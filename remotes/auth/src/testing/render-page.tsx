import { render } from '@testing-library/react'
import { StrictMode } from 'react'
import type { ReactNode } from 'react'
import { ApiError, entitlementsOf, type ErrorCode, type SessionState } from '@tessera/contracts'
import { createFakePlatform, type FakePlatform } from '@tessera/remote-build/testing'
import { SentEmailProvider } from '../features/account/sent-email.tsx'
import { PlatformProvider } from '@tessera/plugin-react/platform'
import { withAnnouncedNavigation } from '../lib/announce-navigation.ts'

export interface ApiCall {
  method: string
  path: string
  body: unknown
}

type Answer =
  Response | ApiError | ((call: ApiCall) => Response | ApiError | Promise<Response | ApiError>)

/** A fake BFF: answers by `METHOD /path`, records every call, throws ApiErrors as api.fetch does. */
export function fakeBff(answers: Record<string, Answer>) {
  const calls: ApiCall[] = []
  const fetch = async (input: string, init: RequestInit = {}): Promise<Response> => {
    const url = new URL(input, 'http://localhost:8787')
    const method = (init.method ?? 'GET').toUpperCase()
    const body: unknown = typeof init.body === 'string' ? JSON.parse(init.body) : undefined
    const call = { method, path: url.pathname, body }
    calls.push(call)
    const answer = answers[`${method} ${url.pathname}`]
    if (answer === undefined) throw new Error(`fake BFF: no answer for ${method} ${url.pathname}`)
    const outcome = typeof answer === 'function' ? await answer(call) : answer
    if (outcome instanceof ApiError) throw outcome
    return outcome.clone()
  }
  return {
    calls,
    fetch,
    callsTo: (key: string) => calls.filter((c) => `${c.method} ${c.path}` === key),
  }
}

/** A catalogue error as `platform.api.fetch` throws it. */
export function apiError(code: ErrorCode, details?: Record<string, unknown>): ApiError {
  return new ApiError(code, { requestId: 'req-1', ...(details ? { details } : {}) })
}

/** Never settles until released: for looking at a form while its request is out. */
export function deferred<T>() {
  let resolve: (value: T) => void = () => undefined
  const promise = new Promise<T>((done) => (resolve = done))
  return { promise, resolve }
}

export const ada: SessionState = {
  status: 'signed-in',
  user: { id: 'u1', email: 'ada@example.com', displayName: 'Ada Lovelace' },
}

export const signedInBody = (
  overrides: { recovery?: boolean; pendingEmail?: string | null } = {},
) => ({
  user: {
    id: 'u1',
    email: 'ada@example.com',
    displayName: 'Ada Lovelace',
    emailConfirmedAt: '2025-01-01T00:00:00.000Z',
    pendingEmail: overrides.pendingEmail ?? null,
    createdAt: '2025-01-01T00:00:00.000Z',
    lastSignInAt: '2025-01-02T00:00:00.000Z',
  },
  profile: {
    displayName: 'Ada Lovelace',
    createdAt: '2025-01-01T00:00:00.000Z',
    updatedAt: '2025-01-01T00:00:00.000Z',
  },
  session: {
    id: 's1',
    recovery: overrides.recovery ?? false,
    createdAt: '2025-01-02T00:00:00.000Z',
  },
  entitlements: entitlementsOf(null),
})

/**
 * Renders `node` as a mounted auth page would be: StrictMode, the platform, the sent-email
 * memory. `navigate` moves the fake platform's route (and the page's address, for `?next=`).
 */
export function renderPage(
  node: ReactNode,
  options: {
    path?: string
    session?: SessionState
    bff?: ReturnType<typeof fakeBff>
    /** What `session.refresh()` finds (defaults to the current session). */
    refreshTo?: SessionState
  } = {},
) {
  const path = options.path ?? '/auth/sign-in'
  window.history.replaceState(null, '', path)
  const platform: FakePlatform = createFakePlatform({
    remote: { name: 'auth', version: '1.0.0' },
    route: new URL(path, 'http://localhost').pathname.slice('/auth'.length) || '/',
    ...(options.session ? { session: options.session } : {}),
    ...(options.bff ? { fetch: options.bff.fetch } : {}),
  })
  platform.api.baseUrl = window.location.origin
  let refreshes = 0
  platform.session.refresh = async () => {
    refreshes += 1
    if (options.refreshTo) platform.setSession(options.refreshTo)
    return platform.session.current()
  }
  const navigate = platform.navigate.bind(platform)
  platform.navigate = (to, navigateOptions) => {
    navigate(to, navigateOptions)
    window.history.replaceState(null, '', to)
    const pathname = new URL(to, 'http://localhost').pathname
    if (pathname.startsWith('/auth')) platform.setRoute(pathname.slice('/auth'.length) || '/')
  }
  const view = render(
    <StrictMode>
      <PlatformProvider platform={withAnnouncedNavigation(platform)}>
        <SentEmailProvider>{node}</SentEmailProvider>
      </PlatformProvider>
    </StrictMode>,
  )
  return { platform, view, refreshes: () => refreshes }
}
