import { AuthApiError, AuthSessionMissingError, AuthWeakPasswordError } from '@supabase/supabase-js'
import type { SupabaseClient } from '@supabase/supabase-js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { TestSupabase } from './test-support.ts'
import { recordAuthEvents, startTestSupabase, testSiteUrl, uniqueEmail } from './test-support.ts'
import { databaseSetupTimeout } from '@tessera/db/testing'

let supabase: TestSupabase
beforeAll(async () => {
  supabase = await startTestSupabase()
}, databaseSetupTimeout)
afterAll(async () => {
  await supabase.stop()
})

const password = 'correct horse battery'

async function signedIn(
  label: string,
): Promise<{ client: SupabaseClient; email: string; id: string }> {
  const email = uniqueEmail(label)
  const created = await supabase
    .adminClient()
    .auth.admin.createUser({ email, password, email_confirm: true })
  const client = supabase.client()
  const { error } = await client.auth.signInWithPassword({ email, password })
  expect(error).toBeNull()
  return { client, email, id: created.data.user?.id ?? '' }
}

const canSignIn = async (email: string, secret: string) =>
  (await supabase.client().auth.signInWithPassword({ email, password: secret })).error === null

describe('the signed-in user', () => {
  it('is returned by getUser with its identity, and getUser without a session is AuthSessionMissingError', async () => {
    const { client, email, id } = await signedIn('getuser')
    const { data, error } = await client.auth.getUser()
    expect(error).toBeNull()
    expect(data.user).toMatchObject({
      id,
      email,
      aud: 'authenticated',
      role: 'authenticated',
      is_anonymous: false,
    })
    expect(data.user?.identities?.[0]).toMatchObject({
      provider: 'email',
      user_id: id,
      identity_data: { email },
    })
    expect(data.user?.last_sign_in_at).toEqual(expect.any(String))

    const anonymous = await supabase.client().auth.getUser()
    expect(anonymous.error).toBeInstanceOf(AuthSessionMissingError)
  })

  it('merges metadata on updateUser({ data }) and fires USER_UPDATED', async () => {
    const { client } = await signedIn('data')
    const events = recordAuthEvents(client)
    await client.auth.updateUser({ data: { display_name: 'Grace', theme: 'dark' } })
    const { data, error } = await client.auth.updateUser({ data: { theme: null, locale: 'fr' } })
    expect(error).toBeNull()
    expect(data.user?.user_metadata).toMatchObject({ display_name: 'Grace', locale: 'fr' })
    expect(data.user?.user_metadata).not.toHaveProperty('theme')
    expect(events.filter((event) => event === 'USER_UPDATED')).toHaveLength(2)
    // The next access token carries the new metadata.
    const refreshed = await client.auth.refreshSession()
    const claims = await client.auth.getClaims(refreshed.data.session?.access_token)
    expect(claims.data?.claims.user_metadata).toMatchObject({ display_name: 'Grace', locale: 'fr' })
  })

  it('changes the password: the new one works, the old one does not, other sessions end', async () => {
    const { client, email } = await signedIn('password')
    const other = supabase.client()
    await other.auth.signInWithPassword({ email, password })
    const otherRefresh = (await other.auth.getSession()).data.session?.refresh_token ?? ''

    const same = await client.auth.updateUser({ password })
    expect(same.error).toBeInstanceOf(AuthApiError)
    expect(same.error?.code).toBe('same_password')
    const weak = await client.auth.updateUser({ password: '123' })
    expect(weak.error).toBeInstanceOf(AuthWeakPasswordError)

    const { error } = await client.auth.updateUser({ password: 'a brand new secret' })
    expect(error).toBeNull()
    expect(await canSignIn(email, 'a brand new secret')).toBe(true)
    expect(await canSignIn(email, password)).toBe(false)
    expect((await client.auth.getUser()).error).toBeNull()
    expect(
      (await supabase.client().auth.refreshSession({ refresh_token: otherRefresh })).error?.code,
    ).toBe('refresh_token_not_found')
  })

  it('changes the email after the new address confirms it', async () => {
    const { client, email, id } = await signedIn('oldaddress')
    const events = recordAuthEvents(client)
    const newEmail = uniqueEmail('newaddress')

    const { data, error } = await client.auth.updateUser(
      { email: newEmail },
      { emailRedirectTo: `${testSiteUrl}/profile` },
    )
    expect(error).toBeNull()
    expect(data.user?.email).toBe(email)
    expect(data.user?.new_email).toBe(newEmail)
    expect(events).toContain('USER_UPDATED')

    const mail = await supabase.waitForMail(newEmail)
    expect(mail).toMatchObject({
      type: 'email_change',
      subject: 'Confirm Email Change',
      redirect_to: `${testSiteUrl}/profile`,
    })
    expect(new URL(mail.links[0] ?? '').searchParams.get('type')).toBe('email_change')

    const verified = await client.auth.verifyOtp({
      token_hash: mail.token_hash ?? '',
      type: 'email_change',
    })
    expect(verified.error).toBeNull()
    expect(verified.data.user).toMatchObject({ id, email: newEmail })
    expect(verified.data.user?.new_email).toBeUndefined()
    expect(verified.data.user?.identities?.[0]?.identity_data?.email).toBe(newEmail)
    expect(await canSignIn(newEmail, password)).toBe(true)
    expect(await canSignIn(email, password)).toBe(false)
  })

  it('refuses an email change to an address another account uses', async () => {
    const { client } = await signedIn('changer')
    const taken = await signedIn('owner')
    const { error } = await client.auth.updateUser({ email: taken.email })
    expect(error).toBeInstanceOf(AuthApiError)
    expect(error?.code).toBe('email_exists')
  })
})

describe('password recovery', () => {
  it('mails a recovery link; verifying it fires PASSWORD_RECOVERY and a new password replaces the old one', async () => {
    const { email } = await signedIn('recover')
    const client = supabase.client()
    const events = recordAuthEvents(client)

    const sent = await client.auth.resetPasswordForEmail(email, {
      redirectTo: `${testSiteUrl}/reset`,
    })
    expect(sent.error).toBeNull()
    const mail = await supabase.waitForMail(email, (message) => message.type === 'recovery')
    expect(mail.subject).toBe('Reset Your Password')
    expect(new URL(mail.links[0] ?? '').searchParams.get('type')).toBe('recovery')

    const verified = await client.auth.verifyOtp({
      token_hash: mail.token_hash ?? '',
      type: 'recovery',
    })
    expect(verified.error).toBeNull()
    expect(events).toContain('PASSWORD_RECOVERY')
    expect((await client.auth.updateUser({ password: 'recovered secret' })).error).toBeNull()
    expect(await canSignIn(email, 'recovered secret')).toBe(true)
    expect(await canSignIn(email, password)).toBe(false)
  })

  it('answers the same for an unknown address and sends nothing', async () => {
    const email = uniqueEmail('ghost')
    const { data, error } = await supabase.client().auth.resetPasswordForEmail(email)
    expect(error).toBeNull()
    expect(data).toEqual({})
    expect(await supabase.mailTo(email)).toEqual([])
  })

  it('limits recovery emails per address (over_email_send_rate_limit) until the window passes', async () => {
    const { email } = await signedIn('limited')
    const other = await signedIn('unlimited')
    const client = supabase.client()
    expect((await client.auth.resetPasswordForEmail(email)).error).toBeNull()

    const second = await client.auth.resetPasswordForEmail(email)
    expect(second.error).toBeInstanceOf(AuthApiError)
    expect(second.error?.status).toBe(429)
    expect(second.error?.code).toBe('over_email_send_rate_limit')
    expect(second.error?.message).toMatch(/only request this after \d+ seconds/)
    // Another address is not affected.
    expect((await client.auth.resetPasswordForEmail(other.email)).error).toBeNull()

    supabase.clock.advance(30_000)
    expect((await client.auth.resetPasswordForEmail(email)).error).toBeNull()
    expect(
      (await supabase.mailTo(email)).filter((message) => message.type === 'recovery'),
    ).toHaveLength(2)
  })
})

describe('magic links (signInWithOtp)', () => {
  it('mails a magic link to a known address; verifying it signs in', async () => {
    const { email, id } = await signedIn('magic')
    const client = supabase.client()
    const events = recordAuthEvents(client)

    const sent = await client.auth.signInWithOtp({
      email,
      options: { emailRedirectTo: `${testSiteUrl}/assistant` },
    })
    expect(sent.error).toBeNull()
    const mail = await supabase.waitForMail(email, (message) => message.type === 'magiclink')
    expect(mail).toMatchObject({
      subject: 'Your Magic Link',
      redirect_to: `${testSiteUrl}/assistant`,
    })

    const { data, error } = await client.auth.verifyOtp({
      token_hash: mail.token_hash ?? '',
      type: 'magiclink',
    })
    expect(error).toBeNull()
    expect(data.user?.id).toBe(id)
    expect(events).toContain('SIGNED_IN')
    const claims = await client.auth.getClaims()
    expect(claims.data?.claims.amr).toEqual([{ method: 'otp', timestamp: expect.any(Number) }])
  })

  it('signs up a new address with a confirmation link, unless shouldCreateUser is false', async () => {
    const client = supabase.client()
    const refused = await client.auth.signInWithOtp({
      email: uniqueEmail('nocreate'),
      options: { shouldCreateUser: false },
    })
    expect(refused.error).toBeInstanceOf(AuthApiError)
    expect(refused.error?.code).toBe('otp_disabled')

    const email = uniqueEmail('newbie')
    expect(
      (await client.auth.signInWithOtp({ email, options: { data: { display_name: 'Newbie' } } }))
        .error,
    ).toBeNull()
    const mail = await supabase.waitForMail(email)
    expect(mail.type).toBe('signup')
    const { data, error } = await client.auth.verifyOtp({
      token_hash: mail.token_hash ?? '',
      type: 'email',
    })
    expect(error).toBeNull()
    expect(data.user?.user_metadata).toMatchObject({ display_name: 'Newbie', email_verified: true })
    // No password was ever set.
    expect(await canSignIn(email, '')).toBe(false)
  })
})
