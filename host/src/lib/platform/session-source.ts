/** Where the host's session comes from: one read of `GET /api/me`, as a snapshot. */
import { z } from 'zod/mini'
import {
  ApiError,
  EVENTS_POSITION_HEADER,
  entitlementsSchema,
  type PlatformApi,
  type SessionState,
  type SignedOutReason,
} from '@tessera/contracts'

/**
 * What one read of the session says: the state plugins see, plus what the store needs to tell
 * events apart (which BFF session this tab is on, whether it came from a recovery link).
 */
export interface SessionSnapshot {
  state: SessionState
  sessionId: string | null
  recovery: boolean
}

/** Where the session comes from: `GET /api/me` in the app, a fake in tests. */
export type SessionSource = () => Promise<SessionSnapshot>

export const signedOutSnapshot: SessionSnapshot = {
  state: { status: 'signed-out', user: null },
  sessionId: null,
  recovery: false,
}

/** Signed out by something other than this tab, and why (the sign-in page says it). */
export function signedOutBecause(reason: SignedOutReason | undefined): SessionSnapshot {
  if (reason === undefined) return signedOutSnapshot
  return { ...signedOutSnapshot, state: { status: 'signed-out', user: null, reason } }
}

// Lenient on purpose: extra fields are ignored, so a newer BFF does not sign everybody out.
const meBodySchema = z.object({
  user: z.nullable(
    z.object({
      id: z.string(),
      email: z.string(),
      displayName: z.optional(z.nullable(z.string())),
    }),
  ),
  session: z.optional(z.object({ id: z.string(), recovery: z.optional(z.boolean()) })),
  // Entitlements a newer BFF shapes differently are dropped (plugins read absent as unknown).
  entitlements: z.catch(z.optional(entitlementsSchema), undefined),
  // The cookie's session ended: revoked from elsewhere, or expired.
  ended: z.catch(z.optional(z.enum(['revoked', 'expired'])), undefined),
})

/** Turns a `GET /api/me` body into a snapshot; null when it is not one. */
export function snapshotFromMe(body: unknown): SessionSnapshot | null {
  const parsed = meBodySchema.safeParse(body)
  if (!parsed.success) return null
  const { user, session, entitlements, ended } = parsed.data
  if (user === null) {
    if (ended === undefined) return signedOutSnapshot
    return signedOutBecause(ended === 'revoked' ? 'other-device' : 'expired')
  }
  return {
    state: {
      status: 'signed-in',
      user: { id: user.id, email: user.email, displayName: user.displayName ?? null },
      ...(entitlements ? { entitlements } : {}),
    },
    sessionId: session?.id ?? null,
    recovery: session?.recovery ?? false,
  }
}

/**
 * Reads the session from `GET /api/me` (`{ user: null }` when signed out). A BFF without the
 * route (`not_found`) or one that says `unauthenticated` means nobody is signed in.
 * `onEventsPosition` hears, after each read, where the live events stood when the BFF made it
 * (null when it did not say, or the read failed): the page's first stream starts from there.
 */
export function meSessionSource(
  api: PlatformApi,
  { onEventsPosition }: { onEventsPosition?: (position: string | null) => void } = {},
): SessionSource {
  return async () => {
    let body: unknown
    let position: string | null
    try {
      // In the default cache mode, as index.html preloads it, so the first read reuses the
      // preload's answer; the BFF sends `/api/me` with `no-store`, so no later read is cached.
      const response = await api.fetch('/api/me')
      position = response.headers.get(EVENTS_POSITION_HEADER)
      body = await response.json()
    } catch (error) {
      onEventsPosition?.(null)
      if (
        error instanceof ApiError &&
        (error.code === 'not_found' ||
          error.code === 'unauthenticated' ||
          error.code === 'session_revoked')
      ) {
        return signedOutSnapshot
      }
      throw error
    }
    onEventsPosition?.(position)
    const snapshot = snapshotFromMe(body)
    if (snapshot === null) throw new Error('GET /api/me answered with a body we could not read')
    return snapshot
  }
}
