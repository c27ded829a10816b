import type { ErrorCode } from './errors.ts'
import type { LiveEvent } from './events.ts'
import type { Entitlements } from './plans.ts'
import type { SlotName, SlotProps } from './plugin.ts'

/** Auth events of Supabase's client, re-emitted by the platform (see DESIGN §5). */
export const authEventNames = [
  'SIGNED_IN',
  'SIGNED_OUT',
  'TOKEN_REFRESHED',
  'USER_UPDATED',
  'PASSWORD_RECOVERY',
] as const
export type AuthEventName = (typeof authEventNames)[number]

export interface SessionUser {
  id: string
  email: string
  displayName: string | null
}

/** What the user's plan allows (`entitlements` of `GET /api/me`). */
export type SessionEntitlements = Entitlements

/** Where visitors who are not signed in are sent for a page that needs a session. */
export const SIGN_IN_PATH = '/auth/sign-in'

/**
 * Why a tab is signed out when it did not sign out itself: signed out from another device (or
 * the account's password changed), signed out in another tab of this browser, or the session
 * expired. The sign-in page says it.
 */
export const signedOutReasons = ['other-device', 'other-tab', 'expired'] as const
export type SignedOutReason = (typeof signedOutReasons)[number]

export type SessionState =
  | { status: 'loading'; user: null }
  | {
      status: 'signed-out'
      user: null
      /** Absent when the tab signed out itself, never was signed in, or from older hosts. */
      reason?: SignedOutReason
    }
  | {
      status: 'signed-in'
      user: SessionUser
      /** Absent from hosts older than the identity work; plugins should treat absent as unknown. */
      entitlements?: SessionEntitlements
    }

export interface PlatformSession {
  current(): SessionState
  /** Called with every new state; `event` names the auth event that caused it, when one did. */
  subscribe(listener: (state: SessionState, event: AuthEventName | null) => void): () => void
  /** Re-reads the session from the BFF (after a sign-in form succeeds, say). */
  refresh(): Promise<SessionState>
}

export interface PlatformApi {
  /**
   * `fetch` for the BFF: same-origin credentials, the CSRF header, JSON by default. A response
   * that is not 2xx is thrown as an `ApiError` carrying its catalogue code.
   */
  fetch(path: string, init?: RequestInit): Promise<Response>
  /** The BFF's origin, for typed clients: `hc<AppType>(api.baseUrl, { fetch: api.fetch })`. */
  baseUrl: string
}

export type LiveEventStatus = 'connecting' | 'open' | 'reconnecting'

export interface PlatformEvents {
  /** Listens to live server events of one type, or of every type with `'*'`. */
  subscribe(type: string, listener: (event: LiveEvent) => void): () => void
  status(): LiveEventStatus
  onStatus(listener: (status: LiveEventStatus) => void): () => void
}

export interface Notice {
  kind: 'info' | 'success' | 'error'
  message: string
  /** An error's catalogue code, shown small for support. */
  code?: ErrorCode
}

export type ThemeName = 'light' | 'dark'

/** Theme tokens: CSS custom properties the host sets on the document; plugins use `var(--…)`. */
export const themeTokens = [
  '--tessera-color-bg',
  '--tessera-color-surface',
  '--tessera-color-fg',
  '--tessera-color-muted',
  '--tessera-color-border',
  '--tessera-color-accent',
  '--tessera-color-accent-fg',
  '--tessera-color-danger',
  '--tessera-color-success',
  '--tessera-color-focus',
  '--tessera-font-body',
  '--tessera-font-mono',
  '--tessera-radius',
  '--tessera-space',
] as const
export type ThemeToken = (typeof themeTokens)[number]

export interface PlatformTheme {
  current(): ThemeName
  subscribe(listener: (theme: ThemeName) => void): () => void
  tokens: readonly ThemeToken[]
}

export interface PlatformRoute {
  /** The path below the plugin's base path, starting with `/` (`/` for the base path itself). */
  current(): string
  subscribe(listener: (path: string) => void): () => void
}

/** Where the page is, beyond the plugin's own route. Since contract 1.1. */
export interface PlatformLocation {
  /** The app path with its query, `/billing/return?session_id=…`: for `next=` return links. */
  href(): string
  /** The app's origin, to check that a `next` path stays on it. */
  origin: string
  /** Leaves the app for an outside page (Stripe's checkout, say) with a full page load. */
  assign(url: string): void
}

/** Lets a plugin host other plugins' slots in its own page. Since contract 1.1. */
export interface PlatformSlots {
  /**
   * Shows, in `el`, what every plugin puts in `slot` (`account.section` on the account page),
   * each isolated with its own fallback as in the frame; returns the way to remove them.
   */
  mount<S extends SlotName>(slot: S, el: HTMLElement, props: SlotProps[S]): () => void
}

/** What the host hands every plugin mount. Versioned by `CONTRACT_MAJOR` and `CONTRACT_MINOR`. */
export interface Platform {
  contract: number
  /** The host's contract minor; absent from hosts of minor 0. */
  contractMinor?: number
  remote: { name: string; version: string }
  basePath: string
  route: PlatformRoute
  /** Goes to an app path (absolute, like `/billing/plans`), without a page load. */
  navigate(to: string, options?: { replace?: boolean }): void
  api: PlatformApi
  events: PlatformEvents
  session: PlatformSession
  notify(notice: Notice): void
  theme: PlatformTheme
  /** Since 1.1; absent from older hosts. */
  location?: PlatformLocation
  /** Since 1.1; absent from older hosts. */
  slots?: PlatformSlots
}
