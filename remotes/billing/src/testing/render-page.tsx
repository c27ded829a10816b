import { render } from '@testing-library/react'
import { StrictMode } from 'react'
import type { ReactNode } from 'react'
import { vi } from 'vitest'
import {
  ApiError,
  entitlementsOf,
  type Entitlements,
  type ErrorCode,
  type PlanId,
  type PlansResponse,
  type SessionState,
  type SubscriptionResponse,
  type SubscriptionStatus,
} from '@tessera/contracts'
import { planList } from '@tessera/contracts/plans'
import { PlatformProvider } from '@tessera/plugin-react/platform'
import { createFakePlatform, type FakePlatform } from '@tessera/remote-build/testing'
import { withAnnouncedNavigation } from '../lib/announce-navigation.ts'
import { externalRedirect } from '../lib/redirect.ts'

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

/** A catalogue error as `platform.api.fetch` throws it. */
export function apiError(code: ErrorCode): ApiError {
  return new ApiError(code, { requestId: 'req-1' })
}

/** Never settles until released: for looking at a page while its request is out. */
export function deferred<T>() {
  let resolve: (value: T) => void = () => undefined
  const promise = new Promise<T>((done) => (resolve = done))
  return { promise, resolve }
}

/** Entitlements as the BFF derives them, for a plan in a status. */
export function entitlementsFor(plan: PlanId, status: SubscriptionStatus = 'active'): Entitlements {
  return entitlementsOf(plan === 'free' ? null : { plan, status })
}

/** Ada, signed in, on a plan. */
export function signedIn(plan: PlanId = 'free', status: SubscriptionStatus = 'active') {
  return {
    status: 'signed-in',
    user: { id: 'u1', email: 'ada@example.com', displayName: 'Ada Lovelace' },
    entitlements: entitlementsFor(plan, status),
  } satisfies SessionState
}

export const signedOut: SessionState = { status: 'signed-out', user: null }

/** `GET /api/billing/plans` as the BFF answers it, from the catalogue. */
export function plansBody(current: PlanId | null): PlansResponse {
  return {
    current,
    plans: planList.map((plan) => ({
      id: plan.id,
      name: plan.name,
      tagline: plan.tagline,
      monthlyPrice: plan.monthlyPrice,
      currency: plan.currency,
      monthlyTokens: plan.limits.monthlyTokens,
      models: [...plan.limits.models],
      features: [...plan.features],
    })),
  }
}

/** `GET /api/billing/subscription` for a plan, with dates. */
export function subscriptionBody(
  plan: PlanId,
  options: {
    status?: SubscriptionStatus
    currentPeriodEnd?: string
    cancelAt?: string | null
  } = {},
): SubscriptionResponse {
  const status = options.status ?? 'active'
  return {
    subscription:
      plan === 'free'
        ? null
        : {
            plan,
            status,
            currentPeriodEnd: options.currentPeriodEnd ?? '2026-12-22T12:00:00.000Z',
            cancelAt: options.cancelAt ?? null,
            canceledAt: null,
          },
    entitlements: entitlementsFor(plan, status),
  }
}

/** Watches where the page sends the browser (checkout, portal) instead of leaving the test. */
export function watchRedirects(): string[] {
  const urls: string[] = []
  vi.spyOn(externalRedirect, 'go').mockImplementation((url) => {
    urls.push(url)
  })
  return urls
}

/**
 * Renders `node` as a mounted billing page would be: StrictMode, the platform. `navigate` moves
 * the fake platform's route and the page's address (pages read the query from it).
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
  const path = options.path ?? '/billing'
  window.history.replaceState(null, '', path)
  const routeOf = (to: string) =>
    new URL(to, 'http://localhost').pathname.slice('/billing'.length) || '/'
  const platform: FakePlatform = createFakePlatform({
    remote: { name: 'billing', version: '1.0.0' },
    route: routeOf(path),
    session: options.session ?? signedIn(),
    ...(options.bff ? { fetch: options.bff.fetch } : {}),
  })
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
    if (to.startsWith('/billing')) platform.setRoute(routeOf(to))
  }
  const view = render(
    <StrictMode>
      <PlatformProvider platform={withAnnouncedNavigation(platform)}>{node}</PlatformProvider>
    </StrictMode>,
  )
  return { platform, view, refreshes: () => refreshes }
}
