import { entitlementsOf } from '@tessera/contracts'
import type { Entitlements } from '@tessera/contracts'
import type { UserClaims } from '../../platform/db/with-user.ts'

/**
 * Where the assistant learns what a user's plan allows (model, monthly tokens): the one function
 * it calls, given the user's claims so the subscription can be read under RLS.
 */
export type EntitlementsForUser = (
  claims: UserClaims,
  /**
   * The workspace asked about (a team's id for a send or usage in it; null or absent: the
   * session's current one, as `GET /api/me` answers). For a team, `monthlyTokens` is its pool.
   */
  workspaceId?: string | null,
) => Promise<Entitlements>

/** Every user on the free plan: the assistant's default when no subscriptions are kept. */
export const freeEntitlements: EntitlementsForUser = async () => entitlementsOf(null)
