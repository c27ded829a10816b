import { errorBodySchema, meResponseSchema, signedInSchema } from '@tessera/contracts'
import { uniqueEmail } from '@tessera/emulators/supabase/test-support'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  databaseSetupTimeout,
  jsonOf,
  startIdentityTestApp,
  testPassword,
} from '../../testing/identity.ts'
import type { IdentityTestApp, TestBrowser } from '../../testing/identity.ts'
import { csrfHeaders } from '../../testing/app.ts'

let t: IdentityTestApp
beforeAll(async () => {
  t = await startIdentityTestApp({
    env: {
      SIGN_IN_FREE_FAILURES_PER_ACCOUNT: '3',
      SIGN_IN_MAX_FAILURES_PER_CLIENT: '6',
      EMAIL_SEND_RATE_LIMIT: '4',
    },
    // Stricter than the BFF's own minimum, so Auth's weak_password answer can be seen.
    supabase: { passwordMinLength: 12 },
  })
}, databaseSetupTimeout)
afterAll(() => t.finish())

async function errorOf(response: Response) {
  return errorBodySchema.parse(await response.json()).error
}

async function signedInAs(browser: TestBrowser) {
  const me = meResponseSchema.parse(await jsonOf(await browser.get('/api/me')))
  return me.user === null ? null : signedInSchema.parse(me)
}

describe('POST /api/auth/sign-up and /api/auth/confirm', () => {
  it('sends a confirmation email and signs in when its link is opened', async () => {
    const email = uniqueEmail('ada')
    const visitor = t.browser()
    const answer = await visitor.send('POST', '/api/auth/sign-up', {
      email: `  ${email.toUpperCase()} `,
      password: testPassword,
      displayName: 'Ada Lovelace',
      next: '/billing',
    })
    expect(answer.status).toBe(202)
    expect(await answer.json()).toEqual({ status: 'check_email', email })
    expect(visitor.cookie()).toBeUndefined()

    const mail = await t.mail(email)
    expect(mail.type).toBe('signup')
    const link = new URL(mail.links[0] ?? '')
    expect(link.origin + link.pathname).toBe('http://app.tessera.test/auth/confirm')
    expect(link.searchParams.get('next')).toBe('http://app.tessera.test/billing')
    const confirmed = await visitor.send('POST', '/api/auth/confirm', {
      tokenHash: link.searchParams.get('token_hash'),
      type: link.searchParams.get('type'),
    })
    expect(confirmed.status).toBe(200)
    const body = signedInSchema.parse(await confirmed.json())
    expect(body).toMatchObject({
      user: { email, displayName: 'Ada Lovelace', pendingEmail: null },
      profile: { displayName: 'Ada Lovelace' },
      session: { recovery: false },
      entitlements: { plan: 'free' },
    })
    expect(body.user.emailConfirmedAt).not.toBeNull()
    expect(visitor.cookie()).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(confirmed.headers.get('cache-control')).toBe('no-store')
    expect(t.authEvents(body.session.id)).toEqual(['SIGNED_IN'])
    expect((await signedInAs(visitor))?.user.id).toBe(body.user.id)
  })

  it('answers a sign-up for a taken address like any other and sends it nothing', async () => {
    const email = uniqueEmail('taken')
    await t.signUp(email)
    const before = (await t.supabase.mailTo(email)).length
    const again = await t.browser().send('POST', '/api/auth/sign-up', {
      email,
      password: 'another long password',
    })
    expect(again.status).toBe(202)
    expect(await again.json()).toEqual({ status: 'check_email', email })
    expect((await t.supabase.mailTo(email)).length).toBe(before)
  })

  it('refuses a password Auth finds too weak with weak_password next to the password field', async () => {
    const response = await t.browser().send('POST', '/api/auth/sign-up', {
      email: uniqueEmail('weak'),
      password: 'nine char',
    })
    expect(response.status).toBe(422)
    const error = await errorOf(response)
    expect(error.code).toBe('weak_password')
    expect(error.details).toEqual({
      issues: [{ path: 'password', message: expect.stringContaining('12') as string }],
    })
  })

  it('refuses a short password and a malformed address before asking Auth, next to each field', async () => {
    const response = await t.browser().send('POST', '/api/auth/sign-up', {
      email: 'not an address',
      password: 'short',
    })
    expect(response.status).toBe(422)
    const error = await errorOf(response)
    expect(error.code).toBe('validation_failed')
    expect(error.details).toEqual({
      issues: [
        { path: 'email', message: 'Enter a valid email address, like name@example.com.' },
        { path: 'password', message: 'Choose a password of at least 8 characters.' },
      ],
    })
  })

  it('answers link_expired for a link that was used already or never existed', async () => {
    const email = uniqueEmail('twice')
    const visitor = t.browser()
    await visitor.send('POST', '/api/auth/sign-up', { email, password: testPassword })
    const mail = await t.mail(email)
    const confirm = () =>
      t.browser().send('POST', '/api/auth/confirm', { tokenHash: mail.token_hash, type: 'signup' })
    expect((await confirm()).status).toBe(200)
    const reused = await confirm()
    expect(reused.status).toBe(410)
    expect((await errorOf(reused)).code).toBe('link_expired')
    const unknown = await t
      .browser()
      .send('POST', '/api/auth/confirm', { tokenHash: 'a'.repeat(56), type: 'signup' })
    expect((await errorOf(unknown)).code).toBe('link_expired')
  })
})

describe('POST /api/auth/sign-in and /api/auth/sign-out', () => {
  it('refuses to sign in before the address is confirmed', async () => {
    const email = uniqueEmail('unconfirmed')
    await t.browser().send('POST', '/api/auth/sign-up', { email, password: testPassword })
    const response = await t
      .browser()
      .send('POST', '/api/auth/sign-in', { email, password: testPassword })
    expect(response.status).toBe(403)
    const error = await errorOf(response)
    expect(error.code).toBe('email_not_confirmed')
    expect(error.details).toEqual({
      issues: [{ path: 'email', message: 'Confirm this address first.' }],
    })
  })

  it('answers a wrong password and an unknown address alike with invalid_credentials', async () => {
    const email = uniqueEmail('wrong')
    await t.signUp(email)
    const wrong = await t
      .browser({ client: 'wrong-password' })
      .send('POST', '/api/auth/sign-in', { email, password: 'not the password' })
    const unknown = await t
      .browser({ client: 'wrong-password' })
      .send('POST', '/api/auth/sign-in', { email: uniqueEmail('nobody'), password: testPassword })
    for (const response of [wrong, unknown]) {
      expect(response.status).toBe(401)
      expect(await errorOf(response)).toMatchObject({
        code: 'invalid_credentials',
        message: 'The email address or password is not correct.',
      })
      expect(response.headers.get('set-cookie')).toBeNull()
    }
  })

  it('signs in with a password, then out on this device only', async () => {
    const email = uniqueEmail('inout')
    await t.signUp(email)
    const laptop = await t.signIn(email)
    const phone = await t.signIn(email)
    const laptopCookie = laptop.cookie()
    const session = (await signedInAs(laptop))?.session.id ?? ''
    expect(t.authEvents(session)).toEqual(['SIGNED_IN'])

    const out = await laptop.send('POST', '/api/auth/sign-out', { scope: 'local' })
    expect(out.status).toBe(200)
    expect(await out.json()).toEqual({ status: 'signed_out' })
    expect(laptop.setCookies.at(-1)).toMatch(
      /^tessera_session=; Max-Age=0; Path=\/; HttpOnly; SameSite=Lax$/,
    )
    expect(laptop.cookie()).toBeUndefined()
    expect(t.authEvents(session)).toEqual(['SIGNED_IN', 'SIGNED_OUT'])
    expect(await signedInAs(laptop)).toBeNull()
    expect(await signedInAs(phone)).not.toBeNull()

    // The old cookie, replayed, names a revoked session.
    const replay = await t.app.request('/api/me/sessions', {
      headers: { cookie: `tessera_session=${laptopCookie ?? ''}` },
    })
    expect(replay.status).toBe(401)
    expect((await errorOf(replay)).code).toBe('session_revoked')
  })

  it('signs out everywhere: every device hears SIGNED_OUT and is signed out at its next request', async () => {
    const email = uniqueEmail('everywhere')
    await t.signUp(email)
    const laptop = await t.signIn(email)
    const phone = await t.signIn(email)
    const phoneEvents = await phone.events()
    await phoneEvents.next((frame) => frame.data.includes('connection.opened'))
    const laptopSession = (await signedInAs(laptop))?.session.id
    const phoneSession = (await signedInAs(phone))?.session.id ?? 'unknown'

    const out = await laptop.send('POST', '/api/auth/sign-out', { scope: 'global' })
    expect(out.status).toBe(200)
    // The user's streams hear every session's SIGNED_OUT, in either order: take the phone's own.
    const signedOut = await phoneEvents.next(
      (frame) => frame.data.includes('SIGNED_OUT') && frame.data.includes(phoneSession),
    )
    // The phone was signed out from elsewhere; the laptop signed itself out.
    expect(JSON.parse(signedOut.data)).toMatchObject({
      type: 'auth',
      data: { event: 'SIGNED_OUT', user: null, reason: 'revoked' },
    })
    const laptopOut = t.published
      .map((message) => message.event.data as { event?: string; sessionId?: string })
      .find((data) => data.event === 'SIGNED_OUT' && data.sessionId === laptopSession)
    expect(laptopOut).toMatchObject({ reason: 'signed_out' })
    // The stream ends after SIGNED_OUT, so EventSource reconnects as a signed-out visitor.
    await phoneEvents.closed()
    const next = await phone.get('/api/me/sessions')
    expect(next.status).toBe(401)
    expect((await errorOf(next)).code).toBe('session_revoked')
    expect(phone.cookie()).toBeUndefined()
    expect(await signedInAs(laptop)).toBeNull()
  })

  it('ends the session a browser had when it signs in again', async () => {
    const email = uniqueEmail('again')
    await t.signUp(email)
    const browser = await t.signIn(email)
    const first = (await signedInAs(browser))?.session.id
    const again = await browser.send('POST', '/api/auth/sign-in', { email, password: testPassword })
    expect(again.status).toBe(200)
    const second = signedInSchema.parse(await again.json()).session.id
    expect(second).not.toBe(first)
    const sessions = await jsonOf<{ sessions: { id: string }[] }>(
      await browser.get('/api/me/sessions'),
    )
    expect(sessions.sessions.map((session) => session.id)).not.toContain(first)
  })

  it('answers a sign-out without a session with signed_out all the same', async () => {
    const response = await t.browser().send('POST', '/api/auth/sign-out', {})
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({ status: 'signed_out' })
  })
})

describe('sign-in throttling', () => {
  const signInFrom = (client: string, email: string, password: string) =>
    t.browser({ client }).send('POST', '/api/auth/sign-in', { email, password })

  it('delays an account’s next password attempt after repeated failures, saying when to try again', async () => {
    const email = uniqueEmail('throttled')
    await t.signUp(email)
    const attempt = (password: string) => signInFrom(`throttle-${email}`, email, password)
    // Three free failures, then the fourth starts a one-second back-off.
    for (let n = 0; n < 4; n += 1) expect((await attempt('wrong password')).status).toBe(401)
    // Even the right password waits: the attacker must not learn it was right.
    const limited = await attempt(testPassword)
    expect(limited.status).toBe(429)
    expect(limited.headers.get('retry-after')).toBe('1')
    expect(await errorOf(limited)).toMatchObject({
      code: 'rate_limited',
      message: 'Too many wrong passwords for this account. Wait 1 second, then try again.',
      details: { retryAfterSeconds: 1, limit: 'account' },
    })
    // Another account is not affected.
    const other = uniqueEmail('unaffected')
    await t.signUp(other)
    await t.signIn(other)

    t.clock.advance(1000)
    expect((await attempt(testPassword)).status).toBe(200)
    // The success forgot the account's failures: the free ones are free again (from a client
    // that has not used up its own limit).
    for (let n = 0; n < 4; n += 1)
      expect((await signInFrom(`again-${email}`, email, 'wrong password')).status).toBe(401)
  })

  it('never stops the owner signing in after the back-off delay, through 1,000 failed sign-ins from many addresses', async () => {
    const email = uniqueEmail('besieged')
    await t.signUp(email)
    const statuses = new Map<number, number>()
    const ownerSignsIn = async () => {
      const first = await signInFrom('owners-laptop', email, testPassword)
      if (first.status === 429) {
        const wait = Number(first.headers.get('retry-after'))
        // The wait is the account's back-off, never more than its cap.
        expect(wait).toBeGreaterThan(0)
        expect(wait).toBeLessThanOrEqual(900)
        t.clock.advance(wait * 1000)
        expect((await signInFrom('owners-laptop', email, testPassword)).status).toBe(200)
      } else {
        expect(first.status).toBe(200)
      }
    }
    for (let n = 0; n < 1000; n += 1) {
      // 200 addresses, none over its own limit; one guess every 3 s in all.
      const response = await signInFrom(`attacker-${n % 200}`, email, `guess ${n}`)
      statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1)
      t.clock.advance(3000)
      if (n === 499 || n === 999) await ownerSignsIn()
    }
    expect([...statuses.keys()].sort()).toEqual([401, 429])
    // Nearly every guess was refused by the back-off, before Supabase Auth was asked.
    expect(statuses.get(401)).toBeLessThan(40)
  }, 60_000)

  it('lets a browser that signed in to the account before through while the account is in back-off', async () => {
    const email = uniqueEmail('known-laptop')
    await t.signUp(email)
    const laptop = t.browser({ client: 'home-network' })
    expect(
      (await laptop.send('POST', '/api/auth/sign-in', { email, password: testPassword })).status,
    ).toBe(200)
    expect(laptop.setCookies.find((line) => line.startsWith('tessera_device='))).toMatch(
      /^tessera_device=[\w-]{43}; Max-Age=15552000; Path=\/; HttpOnly; SameSite=Lax$/,
    )
    for (let n = 0; n < 10; n += 1) await signInFrom(`attacker-${n}`, email, `guess ${n}`)
    // A new browser waits out the account's back-off; the laptop does not.
    expect((await signInFrom('hotel-wifi', email, testPassword)).status).toBe(429)
    expect(
      (await laptop.send('POST', '/api/auth/sign-in', { email, password: testPassword })).status,
    ).toBe(200)
    // The laptop's own wrong passwords give it a back-off of its own.
    for (let n = 0; n < 4; n += 1)
      expect(
        (await laptop.send('POST', '/api/auth/sign-in', { email, password: 'typo' })).status,
      ).toBe(401)
    expect(
      (await laptop.send('POST', '/api/auth/sign-in', { email, password: testPassword })).status,
    ).toBe(429)
    // Known to this account only: another account's back-off still applies to it.
    const other = uniqueEmail('not-the-laptops')
    await t.signUp(other)
    for (let n = 0; n < 4; n += 1) await signInFrom(`attacker-${n}`, other, `guess ${n}`)
    expect(
      (await laptop.send('POST', '/api/auth/sign-in', { email: other, password: testPassword }))
        .status,
    ).toBe(429)
  })

  it('refuses further sign-ins from one client after failures across many accounts', async () => {
    const client = 'one-busy-client'
    for (let n = 0; n < 6; n += 1)
      expect((await signInFrom(client, uniqueEmail(`spray${n}`), 'guess guess')).status).toBe(401)
    const limited = await signInFrom(client, uniqueEmail('spray-last'), 'guess guess')
    expect(limited.status).toBe(429)
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(800)
    expect(await errorOf(limited)).toMatchObject({
      code: 'rate_limited',
      message: 'Too many failed sign-ins from your network. Wait 15 minutes, then try again.',
      details: { limit: 'client' },
    })
    // Another address signs in as usual.
    const email = uniqueEmail('elsewhere')
    await t.signUp(email)
    expect((await signInFrom('another-client', email, testPassword)).status).toBe(200)
  })
})

describe('email-sending limits', () => {
  it('refuses more than EMAIL_SEND_RATE_LIMIT email-sending requests from one client a minute', async () => {
    const client = t.browser({ client: 'mail-bomber' })
    const send = (n: number) => {
      const email = uniqueEmail(`victim${n}`)
      if (n % 3 === 0)
        return client.send('POST', '/api/auth/sign-up', { email, password: testPassword })
      return client.send('POST', n % 3 === 1 ? '/api/auth/magic-link' : '/api/auth/recover', {
        email,
      })
    }
    const statuses: number[] = []
    for (let n = 0; n < 5; n += 1) statuses.push((await send(n)).status)
    expect(statuses).toEqual([202, 202, 202, 202, 429])
    const limited = await send(5)
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0)
    expect((await errorOf(limited)).code).toBe('rate_limited')
    // Another client is not affected.
    const other = await t.browser().send('POST', '/api/auth/recover', { email: uniqueEmail('ok') })
    expect(other.status).toBe(202)
  })
})

describe('magic links and password recovery', () => {
  it('sends a magic link that signs in', async () => {
    const email = uniqueEmail('magic')
    await t.signUp(email)
    const visitor = t.browser()
    const answer = await visitor.send('POST', '/api/auth/magic-link', { email })
    expect(answer.status).toBe(202)
    expect(await answer.json()).toEqual({ status: 'check_email', email })
    const mail = await t.mail(email, (message) => message.type === 'magiclink')
    const confirmed = await visitor.send('POST', '/api/auth/confirm', {
      tokenHash: mail.token_hash,
      type: 'magiclink',
    })
    expect(confirmed.status).toBe(200)
    expect(signedInSchema.parse(await confirmed.json()).user.email).toBe(email)
    expect(visitor.cookie()).toBeDefined()
  })

  it('answers for an unknown address exactly as for a known one, and sends nothing', async () => {
    const known = uniqueEmail('known')
    await t.signUp(known)
    const unknown = uniqueEmail('unknown')
    for (const path of ['/api/auth/magic-link', '/api/auth/recover']) {
      const answers = await Promise.all(
        [known, unknown].map(async (email) => {
          const response = await t.browser().send('POST', path, { email })
          return { status: response.status, body: await jsonOf(response) }
        }),
      )
      expect(answers[0]?.status).toBe(202)
      expect(answers[1]).toEqual({
        status: answers[0]?.status,
        body: { ...answers[0]?.body, email: unknown },
      })
    }
    expect(await t.supabase.mailTo(unknown)).toEqual([])
  })

  it('recovers a password: PASSWORD_RECOVERY, the new password works and the old one does not', async () => {
    const email = uniqueEmail('forgetful')
    await t.signUp(email)
    const visitor = t.browser()
    expect((await visitor.send('POST', '/api/auth/recover', { email })).status).toBe(202)
    const mail = await t.mail(email, (message) => message.type === 'recovery')
    const confirmed = await visitor.send('POST', '/api/auth/confirm', {
      tokenHash: mail.token_hash,
      type: 'recovery',
    })
    expect(confirmed.status).toBe(200)
    const body = signedInSchema.parse(await confirmed.json())
    expect(body.session.recovery).toBe(true)
    expect(t.authEvents(body.session.id)).toEqual(['PASSWORD_RECOVERY'])

    // In recovery, no current password is asked for.
    const changed = await visitor.send('POST', '/api/me/password', {
      password: 'a brand new passphrase',
    })
    expect(changed.status).toBe(200)
    expect(signedInSchema.parse(await changed.json()).session.recovery).toBe(false)

    const old = await t
      .browser({ client: 'recovery-check' })
      .send('POST', '/api/auth/sign-in', { email, password: testPassword })
    expect((await errorOf(old)).code).toBe('invalid_credentials')
    await t.signIn(email, 'a brand new passphrase')
  })
})

describe('CSRF on the auth routes', () => {
  const routes = [
    ['POST', '/api/auth/sign-up'],
    ['POST', '/api/auth/sign-in'],
    ['POST', '/api/auth/magic-link'],
    ['POST', '/api/auth/recover'],
    ['POST', '/api/auth/confirm'],
    ['POST', '/api/auth/sign-out'],
    ['PATCH', '/api/me/profile'],
    ['POST', '/api/me/email'],
    ['POST', '/api/me/password'],
    ['DELETE', `/api/me/sessions/${crypto.randomUUID()}`],
  ] as const

  it('refuses every state-changing route without the CSRF header, or from a foreign Origin', async () => {
    const email = uniqueEmail('csrf')
    await t.signUp(email)
    const browser = await t.signIn(email)
    const { 'x-tessera-csrf': _header, ...withoutHeader } = csrfHeaders
    for (const [method, path] of routes) {
      for (const headers of [withoutHeader, { ...csrfHeaders, origin: 'https://evil.example' }]) {
        const response = await browser.request(path, {
          method,
          headers,
          body: JSON.stringify({
            email,
            password: testPassword,
            displayName: 'x',
            scope: 'global',
          }),
        })
        expect(response.status, `${method} ${path}`).toBe(403)
        expect((await errorOf(response)).code).toBe('csrf_failed')
      }
    }
    // Nothing above reached a handler: the browser is still signed in.
    expect(await signedInAs(browser)).not.toBeNull()
  })
})
