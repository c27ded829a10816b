import { SignJWT, createLocalJWKSet, exportJWK, generateKeyPair } from 'jose'
import type { JWTPayload } from 'jose'
import { beforeAll, describe, expect, it } from 'vitest'
import { createManualClock } from '../../testing/app.ts'
import { claimsOf, createAccessTokenVerifier } from './access-tokens.ts'
import type { AccessTokenVerifier } from './access-tokens.ts'

const issuer = 'http://127.0.0.1:54321/auth/v1'
const clock = createManualClock()
const now = () => Math.floor(clock.now() / 1000)
let sign: (claims: JWTPayload, alg?: 'ES256' | 'ES384') => Promise<string>
let verifier: AccessTokenVerifier

beforeAll(async () => {
  const es256 = await generateKeyPair('ES256')
  const es384 = await generateKeyPair('ES384')
  const jwks = createLocalJWKSet({
    keys: [
      { ...(await exportJWK(es256.publicKey)), kid: 'es256', alg: 'ES256' },
      { ...(await exportJWK(es384.publicKey)), kid: 'es384', alg: 'ES384' },
    ],
  })
  sign = (claims, alg = 'ES256') =>
    new SignJWT(claims)
      .setProtectedHeader({ alg, kid: alg === 'ES256' ? 'es256' : 'es384', typ: 'JWT' })
      .sign(alg === 'ES256' ? es256.privateKey : es384.privateKey)
  verifier = createAccessTokenVerifier({
    jwksUrl: `${issuer}/.well-known/jwks.json`,
    issuer,
    clock,
    keys: jwks,
  })
})

const good = (): JWTPayload => ({
  iss: issuer,
  aud: 'authenticated',
  sub: crypto.randomUUID(),
  role: 'authenticated',
  iat: now(),
  exp: now() + 3600,
})

describe('createAccessTokenVerifier', () => {
  it('accepts an ES256 token from the issuer for authenticated users and returns its claims', async () => {
    const claims = good()
    const token = await sign(claims)
    expect(await verifier.verify(token)).toMatchObject({ sub: claims.sub, role: 'authenticated' })
    expect(claimsOf(token).sub).toBe(claims.sub)
  })

  it('refuses another algorithm, issuer, audience, an expired token and a forged one', async () => {
    const refused = [
      await sign(good(), 'ES384'),
      await sign({ ...good(), iss: 'https://evil.example/auth/v1' }),
      await sign({ ...good(), aud: 'anon' }),
      await sign({ ...good(), exp: now() - 1 }),
      `${(await sign(good())).slice(0, -4)}AAAA`,
      // alg none, hand-made
      `${btoa(JSON.stringify({ alg: 'none' }))}.${btoa(JSON.stringify(good()))}.`,
    ]
    for (const token of refused) await expect(verifier.verify(token)).rejects.toThrow()
  })

  it('reads the time from the clock it was given', async () => {
    const token = await sign(good())
    clock.advance(3601 * 1000)
    await expect(verifier.verify(token)).rejects.toThrow(/exp/)
  })
})
