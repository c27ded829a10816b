import { errorBodySchema, signedInSchema } from '@tessera/contracts'
import { uniqueEmail } from '@tessera/emulators/supabase/test-support'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { databaseSetupTimeout, jsonOf, startIdentityTestApp } from '../../testing/identity.ts'
import type { IdentityTestApp, TestBrowser } from '../../testing/identity.ts'
import { waitFor } from '../../testing/app.ts'

let t: IdentityTestApp
beforeAll(async () => {
  t = await startIdentityTestApp()
}, databaseSetupTimeout)
afterAll(() => t.finish())

/** The stand-in issues access tokens for an hour. */
const tokenLifetimeMs = 3600 * 1000

async function sessionOf(browser: TestBrowser) {
  return signedInSchema.parse(await jsonOf(await browser.get('/api/me'))).session
}

/** Refresh tokens Auth has issued for the session behind a BFF session: one more per refresh. */
async function refreshTokensIssued(bffSessionId: string): Promise<number> {
  const { rows } = await t.db.query<{ issued: number }>(
    `select count(*)::int as issued from auth.refresh_tokens
     where user_id = (select user_id::text from public.bff_sessions where id = $1)`,
    [bffSessionId],
  )
  return rows[0]?.issued ?? 0
}

describe('token refresh', () => {
  it('makes exactly one refresh and one TOKEN_REFRESHED for 20 parallel requests near expiry', async () => {
    const browser = await t.signUp(uniqueEmail('parallel'))
    const { id } = await sessionOf(browser)
    const events = await browser.events()
    await events.next((frame) => frame.data.includes('connection.opened'))
    const refreshesBefore = t.refreshCalls()
    expect(await refreshTokensIssued(id)).toBe(1)

    // 60 s left: inside the 120 s margin, so every request below is due to refresh.
    t.clock.advance(tokenLifetimeMs - 60_000)
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, n) =>
        browser.get(n % 2 === 0 ? '/api/me' : '/api/me/sessions'),
      ),
    )
    expect(responses.map((response) => response.status)).toEqual(Array(20).fill(200))
    await events.next((frame) => frame.data.includes('TOKEN_REFRESHED'))
    await waitFor(() => (t.authEvents(id).includes('TOKEN_REFRESHED') ? true : undefined))

    expect(t.refreshCalls() - refreshesBefore).toBe(1)
    expect(await refreshTokensIssued(id)).toBe(2)
    expect(t.authEvents(id).filter((event) => event === 'TOKEN_REFRESHED')).toHaveLength(1)
    expect(events.frames.filter((frame) => frame.data.includes('TOKEN_REFRESHED'))).toHaveLength(1)
    // The new token is good for another hour: the next requests refresh nothing.
    await Promise.all(Array.from({ length: 5 }, () => browser.get('/api/me')))
    expect(t.refreshCalls() - refreshesBefore).toBe(1)
    await events.cancel()
  })

  it('refreshes once when two BFF processes get requests for one session at the same time', async () => {
    const email = uniqueEmail('two-processes')
    const one = await t.signUp(email)
    const cookie = one.cookie() ?? ''
    const { id } = await sessionOf(one)
    const other = t.secondApp()
    const refreshesBefore = t.refreshCalls()

    // Expired already: every request must wait for fresh tokens (from either process).
    t.clock.advance(tokenLifetimeMs + 1000)
    const request = (app: typeof other) =>
      app.request('/api/me/sessions', { headers: { cookie: `tessera_session=${cookie}` } })
    const responses = await Promise.all(
      Array.from({ length: 10 }, (_, n) => request(n % 2 === 0 ? t.app : other)),
    )
    for (const response of responses) {
      expect(response.status, await response.clone().text()).toBe(200)
      await response.body?.cancel()
    }
    expect(t.refreshCalls() - refreshesBefore).toBe(1)
    expect(await refreshTokensIssued(id)).toBe(2)
  })

  it('signs a session out when Auth no longer accepts its refresh token', async () => {
    const browser = await t.signUp(uniqueEmail('ended-elsewhere'))
    const { id } = await sessionOf(browser)
    const events = await browser.events()
    await events.next((frame) => frame.data.includes('connection.opened'))
    // As if an administrator ended every session of the user at Auth.
    await t.db.query(
      `delete from auth.sessions where user_id = (select user_id from public.bff_sessions where id = $1)`,
      [id],
    )

    t.clock.advance(tokenLifetimeMs + 1000)
    const response = await browser.get('/api/me/sessions')
    expect(response.status).toBe(401)
    expect(errorBodySchema.parse(await response.json()).error.code).toBe('session_revoked')
    expect(browser.cookie()).toBeUndefined()
    await events.next((frame) => frame.data.includes('SIGNED_OUT'))
    await events.closed()
    expect(t.authEvents(id)).toEqual(['SIGNED_IN', 'SIGNED_OUT'])
  })

  it('answers with the current token while it still works and refreshes behind the request', async () => {
    const browser = await t.signUp(uniqueEmail('background'))
    const { id } = await sessionOf(browser)
    const { rows: before } = await t.db.query<{ access_token: string }>(
      'select access_token from public.bff_sessions where id = $1',
      [id],
    )
    t.clock.advance(tokenLifetimeMs - 100_000)
    expect((await browser.get('/api/me')).status).toBe(200)
    await waitFor(async () => {
      const { rows } = await t.db.query<{ access_token: string }>(
        'select access_token from public.bff_sessions where id = $1',
        [id],
      )
      return rows[0]?.access_token !== before[0]?.access_token ? true : undefined
    })
    expect(t.authEvents(id)).toEqual(['SIGNED_IN', 'TOKEN_REFRESHED'])
  })
})

describe('session lifetime', () => {
  const day = 24 * 3600 * 1000

  it('ends a session left unused for longer than the idle timeout, whatever the cookie says', async () => {
    const browser = await t.signUp(uniqueEmail('idle'))
    const { id } = await sessionOf(browser)
    t.clock.advance(6 * day)
    expect((await browser.get('/api/me')).status).toBe(200)

    t.clock.advance(7 * day + 1000)
    const response = await browser.get('/api/me/sessions')
    expect(response.status).toBe(401)
    const body = errorBodySchema.parse(await response.json())
    expect(body.error.code).toBe('session_expired')
    expect(body.error.message).toBe('Your session ended. Sign in again to continue.')
    expect(browser.cookie()).toBeUndefined()
    const { rows } = await t.db.query<{ revoked: boolean }>(
      'select revoked_at is not null as revoked from public.bff_sessions where id = $1',
      [id],
    )
    expect(rows[0]?.revoked).toBe(true)
    expect(t.authEvents(id)).toContain('SIGNED_OUT')
    // Its tabs are told why, so the sign-in page can say it.
    const signedOut = t.published
      .map((message) => message.event.data as { event?: string; sessionId?: string })
      .find((data) => data.event === 'SIGNED_OUT' && data.sessionId === id)
    expect(signedOut).toMatchObject({ reason: 'expired' })
  })

  it('ends a session at its absolute lifetime even when it is used every day', async () => {
    const browser = await t.signUp(uniqueEmail('absolute'))
    for (let days = 3; days < 30; days += 3) {
      t.clock.advance(3 * day)
      expect(signedInSchema.parse(await jsonOf(await browser.get('/api/me'))).user.id).toBeTruthy()
    }
    t.clock.advance(3 * day)
    const response = await browser.get('/api/me/sessions')
    expect(response.status).toBe(401)
    expect(errorBodySchema.parse(await response.json()).error.code).toBe('session_expired')
  })
})

describe('lookups in memory', () => {
  /** Reads the app sent: sessions by cookie, and profiles (in a transaction, as the user). */
  const sent = { sessionReads: 0, profileReads: 0 }
  let counted: IdentityTestApp
  beforeAll(async () => {
    counted = await startIdentityTestApp({
      wrapDb: (db) => ({
        ...db,
        query(text, params) {
          if (text.includes('from "bff_sessions" where "token_hash" =')) sent.sessionReads++
          return db.query(text, params)
        },
        transaction: (fn, options) =>
          db.transaction(
            (tx) =>
              fn({
                ...tx,
                query(text, params) {
                  if (text.startsWith('select * from "profiles"')) sent.profileReads++
                  return tx.query(text, params)
                },
              }),
            options,
          ),
      }),
    })
  }, databaseSetupTimeout)
  afterAll(() => counted.finish())

  it('serves a burst of requests after the kept lookup expired with one session and one profile read', async () => {
    const browser = await counted.signUp(uniqueEmail('burst'))
    expect((await browser.get('/api/me')).status).toBe(200)
    counted.clock.advance(2001)
    sent.sessionReads = 0
    sent.profileReads = 0
    const responses = await Promise.all(Array.from({ length: 20 }, () => browser.get('/api/me')))
    expect(responses.map((response) => response.status)).toEqual(Array(20).fill(200))
    expect(sent).toEqual({ sessionReads: 1, profileReads: 1 })
  })

  it('sees a revocation by another process within 2 s, however often the session is used', async () => {
    const browser = await counted.signUp(uniqueEmail('revoked-elsewhere'))
    const { id } = await sessionOf(browser)
    // Another BFF process revokes it: only the database knows.
    await counted.db.query(
      `update public.bff_sessions
       set revoked_at = now(), access_token = null, refresh_token = null where id = $1`,
      [id],
    )
    counted.clock.advance(1500)
    expect((await browser.get('/api/me/sessions')).status).toBe(200)
    counted.clock.advance(600)
    const response = await browser.get('/api/me/sessions')
    expect(response.status).toBe(401)
    expect(errorBodySchema.parse(await response.json()).error.code).toBe('session_revoked')
  })
})
