import { AuthApiError, AuthSessionMissingError } from '@supabase/supabase-js'
import type { SupabaseClient } from '@supabase/supabase-js'
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startSupabaseEmulator } from './node.ts'
import type { TestSupabase } from './test-support.ts'
import { recordAuthEvents, startTestSupabase, uniqueEmail } from './test-support.ts'
import { databaseSetupTimeout } from '@tessera/db/testing'

let supabase: TestSupabase
beforeAll(async () => {
  supabase = await startTestSupabase()
}, databaseSetupTimeout)
afterAll(async () => {
  await supabase.stop()
})

const password = 'correct horse battery'

/** A confirmed user and a client signed in as them. */
async function signedIn(label: string): Promise<{ client: SupabaseClient; email: string }> {
  const email = uniqueEmail(label)
  const created = await supabase
    .adminClient()
    .auth.admin.createUser({ email, password, email_confirm: true })
  expect(created.error).toBeNull()
  const client = supabase.client()
  const { error } = await client.auth.signInWithPassword({ email, password })
  expect(error).toBeNull()
  return { client, email }
}

async function currentSession(client: SupabaseClient) {
  const { data } = await client.auth.getSession()
  if (data.session === null) throw new Error('expected a session')
  return data.session
}

describe('refresh tokens', () => {
  it('rotates the refresh token on refreshSession and fires TOKEN_REFRESHED', async () => {
    const { client } = await signedIn('rotate')
    const events = recordAuthEvents(client)
    const before = await currentSession(client)
    supabase.clock.advance(1000)

    const { data, error } = await client.auth.refreshSession()
    expect(error).toBeNull()
    expect(data.session?.refresh_token).not.toBe(before.refresh_token)
    expect(data.session?.access_token).not.toBe(before.access_token)
    expect(events).toContain('TOKEN_REFRESHED')

    const next = await supabase
      .client()
      .auth.refreshSession({ refresh_token: data.session?.refresh_token ?? '' })
    expect(next.error).toBeNull()
  })

  it('gives the same child back when a rotated token is replayed within the reuse interval', async () => {
    const { client } = await signedIn('reuse-ok')
    const parent = (await currentSession(client)).refresh_token
    const first = await supabase.client().auth.refreshSession({ refresh_token: parent })
    supabase.clock.advance(5_000)
    const replay = await supabase.client().auth.refreshSession({ refresh_token: parent })
    expect(replay.error).toBeNull()
    expect(replay.data.session?.refresh_token).toBe(first.data.session?.refresh_token)
  })

  it('treats a replay after the reuse interval as theft: refresh_token_already_used and the session is dead', async () => {
    const { client } = await signedIn('reuse-late')
    const parent = (await currentSession(client)).refresh_token
    const child =
      (await supabase.client().auth.refreshSession({ refresh_token: parent })).data.session
        ?.refresh_token ?? ''
    supabase.clock.advance(11_000)

    const stolen = await supabase.client().auth.refreshSession({ refresh_token: parent })
    expect(stolen.error).toBeInstanceOf(AuthApiError)
    expect(stolen.error?.code).toBe('refresh_token_already_used')

    // The legitimate holder's token was revoked with the rest of the family.
    const legit = await supabase.client().auth.refreshSession({ refresh_token: child })
    expect(legit.error?.code).toBe('refresh_token_already_used')
  })

  it('answers refresh_token_not_found for a token it never issued', async () => {
    const { error } = await supabase.client().auth.refreshSession({ refresh_token: 'not-a-token' })
    expect(error).toBeInstanceOf(AuthApiError)
    expect(error?.code).toBe('refresh_token_not_found')
  })
})

describe('sign-out scopes', () => {
  it('signs out this session only with scope local: SIGNED_OUT, and its refresh token stops working', async () => {
    const { client, email } = await signedIn('local')
    const other = supabase.client()
    await other.auth.signInWithPassword({ email, password })
    const events = recordAuthEvents(client)
    const { refresh_token: refreshToken, access_token: accessToken } = await currentSession(client)

    expect((await client.auth.signOut({ scope: 'local' })).error).toBeNull()
    expect(events).toContain('SIGNED_OUT')
    expect((await client.auth.getSession()).data.session).toBeNull()
    expect(
      (await supabase.client().auth.refreshSession({ refresh_token: refreshToken })).error?.code,
    ).toBe('refresh_token_not_found')
    const stale = await supabase.client().auth.getUser(accessToken)
    expect(stale.error).toBeInstanceOf(AuthSessionMissingError)
    // The other device is still signed in.
    expect((await other.auth.getUser()).data.user?.email).toBe(email)
  })

  it('signs out every other session with scope others and keeps this one', async () => {
    const { client, email } = await signedIn('others')
    const other = supabase.client()
    await other.auth.signInWithPassword({ email, password })
    const otherRefresh = (await currentSession(other)).refresh_token

    expect((await client.auth.signOut({ scope: 'others' })).error).toBeNull()
    expect((await client.auth.getUser()).data.user?.email).toBe(email)
    expect(
      (await supabase.client().auth.refreshSession({ refresh_token: otherRefresh })).error?.code,
    ).toBe('refresh_token_not_found')
  })

  it('signs out everywhere with scope global', async () => {
    const { client, email } = await signedIn('global')
    const other = supabase.client()
    await other.auth.signInWithPassword({ email, password })
    const otherAccess = (await currentSession(other)).access_token

    expect((await client.auth.signOut()).error).toBeNull()
    const { error } = await supabase.client().auth.getUser(otherAccess)
    expect(error).toBeInstanceOf(AuthSessionMissingError)
  })
})

describe('access tokens', () => {
  it('are ES256 JWTs with a kid that getClaims verifies through the JWKS', async () => {
    const { client, email } = await signedIn('claims')
    const { access_token: token } = await currentSession(client)
    expect(decodeProtectedHeader(token)).toMatchObject({
      alg: 'ES256',
      typ: 'JWT',
      kid: expect.any(String),
    })

    const { data, error } = await client.auth.getClaims()
    expect(error).toBeNull()
    expect(data?.header.alg).toBe('ES256')
    expect(data?.claims).toMatchObject({
      iss: `${supabase.url}/auth/v1`,
      aud: 'authenticated',
      role: 'authenticated',
      email,
      aal: 'aal1',
      is_anonymous: false,
      session_id: expect.any(String),
      amr: [{ method: 'password', timestamp: expect.any(Number) }],
      app_metadata: { provider: 'email', providers: ['email'] },
    })
    expect((data?.claims.exp ?? 0) - (data?.claims.iat ?? 0)).toBe(3600)

    // Any verifier can use the published keys.
    const jwks = createRemoteJWKSet(new URL(supabase.jwksUrl))
    const verified = await jwtVerify(token, jwks, {
      algorithms: ['ES256'],
      issuer: `${supabase.url}/auth/v1`,
      audience: 'authenticated',
      currentDate: supabase.clock.now(),
    })
    expect(verified.payload.sub).toBe(data?.claims.sub)
  })

  it('stop working for getUser once expired (bad_jwt)', async () => {
    const { client } = await signedIn('expiry')
    const { access_token: token } = await currentSession(client)
    supabase.clock.advance(3601_000)
    const { error } = await supabase.client().auth.getUser(token)
    expect(error).toBeInstanceOf(AuthApiError)
    expect(error?.status).toBe(403)
    expect(error?.code).toBe('bad_jwt')
  })

  it('survive a restart: the signing key is kept in the database', async () => {
    const { client } = await signedIn('restart')
    const { access_token: token } = await currentSession(client)
    const restarted = await startSupabaseEmulator({
      db: supabase.db,
      port: 0,
      mailboxPort: 0,
      clock: supabase.clock,
      jwtIssuer: `${supabase.url}/auth/v1`,
    })
    try {
      const response = await fetch(`${restarted.url}/auth/v1/user`, {
        headers: { apikey: restarted.anonKey, authorization: `Bearer ${token}` },
      })
      expect(response.status).toBe(200)
      const keys = (await (await fetch(restarted.jwksUrl)).json()) as {
        keys: Array<{ kid: string }>
      }
      expect(keys.keys.map((key) => key.kid)).toEqual([decodeProtectedHeader(token).kid])
    } finally {
      await restarted.close()
    }
  })
})
