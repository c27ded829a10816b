import { render } from '@testing-library/react'
import { StrictMode } from 'react'
import type { ReactNode } from 'react'
import { ApiError, type ErrorCode } from '@tessera/contracts/errors'
import type { SessionState } from '@tessera/contracts/platform'
import { createFakePlatform, type FakePlatform } from '@tessera/remote-build/testing'
import { PlatformProvider } from './platform.tsx'
import { withAnnouncedNavigation } from './use-search.ts'

// Test-only entry (`@tessera/plugin-react/testing`): never imported by a remote's source, so the
// contracts' `ApiError` (and zod with it) stays out of the bundles.

export interface ApiCall {
  method: string
  path: string
  body: unknown
}

type Outcome = Response | ApiError
type Answer = Outcome | ((call: ApiCall) => Outcome | Promise<Outcome>)

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

export type FakeBff = ReturnType<typeof fakeBff>

/** A catalogue error as `platform.api.fetch` throws it. */
export function apiError(code: ErrorCode, details?: Record<string, unknown>): ApiError {
  return new ApiError(code, { requestId: 'req-1', ...(details ? { details } : {}) })
}

/** Never settles until released: for looking at a page while its request is out. */
export function deferred<T>() {
  let resolve: (value: T) => void = () => undefined
  const promise = new Promise<T>((done) => (resolve = done))
  return { promise, resolve }
}

export interface RenderPageOptions {
  /** The page's address; the route is its path below `basePath`. */
  path: string
  session?: SessionState
  bff?: FakeBff
  /** What `session.refresh()` finds (defaults to the current session). */
  refreshTo?: SessionState
}

/**
 * Renders `node` as a mounted page of the remote `name` (base path `/<name>`) would be:
 * StrictMode, the platform with announced navigations. `navigate` moves the page's address (pages
 * read the query from it) and, inside the remote, the fake platform's route. `prepare` adjusts the
 * platform before the first render; `wrap` adds the remote's own providers.
 */
export function renderRemotePage(
  node: ReactNode,
  remote: {
    name: string
    prepare?: (platform: FakePlatform) => void
    wrap?: (node: ReactNode) => ReactNode
  },
  options: RenderPageOptions,
) {
  const basePath = `/${remote.name}`
  window.history.replaceState(null, '', options.path)
  const routeOf = (pathname: string) => pathname.slice(basePath.length) || '/'
  const platform: FakePlatform = createFakePlatform({
    remote: { name: remote.name, version: '1.0.0' },
    route: routeOf(new URL(options.path, 'http://localhost').pathname),
    ...(options.session ? { session: options.session } : {}),
    ...(options.bff ? { fetch: options.bff.fetch } : {}),
  })
  remote.prepare?.(platform)
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
    if (pathname.startsWith(basePath)) platform.setRoute(routeOf(pathname))
  }
  const view = render(
    <StrictMode>
      <PlatformProvider platform={withAnnouncedNavigation(platform)}>
        {remote.wrap ? remote.wrap(node) : node}
      </PlatformProvider>
    </StrictMode>,
  )
  return { platform, view, refreshes: () => refreshes }
}
