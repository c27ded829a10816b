import { createRemoteJWKSet, decodeJwt, jwtVerify } from 'jose'
import type { JWTVerifyGetKey } from 'jose'
import type { Clock } from '../../platform/clock.ts'
import type { UserClaims } from '../../platform/db/with-user.ts'

export interface AccessTokenVerifier {
  /** Verifies a Supabase access token (ES256 via the issuer's JWKS, iss, aud, exp); throws if not. */
  verify(token: string): Promise<UserClaims>
}

export interface AccessTokenVerifierOptions {
  /** `<project>/auth/v1/.well-known/jwks.json`. */
  jwksUrl: string
  /** The `iss` Supabase Auth writes: `<project>/auth/v1`. */
  issuer: string
  clock: Clock
  /** Sent as `apikey` when fetching the keys (Supabase's gateway may ask for it). */
  apiKey?: string
  /** Keys fetched elsewhere (tests); by default they come from `jwksUrl`. */
  keys?: JWTVerifyGetKey
}

/** Checks Supabase access tokens against the issuer's published keys; the keys are cached. */
export function createAccessTokenVerifier(
  options: AccessTokenVerifierOptions,
): AccessTokenVerifier {
  const keys =
    options.keys ??
    createRemoteJWKSet(new URL(options.jwksUrl), {
      headers: options.apiKey === undefined ? {} : { apikey: options.apiKey },
    })
  return {
    async verify(token) {
      const { payload } = await jwtVerify(token, keys, {
        // Pinned: a token must never choose its own algorithm (no HS256 with a public key, no none).
        algorithms: ['ES256'],
        issuer: options.issuer,
        audience: 'authenticated',
        currentDate: new Date(options.clock.now()),
        requiredClaims: ['exp', 'sub'],
      })
      return payload as UserClaims
    },
  }
}

/** The claims of a token verified when it was received (stored tokens are not re-verified). */
export function claimsOf(token: string): UserClaims {
  return decodeJwt(token) as UserClaims
}
