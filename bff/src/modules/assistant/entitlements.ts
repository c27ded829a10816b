import { entitlementsOf } from '@tessera/contracts'
import type { Entitlements } from '@tessera/contracts'
import type { UserClaims } from '../../platform/db/with-user.ts'

/**
 * Where the assistant learns what a user's plan allows (model, monthly tokens): the one function
 * it calls, given the user's claims so the subscription can be read under RLS.
 */
export type EntitlementsForUser = (claims: UserClaims) => Promise<Entitlements>

/** Every user on the free plan: the assistant's default when no subscriptions are kept. */
export const freeEntitlements: EntitlementsForUser = async () => entitlementsOf(null)
