// The mailbox's `POST /emails`, Resend's sending API: the BFF's own emails (invites) land in the
// mailbox beside the auth stand-in's.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Sql } from '@tessera/db/sql'
import { createTestDatabase, databaseSetupTimeout } from '@tessera/db/testing'
import type { SupabaseEmulator } from './app.ts'
import { createSupabaseEmulator } from './app.ts'
import { createManualClock } from './clock.ts'
import { localMailApiKey } from './mailbox-send.ts'
import type { MailMessage } from './mailbox-store.ts'

let db: Sql
let emulator: SupabaseEmulator
const clock = createManualClock()

beforeAll(async () => {
  db = await createTestDatabase()
  emulator = await createSupabaseEmulator({
    db,
    siteUrl: 'http://app.test',
    jwtIssuer: 'http://supabase.test/auth/v1',
    bcryptCost: 4,
    clock,
  })
}, databaseSetupTimeout)
afterAll(async () => {
  await db.close()
})

const email = {
  from: 'Tessera <no-reply@tessera.local>',
  to: ['Invitee@Example.test'],
  subject: 'Ada invited you to Acme on Tessera',
  text: 'Accept or decline: http://app.test/invites/abc123',
  html: '<p><a href="http://app.test/invites/abc123">Accept or decline</a></p>',
}

function send(body: unknown, headers: Record<string, string> = {}) {
  return emulator.mailboxApp.request('/emails', {
    method: 'POST',
    headers: {
      authorization: `Bearer ${localMailApiKey}`,
      'content-type': 'application/json',
      ...headers,
    },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  })
}

async function inbox(to: string): Promise<MailMessage[]> {
  const response = await emulator.mailboxApp.request(`/api/messages?to=${encodeURIComponent(to)}`)
  return ((await response.json()) as { messages: MailMessage[] }).messages
}

describe('the mailbox’s sending API', () => {
  it('stores an email sent with the key, with its links, and answers its id', async () => {
    const response = await send(email)
    expect(response.status).toBe(200)
    const { id } = (await response.json()) as { id: string }
    const [message] = await inbox('invitee@example.test')
    expect(message).toMatchObject({
      id,
      to: 'invitee@example.test',
      from: email.from,
      subject: email.subject,
      type: 'app',
      links: ['http://app.test/invites/abc123'],
      token_hash: null,
    })
    const page = await emulator.mailboxApp.request(`/messages/${id}`)
    expect(await page.text()).toContain('Sent by the app')
  })

  it('refuses a missing key with 401 and a wrong one with 403, storing nothing', async () => {
    const before = (await inbox('invitee@example.test')).length
    const missing = await emulator.mailboxApp.request('/emails', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(email),
    })
    expect(missing.status).toBe(401)
    expect(await missing.json()).toMatchObject({ statusCode: 401, name: 'missing_api_key' })
    const wrong = await send(email, { authorization: 'Bearer re_not_the_key' })
    expect(wrong.status).toBe(403)
    expect(await wrong.json()).toMatchObject({ name: 'invalid_api_key' })
    expect(await inbox('invitee@example.test')).toHaveLength(before)
  })

  it('answers a bad body with 422 validation_error, as Resend does', async () => {
    for (const body of [
      'not json',
      { ...email, to: 'nobody' },
      { ...email, subject: '' },
      { from: email.from, to: email.to, subject: 'no body' },
    ]) {
      const response = await send(body)
      expect(response.status, JSON.stringify(body)).toBe(422)
      expect(await response.json()).toMatchObject({ name: 'validation_error' })
    }
  })

  it('sends once per idempotency key, and refuses the key with another payload', async () => {
    const to = `once-${crypto.randomUUID().slice(0, 8)}@example.test`
    const body = { ...email, to: [to] }
    const first = await send(body, { 'idempotency-key': 'invite/1' })
    const second = await send(body, { 'idempotency-key': 'invite/1' })
    expect(second.status).toBe(200)
    expect(await second.json()).toEqual(await first.json())
    expect(await inbox(to)).toHaveLength(1)
    const changed = await send({ ...body, subject: 'Other' }, { 'idempotency-key': 'invite/1' })
    expect(changed.status).toBe(409)
    expect(await changed.json()).toMatchObject({ name: 'invalid_idempotent_request' })
  })
})
