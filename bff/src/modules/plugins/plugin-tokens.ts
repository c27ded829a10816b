import type { Entitlements } from '@tessera/contracts'
import { SignJWT } from 'jose'
import type { Clock } from '../../platform/clock.ts'
import { createRecentCache } from '../../platform/recent-cache.ts'
import { PLUGIN_JWT_ALG } from './signing-keys.ts'
import type { PluginSigningKeys } from './signing-keys.ts'

/** How long a plugin token is valid. */
export const PLUGIN_TOKEN_LIFETIME_SECONDS = 60
/**
 * How long one token is reused for the same user, plugin and claims: signing costs more than the
 * rest of a forwarded request, and an upstream still gets at least 50 s of validity.
 */
export const PLUGIN_TOKEN_REUSE_MS = 10_000

/** Who a plugin token speaks for. */
export interface PluginTokenSubject {
  userId: string
  email: string
  entitlements: Entitlements
}

/** The claims of a plugin token, as a plugin's service reads them after verifying it. */
export interface PluginTokenClaims {
  iss: string
  aud: string
  sub: string
  email: string
  entitlements: Entitlements
  iat: number
  exp: number
  jti: string
}

export interface PluginTokens {
  /** A token for `plugin` (its audience) speaking for `subject`, signed with the BFF's key. */
  issue(plugin: string, subject: PluginTokenSubject): Promise<string>
}

/** Signs plugin tokens (ES256, `kid` in the header), reusing each for a few seconds. */
export function createPluginTokens(deps: {
  keys: () => Promise<PluginSigningKeys>
  /** `iss`: the BFF's public origin. */
  issuer: string
  clock: Clock
}): PluginTokens {
  const { clock, issuer } = deps
  const recent = createRecentCache<string>({ max: 10_000, ttlMs: PLUGIN_TOKEN_REUSE_MS, clock })

  const sign = async (plugin: string, subject: PluginTokenSubject): Promise<string> => {
    const keys = await deps.keys()
    const issuedAt = Math.floor(clock.now() / 1000)
    return new SignJWT({ email: subject.email, entitlements: subject.entitlements })
      .setProtectedHeader({ alg: PLUGIN_JWT_ALG, kid: keys.kid, typ: 'JWT' })
      .setIssuer(issuer)
      .setAudience(plugin)
      .setSubject(subject.userId)
      .setIssuedAt(issuedAt)
      .setExpirationTime(issuedAt + PLUGIN_TOKEN_LIFETIME_SECONDS)
      .setJti(crypto.randomUUID())
      .sign(keys.privateKey)
  }

  return {
    async issue(plugin, subject) {
      // Every claim is in the key: a changed plan or address gets a new token at once.
      const key = `${plugin}\n${subject.userId}\n${subject.email}\n${JSON.stringify(subject.entitlements)}`
      const token = await recent.getOrLoad(key, () => sign(plugin, subject))
      if (token === null) throw new Error('a plugin token could not be signed')
      return token
    },
  }
}
