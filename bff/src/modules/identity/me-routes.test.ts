import {
  authEventDataSchema,
  deviceSessionListSchema,
  entitlementsOf,
  errorBodySchema,
  liveEventSchema,
  signedInSchema,
} from '@tessera/contracts'
import { uniqueEmail } from '@tessera/emulators/supabase/test-support'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  databaseSetupTimeout,
  jsonOf,
  startIdentityTestApp,
  testPassword,
} from '../../testing/identity.ts'
import type { IdentityTestApp, TestBrowser } from '../../testing/identity.ts'

let t: IdentityTestApp
beforeAll(async () => {
  t = await startIdentityTestApp()
}, databaseSetupTimeout)
afterAll(() => t.finish())

async function errorOf(response: Response) {
  return errorBodySchema.parse(await response.json()).error
}

async function meOf(browser: TestBrowser) {
  return signedInSchema.parse(await jsonOf(await browser.get('/api/me')))
}

const chrome =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/141.0.0.0 Safari/537.36'
const iphone =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 18_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.0 Mobile/15E148 Safari/604.1'

/** The `data` of the next auth event with that name on a stream. */
async function nextAuthEvent(stream: Awaited<ReturnType<TestBrowser['events']>>, name: string) {
  const frame = await stream.next((candidate) => candidate.data.includes(`"event":"${name}"`))
  return authEventDataSchema.parse(liveEventSchema.parse(JSON.parse(frame.data)).data)
}

describe('GET /api/me', () => {
  it('answers a visitor who is not signed in with { user: null }, not an error', async () => {
    const response = await t.browser().get('/api/me')
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({ user: null })
    expect(response.headers.get('cache-control')).toBe('no-store')
    expect(response.headers.get('set-cookie')).toBeNull()
  })

  it('removes a cookie that names no session', async () => {
    for (const cookie of ['x'.repeat(43), 'not even close', '']) {
      const response = await t.app.request('/api/me', {
        headers: { cookie: `tessera_session=${cookie}` },
      })
      expect(response.status).toBe(200)
      expect(await response.json()).toEqual({ user: null })
      if (cookie !== '')
        expect(response.headers.get('set-cookie')).toMatch(/^tessera_session=; Max-Age=0/)
    }
  })

  it('describes the signed-in user, their profile, this session and the entitlements', async () => {
    const email = uniqueEmail('me')
    const browser = await t.signUp(email, { displayName: 'Grace Hopper' })
    const me = await meOf(browser)
    expect(me).toEqual({
      user: {
        id: expect.any(String) as string,
        email,
        displayName: 'Grace Hopper',
        emailConfirmedAt: expect.any(String) as string,
        pendingEmail: null,
        createdAt: expect.any(String) as string,
        lastSignInAt: expect.any(String) as string,
      },
      profile: {
        displayName: 'Grace Hopper',
        createdAt: expect.any(String) as string,
        updatedAt: expect.any(String) as string,
      },
      session: {
        id: expect.any(String) as string,
        recovery: false,
        createdAt: expect.any(String) as string,
      },
      // For the session's current workspace: the user's personal one at first.
      entitlements: {
        ...entitlementsOf(null),
        workspace: { id: expect.any(String) as string, kind: 'personal', role: 'owner', seats: 1 },
      },
      // No role: the operator role is granted by operators only.
      roles: [],
      workspace: {
        id: expect.any(String) as string,
        name: 'Personal',
        kind: 'personal',
        role: 'owner',
      },
    })
  })

  it('needs a session for everything else under /api/me', async () => {
    const visitor = t.browser()
    for (const response of [
      await visitor.get('/api/me/sessions'),
      await visitor.send('PATCH', '/api/me/profile', { displayName: 'Nobody' }),
      await visitor.send('POST', '/api/me/email', { email: uniqueEmail('nobody') }),
      await visitor.send('POST', '/api/me/password', { password: 'whatever it is' }),
      await visitor.send('DELETE', `/api/me/sessions/${crypto.randomUUID()}`),
    ]) {
      expect(response.status).toBe(401)
      expect((await errorOf(response)).code).toBe('unauthenticated')
    }
  })
})

describe('PATCH /api/me/profile', () => {
  it('changes the display name and tells every tab of the user with USER_UPDATED', async () => {
    const email = uniqueEmail('rename')
    const laptop = await t.signUp(email, { displayName: 'Old Name' })
    const phone = await t.signIn(email)
    const laptopEvents = await laptop.events()
    const phoneEvents = await phone.events()
    for (const stream of [laptopEvents, phoneEvents])
      await stream.next((frame) => frame.data.includes('connection.opened'))

    const response = await laptop.send('PATCH', '/api/me/profile', { displayName: '  New Name ' })
    expect(response.status).toBe(200)
    const body = signedInSchema.parse(await response.json())
    expect(body.user.displayName).toBe('New Name')
    expect(body.profile.displayName).toBe('New Name')
    for (const stream of [laptopEvents, phoneEvents]) {
      expect(await nextAuthEvent(stream, 'USER_UPDATED')).toMatchObject({
        sessionId: null,
        user: { email, displayName: 'New Name' },
      })
    }
    expect((await meOf(phone)).user.displayName).toBe('New Name')
    await laptopEvents.cancel()
    await phoneEvents.cancel()
  })

  it('refuses an empty, too long or control-character name, next to the field', async () => {
    const browser = await t.signUp(uniqueEmail('badname'), { displayName: 'Kept' })
    for (const displayName of ['   ', 'x'.repeat(81), 'tab\there', 'rtl\u202eoverride', 42]) {
      const response = await browser.send('PATCH', '/api/me/profile', { displayName })
      expect(response.status).toBe(422)
      const error = await errorOf(response)
      expect(error.code).toBe('validation_failed')
      expect((error.details as { issues: { path: string }[] }).issues[0]?.path).toBe('displayName')
    }
    expect((await meOf(browser)).profile.displayName).toBe('Kept')
  })
})

describe('POST /api/me/email', () => {
  it('changes the address once the new one confirms it', async () => {
    const email = uniqueEmail('moving')
    const newEmail = uniqueEmail('moved')
    const browser = await t.signUp(email)
    const events = await browser.events()
    await events.next((frame) => frame.data.includes('connection.opened'))

    const answer = await browser.send('POST', '/api/me/email', {
      email: newEmail,
      currentPassword: testPassword,
    })
    expect(answer.status).toBe(202)
    expect(await answer.json()).toEqual({ status: 'check_email', email: newEmail })
    expect((await nextAuthEvent(events, 'USER_UPDATED')).user?.pendingEmail).toBe(newEmail)
    expect((await meOf(browser)).user).toMatchObject({ email, pendingEmail: newEmail })

    const mail = await t.mail(newEmail, (message) => message.type === 'email_change')
    const sessionBefore = (await meOf(browser)).session.id
    const confirmed = await browser.send('POST', '/api/auth/confirm', {
      tokenHash: mail.token_hash,
      type: 'email_change',
    })
    expect(confirmed.status).toBe(200)
    const body = signedInSchema.parse(await confirmed.json())
    expect(body.user).toMatchObject({ email: newEmail, pendingEmail: null })
    // The browser keeps its session.
    expect(body.session.id).toBe(sessionBefore)
    const updated = await events.next((frame) =>
      frame.data.includes(
        `"event":"USER_UPDATED","sessionId":null,"user":{"id":"${body.user.id}","email":"${newEmail}"`,
      ),
    )
    expect(JSON.parse(updated.data)).toMatchObject({ data: { user: { pendingEmail: null } } })
    await events.cancel()
    await t.signIn(newEmail)
  })

  it('refuses an address another account uses with email_taken next to the field', async () => {
    const other = uniqueEmail('occupant')
    await t.signUp(other)
    const browser = await t.signUp(uniqueEmail('squatter'))
    const response = await browser.send('POST', '/api/me/email', {
      email: other,
      currentPassword: testPassword,
    })
    expect(response.status).toBe(409)
    expect(await errorOf(response)).toMatchObject({
      code: 'email_taken',
      details: {
        issues: [{ path: 'email', message: 'An account already uses this email address.' }],
      },
    })
  })

  it('asks for the current password, and refuses a wrong one, before anything changes', async () => {
    const email = uniqueEmail('reauth')
    const browser = await t.signUp(email)
    const missing = await browser.send('POST', '/api/me/email', { email: uniqueEmail('elsewhere') })
    expect(missing.status).toBe(422)
    expect((await errorOf(missing)).details).toEqual({
      issues: [{ path: 'currentPassword', message: 'Enter your current password.' }],
    })
    const wrong = await browser.send('POST', '/api/me/email', {
      email: uniqueEmail('elsewhere'),
      currentPassword: `${testPassword}-not`,
    })
    expect(wrong.status).toBe(422)
    expect((await errorOf(wrong)).details).toEqual({
      issues: [{ path: 'currentPassword', message: 'This is not your current password.' }],
    })
    expect((await meOf(browser)).user).toMatchObject({ email, pendingEmail: null })
  })

  it('refuses the address the account has already', async () => {
    const email = uniqueEmail('same')
    const browser = await t.signUp(email)
    const response = await browser.send('POST', '/api/me/email', { email })
    expect(response.status).toBe(422)
    expect((await errorOf(response)).details).toEqual({
      issues: [{ path: 'email', message: 'This is your email address already.' }],
    })
  })
})

describe('POST /api/me/password', () => {
  it('asks for the current password, then changes it and signs out the other devices', async () => {
    const email = uniqueEmail('rotate')
    const laptop = await t.signUp(email)
    const phone = await t.signIn(email)
    const phoneEvents = await phone.events()
    await phoneEvents.next((frame) => frame.data.includes('connection.opened'))

    const missing = await laptop.send('POST', '/api/me/password', { password: 'next passphrase' })
    expect((await errorOf(missing)).details).toEqual({
      issues: [{ path: 'currentPassword', message: 'Enter your current password.' }],
    })
    const wrong = await laptop.send('POST', '/api/me/password', {
      password: 'next passphrase',
      currentPassword: 'not it at all',
    })
    expect((await errorOf(wrong)).details).toEqual({
      issues: [{ path: 'currentPassword', message: 'This is not your current password.' }],
    })
    const same = await laptop.send('POST', '/api/me/password', {
      password: testPassword,
      currentPassword: testPassword,
    })
    expect((await errorOf(same)).details).toEqual({
      issues: [{ path: 'password', message: 'Choose a password different from your current one.' }],
    })

    const changed = await laptop.send('POST', '/api/me/password', {
      password: 'next passphrase',
      currentPassword: testPassword,
    })
    expect(changed.status).toBe(200)
    expect(await nextAuthEvent(phoneEvents, 'SIGNED_OUT')).toMatchObject({ user: null })
    await phoneEvents.closed()
    const phoneNext = await phone.get('/api/me/sessions')
    expect((await errorOf(phoneNext)).code).toBe('session_revoked')
    expect((await meOf(laptop)).user.email).toBe(email)
    const old = await t
      .browser({ client: 'password-check' })
      .send('POST', '/api/auth/sign-in', { email, password: testPassword })
    expect((await errorOf(old)).code).toBe('invalid_credentials')
    await t.signIn(email, 'next passphrase')
  })
})

describe('GET and DELETE /api/me/sessions', () => {
  it('lists the devices with when they were last seen, marking this one', async () => {
    const email = uniqueEmail('devices')
    const laptop = await t.signUp(email, { userAgent: chrome })
    t.clock.advance(5 * 60 * 1000)
    const phone = await t.signIn(email, testPassword, { userAgent: iphone })
    t.clock.advance(2 * 60 * 1000)
    // Seen again after the touch interval: its last-seen time moves.
    await laptop.get('/api/me')
    const list = deviceSessionListSchema.parse(await jsonOf(await phone.get('/api/me/sessions')))
    const byDevice = new Map(list.sessions.map((session) => [session.device, session]))
    expect([...byDevice.keys()].sort()).toEqual(['Chrome on Windows', 'Safari on iPhone'])
    expect(byDevice.get('Safari on iPhone')?.current).toBe(true)
    const laptopRow = byDevice.get('Chrome on Windows')
    expect(laptopRow?.current).toBe(false)
    const seenAfter =
      Date.parse(laptopRow?.lastSeenAt ?? '') - Date.parse(laptopRow?.createdAt ?? '')
    expect(seenAfter).toBeGreaterThanOrEqual(7 * 60 * 1000)
    // Enough to tell the rows apart: browser and version, system, how each signed in, where.
    expect(laptopRow).toMatchObject({
      browser: 'Chrome 141',
      os: 'Windows',
      signInMethod: 'email_confirmation',
      lastSeenAddress: expect.any(String) as string,
    })
    expect(byDevice.get('Safari on iPhone')).toMatchObject({
      browser: 'Safari 18.0',
      os: 'iOS 18.0',
      signInMethod: 'password',
    })
  })

  it('keeps the address a session was last seen from, written only with its last-seen time', async () => {
    const email = uniqueEmail('addresses')
    const laptop = await t.signUp(email, { userAgent: chrome })
    const cookie = `tessera_session=${laptop.cookie() ?? ''}`
    const from = (address: string) =>
      t.request('/api/me', { headers: { cookie, 'x-test-client': address, 'user-agent': chrome } })
    const addressOf = async () =>
      deviceSessionListSchema.parse(await jsonOf(await laptop.get('/api/me/sessions'))).sessions[0]
        ?.lastSeenAddress
    const signedInFrom = await addressOf()
    // Within the touch interval a new address writes nothing: no write for every request.
    expect((await from('198.51.100.7')).status).toBe(200)
    expect(await addressOf()).toBe(signedInFrom)
    t.clock.advance(2 * 60 * 1000)
    expect((await from('198.51.100.7')).status).toBe(200)
    expect(await addressOf()).toBe('198.51.100.7')
  })

  it('revokes another device: it hears SIGNED_OUT and is signed out at its next request', async () => {
    const email = uniqueEmail('revoke')
    const laptop = await t.signUp(email)
    const stolen = await t.signIn(email)
    const stolenEvents = await stolen.events()
    const laptopEvents = await laptop.events()
    for (const stream of [stolenEvents, laptopEvents])
      await stream.next((frame) => frame.data.includes('connection.opened'))
    const target = (await meOf(stolen)).session.id
    const stolenCookie = `tessera_session=${stolen.cookie() ?? ''}`

    const response = await laptop.send('DELETE', `/api/me/sessions/${target}`)
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({ status: 'revoked', current: false })
    expect(await nextAuthEvent(stolenEvents, 'SIGNED_OUT')).toMatchObject({
      sessionId: target,
      reason: 'revoked',
    })
    await stolenEvents.closed()
    // The laptop's tabs hear of it too (a sessions page can refresh), and keep listening.
    expect(await nextAuthEvent(laptopEvents, 'SIGNED_OUT')).toMatchObject({ sessionId: target })
    await laptop.send('PATCH', '/api/me/profile', { displayName: 'Still here' })
    expect((await nextAuthEvent(laptopEvents, 'USER_UPDATED')).user?.displayName).toBe('Still here')
    expect(laptopEvents.ended()).toBe(false)
    await laptopEvents.cancel()
    const next = await stolen.get('/api/me/sessions')
    expect(next.status).toBe(401)
    expect((await errorOf(next)).code).toBe('session_revoked')
    // Its tokens are gone from the database, and Auth ended its session too.
    const { rows } = await t.db.query<{ access_token: string | null; revoked_at: Date | null }>(
      'select access_token, revoked_at from public.bff_sessions where id = $1',
      [target],
    )
    expect(rows[0]).toMatchObject({ access_token: null, revoked_at: expect.any(Date) as Date })
    expect((await meOf(laptop)).user.email).toBe(email)
    // A tab that missed the event (asleep, reloaded) still learns why at its next start.
    const me = await t.request('/api/me', { headers: { cookie: stolenCookie } })
    expect(await me.json()).toEqual({ user: null, ended: 'revoked' })
  })

  it('revoking this browser’s own session signs it out', async () => {
    const browser = await t.signUp(uniqueEmail('self'))
    const id = (await meOf(browser)).session.id
    const response = await browser.send('DELETE', `/api/me/sessions/${id}`)
    expect(await response.json()).toEqual({ status: 'revoked', current: true })
    expect(browser.cookie()).toBeUndefined()
    expect(await jsonOf(await browser.get('/api/me'))).toEqual({ user: null })
  })

  it('answers not_found for another user’s session, a revoked one or a malformed id', async () => {
    const mine = await t.signUp(uniqueEmail('mine'))
    const theirs = await t.signUp(uniqueEmail('theirs'))
    const theirId = (await meOf(theirs)).session.id
    for (const id of [theirId, crypto.randomUUID(), 'not-a-uuid', "1' or '1'='1"]) {
      const response = await mine.send('DELETE', `/api/me/sessions/${encodeURIComponent(id)}`)
      expect(response.status, id).toBe(404)
      expect((await errorOf(response)).code).toBe('not_found')
    }
    expect((await meOf(theirs)).session.id).toBe(theirId)
  })
})
