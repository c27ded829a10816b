import type { Entitlements, MeUser, SignedIn, UserRole } from '@tessera/contracts'
import type { Context } from 'hono'
import type { Clock } from '../../platform/clock.ts'
import type { ProfileRow } from '../../platform/db/schema.ts'
import type { UserClaims } from '../../platform/db/with-user.ts'
import type { Logger } from '../../platform/logger.ts'
import type { AuthEvents } from './auth-events.ts'
import type { AuthGateway } from './auth-gateway.ts'
import type { Profiles } from './profiles.ts'
import type { RateLimiter } from '../../platform/rate-limiter.ts'
import type { SharedCounters } from '../../platform/shared-counters.ts'
import type { ActiveSession, Sessions } from './sessions.ts'
import type { SignInThrottle } from './sign-in-throttle.ts'

/** What the auth and me routes share. */
export interface Identity {
  gateway: AuthGateway
  sessions: Sessions
  profiles: Profiles
  events: AuthEvents
  throttle: SignInThrottle
  /** Requests that make Auth send an email, per client. */
  emailLimiter: RateLimiter
  /** The counts every replica shares (known devices); absent when this process counts alone. */
  sharedCounters?: SharedCounters
  clock: Clock
  logger: Logger
  /** Where email links send people back to: `PUBLIC_ORIGIN`. */
  publicOrigin: string
  /** The client's network address (platform/client-address.ts: headers only from trusted proxies). */
  clientKey?: (c: Context) => string | undefined
  /**
   * What the user's plan allows, from the subscription (billing): of the session's current
   * workspace when `sessionId` is given, else of the user's personal one.
   */
  entitlements(claims: UserClaims, sessionId?: string): Promise<Entitlements>
  /** The session's current workspace, for `GET /api/me`; absent: not reported. */
  currentWorkspace?: (session: ActiveSession) => Promise<SignedIn['workspace']>
  /** The roles the user holds (the operator role, from the database); none when not given. */
  rolesOf?: (userId: string) => Promise<UserRole[]>
}

/** The app URL an email link returns to (`next` is a path on the app, checked by its schema). */
export function returnUrl(identity: Identity, next: string | undefined): string {
  return `${identity.publicOrigin}${next ?? '/'}`
}

/** The user as the browser sees them. */
export function meUserOf(session: ActiveSession, profile: ProfileRow | null): MeUser {
  const { user } = session
  return {
    id: user.id,
    email: user.email,
    displayName: profile?.display_name ?? null,
    emailConfirmedAt: user.emailConfirmedAt,
    pendingEmail: user.pendingEmail,
    createdAt: user.createdAt,
    lastSignInAt: user.lastSignInAt,
  }
}

/**
 * `GET /api/me` for a signed-in user; also the answer of every route that signs in. The
 * entitlements are required: a body that showed the free plan to a paying user would be wrong.
 */
export function signedInBody(
  session: ActiveSession,
  profile: ProfileRow,
  entitlements: Entitlements,
): SignedIn {
  return {
    user: meUserOf(session, profile),
    profile: {
      displayName: profile.display_name,
      createdAt: profile.created_at.toISOString(),
      updatedAt: profile.updated_at.toISOString(),
    },
    session: {
      id: session.id,
      recovery: session.recovery,
      createdAt: session.createdAt.toISOString(),
    },
    entitlements,
  }
}
