import { AuthApiError, AuthWeakPasswordError } from '@supabase/supabase-js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { TestSupabase } from './test-support.ts'
import { recordAuthEvents, startTestSupabase, testSiteUrl, uniqueEmail } from './test-support.ts'
import { databaseSetupTimeout } from '@tessera/db/testing'

let supabase: TestSupabase
beforeAll(async () => {
  supabase = await startTestSupabase({ additionalRedirectUrls: ['http://allowed.test/**'] })
}, databaseSetupTimeout)
afterAll(async () => {
  await supabase.stop()
})

const password = 'correct horse battery'

describe('sign-up with email confirmation', () => {
  it('returns the user without a session and mails a link that verifyOtp turns into SIGNED_IN', async () => {
    const client = supabase.client()
    const events = recordAuthEvents(client)
    const email = uniqueEmail('signup')

    const { data, error } = await client.auth.signUp({
      email,
      password,
      options: { data: { display_name: 'Ada' }, emailRedirectTo: `${testSiteUrl}/welcome` },
    })
    expect(error).toBeNull()
    expect(data.session).toBeNull()
    expect(data.user?.email).toBe(email)
    expect(data.user?.email_confirmed_at).toBeUndefined()
    expect(data.user?.user_metadata).toMatchObject({
      display_name: 'Ada',
      email,
      email_verified: false,
    })
    expect(data.user?.identities).toHaveLength(1)

    const mail = await supabase.waitForMail(email)
    expect(mail).toMatchObject({
      type: 'signup',
      subject: 'Confirm Your Email',
      to: email,
      redirect_to: `${testSiteUrl}/welcome`,
    })
    const link = new URL(mail.links[0] ?? '')
    expect(`${link.origin}${link.pathname}`).toBe(`${testSiteUrl}/auth/confirm`)
    expect(link.searchParams.get('type')).toBe('signup')
    expect(link.searchParams.get('next')).toBe(`${testSiteUrl}/welcome`)
    expect(link.searchParams.get('token_hash')).toBe(mail.token_hash)
    expect(mail.text).toContain(mail.otp ?? 'no code')

    const verified = await client.auth.verifyOtp({
      token_hash: link.searchParams.get('token_hash') ?? '',
      type: 'signup',
    })
    expect(verified.error).toBeNull()
    expect(verified.data.session?.access_token).toEqual(expect.any(String))
    expect(verified.data.user?.email_confirmed_at).toEqual(expect.any(String))
    expect(verified.data.user?.user_metadata.email_verified).toBe(true)
    expect(events).toContain('SIGNED_IN')

    // The link works once.
    const again = await supabase
      .client()
      .auth.verifyOtp({ token_hash: mail.token_hash ?? '', type: 'signup' })
    expect(again.error).toBeInstanceOf(AuthApiError)
    expect(again.error?.code).toBe('otp_expired')
  })

  it('refuses to sign in before the email is confirmed, with email_not_confirmed', async () => {
    const client = supabase.client()
    const email = uniqueEmail('unconfirmed')
    await client.auth.signUp({ email, password })

    const { data, error } = await client.auth.signInWithPassword({ email, password })
    expect(data.session).toBeNull()
    expect(error).toBeInstanceOf(AuthApiError)
    expect(error?.code).toBe('email_not_confirmed')
    expect(error?.status).toBe(400)
  })

  it('answers invalid_credentials for a wrong password and for an unknown address alike', async () => {
    const client = supabase.client()
    const email = uniqueEmail('wrong')
    await supabase.adminClient().auth.admin.createUser({ email, password, email_confirm: true })

    const wrong = await client.auth.signInWithPassword({ email, password: 'not the password' })
    const unknown = await client.auth.signInWithPassword({ email: uniqueEmail('nobody'), password })
    for (const { error } of [wrong, unknown]) {
      expect(error).toBeInstanceOf(AuthApiError)
      expect(error?.code).toBe('invalid_credentials')
      expect(error?.message).toBe('Invalid login credentials')
    }

    const events = recordAuthEvents(client)
    const right = await client.auth.signInWithPassword({ email: email.toUpperCase(), password })
    expect(right.error).toBeNull()
    expect(right.data.user?.email).toBe(email)
    expect(events).toContain('SIGNED_IN')
  })

  it('rejects a weak password with AuthWeakPasswordError and its reasons', async () => {
    const { error } = await supabase
      .client()
      .auth.signUp({ email: uniqueEmail('weak'), password: 'abc' })
    expect(error).toBeInstanceOf(AuthWeakPasswordError)
    expect(error?.status).toBe(422)
    expect((error as AuthWeakPasswordError).reasons).toEqual(['length'])
    expect(error?.message).toBe('Password should be at least 6 characters.')
  })

  it('answers a sign-up for a confirmed address with an obfuscated user and sends nothing', async () => {
    const email = uniqueEmail('taken')
    const { data: created } = await supabase
      .adminClient()
      .auth.admin.createUser({ email, password, email_confirm: true })

    const { data, error } = await supabase
      .client()
      .auth.signUp({ email, password: 'another password' })
    expect(error).toBeNull()
    expect(data.session).toBeNull()
    expect(data.user?.identities).toEqual([])
    expect(data.user?.id).not.toBe(created.user?.id)
    expect(await supabase.mailTo(email)).toEqual([])
    // The real account keeps its password.
    expect((await supabase.client().auth.signInWithPassword({ email, password })).error).toBeNull()
  })

  it('resends the confirmation when an unconfirmed address signs up again, once the rate limit allows', async () => {
    const email = uniqueEmail('again')
    const client = supabase.client()
    await client.auth.signUp({ email, password })

    const tooSoon = await client.auth.signUp({ email, password })
    expect(tooSoon.error).toBeInstanceOf(AuthApiError)
    expect(tooSoon.error?.status).toBe(429)
    expect(tooSoon.error?.code).toBe('over_email_send_rate_limit')
    expect(await supabase.mailTo(email)).toHaveLength(1)

    supabase.clock.advance(31_000)
    const later = await client.auth.resend({ type: 'signup', email })
    expect(later.error).toBeNull()
    const mails = await supabase.mailTo(email)
    expect(mails).toHaveLength(2)
    // Only the newest link works.
    const stale = await client.auth.verifyOtp({
      token_hash: mails[1]?.token_hash ?? '',
      type: 'signup',
    })
    expect(stale.error?.code).toBe('otp_expired')
    const fresh = await client.auth.verifyOtp({
      token_hash: mails[0]?.token_hash ?? '',
      type: 'signup',
    })
    expect(fresh.error).toBeNull()
  })

  it('confirms with the six-digit code from the email (verifyOtp with email, token and type email)', async () => {
    const client = supabase.client()
    const events = recordAuthEvents(client)
    const email = uniqueEmail('code')
    await client.auth.signUp({ email, password })
    const mail = await supabase.waitForMail(email)
    expect(mail.otp).toMatch(/^\d{6}$/)

    const wrongCode = await client.auth.verifyOtp({
      email,
      token: mail.otp === '000000' ? '111111' : '000000',
      type: 'email',
    })
    expect(wrongCode.error?.code).toBe('otp_expired')

    const { data, error } = await client.auth.verifyOtp({
      email,
      token: mail.otp ?? '',
      type: 'email',
    })
    expect(error).toBeNull()
    expect(data.user?.email_confirmed_at).toEqual(expect.any(String))
    expect(events).toContain('SIGNED_IN')
  })

  it('refuses a link after it expired', async () => {
    const email = uniqueEmail('expired')
    await supabase.client().auth.signUp({ email, password })
    const mail = await supabase.waitForMail(email)
    supabase.clock.advance(3601_000)
    const { error } = await supabase
      .client()
      .auth.verifyOtp({ token_hash: mail.token_hash ?? '', type: 'signup' })
    expect(error).toBeInstanceOf(AuthApiError)
    expect(error?.status).toBe(403)
    expect(error?.code).toBe('otp_expired')
  })

  it('honours redirect_to only on the site or the allow list', async () => {
    const allowed = uniqueEmail('allowed')
    const foreign = uniqueEmail('foreign')
    await supabase.client().auth.signUp({
      email: allowed,
      password,
      options: { emailRedirectTo: 'http://allowed.test/deep/page' },
    })
    await supabase.client().auth.signUp({
      email: foreign,
      password,
      options: { emailRedirectTo: 'https://evil.test/steal' },
    })
    expect((await supabase.waitForMail(allowed)).redirect_to).toBe('http://allowed.test/deep/page')
    expect((await supabase.waitForMail(foreign)).redirect_to).toBe(testSiteUrl)
  })
})

describe('GoTrue email links (GET /auth/v1/verify)', () => {
  it('answers 303 to the redirect with the session in the fragment, or the error when reused', async () => {
    const email = uniqueEmail('getverify')
    await supabase.client().auth.signUp({ email, password })
    const mail = await supabase.waitForMail(email)
    const link = `${supabase.url}/auth/v1/verify?token=${mail.token_hash ?? ''}&type=signup&redirect_to=${encodeURIComponent(`${testSiteUrl}/done`)}`

    const first = await fetch(link, { redirect: 'manual' })
    expect(first.status).toBe(303)
    const location = new URL(first.headers.get('location') ?? '')
    expect(`${location.origin}${location.pathname}`).toBe(`${testSiteUrl}/done`)
    const fragment = new URLSearchParams(location.hash.slice(1))
    expect(fragment.get('type')).toBe('signup')
    expect(fragment.get('token_type')).toBe('bearer')
    const { data } = await supabase.client().auth.getUser(fragment.get('access_token') ?? '')
    expect(data.user?.email).toBe(email)

    const second = await fetch(link, { redirect: 'manual' })
    expect(second.status).toBe(303)
    const failed = new URLSearchParams(new URL(second.headers.get('location') ?? '').hash.slice(1))
    expect(Object.fromEntries(failed)).toEqual({
      error: 'access_denied',
      error_code: 'otp_expired',
      error_description: 'Email link is invalid or has expired',
    })
  })
})
