import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Sql } from '@tessera/db/sql'
import { createTestDatabase, databaseSetupTimeout } from '@tessera/db/testing'
import type { SupabaseEmulator } from './app.ts'
import { createSupabaseEmulator } from './app.ts'
import { createManualClock } from './clock.ts'
import { defaultApiKeys } from './config.ts'
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

async function signUp(email: string): Promise<void> {
  const response = await emulator.app.request('/auth/v1/signup', {
    method: 'POST',
    body: JSON.stringify({ email, password: 'long enough' }),
    headers: { 'content-type': 'application/json', apikey: defaultApiKeys.anon },
  })
  expect(response.status).toBe(200)
}

async function messages(query = ''): Promise<MailMessage[]> {
  const response = await emulator.mailboxApp.request(`/api/messages${query}`)
  expect(response.status).toBe(200)
  return ((await response.json()) as { messages: MailMessage[] }).messages
}

describe('mailbox JSON API', () => {
  it('lists emails newest first, filters by recipient, returns one by id and deletes', async () => {
    await emulator.mailboxApp.request('/api/messages', { method: 'DELETE' })
    await signUp('first@example.test')
    clock.advance(1000)
    await signUp('Second@Example.test')

    const all = await messages()
    expect(all.map((message) => message.to)).toEqual(['second@example.test', 'first@example.test'])
    const first = all[1]
    expect(first).toMatchObject({
      type: 'signup',
      subject: 'Confirm Your Email',
      from: 'Tessera <no-reply@tessera.local>',
      links: [
        expect.stringMatching(
          /^http:\/\/app\.test\/auth\/confirm\?token_hash=[0-9a-f]{64}&type=signup&next=/,
        ),
      ],
      otp: expect.stringMatching(/^\d{6}$/),
      created_at: expect.any(String),
    })
    expect(first?.html).toContain('Confirm my email')

    expect((await messages('?to=SECOND@example.test')).map((message) => message.to)).toEqual([
      'second@example.test',
    ])
    const one = await emulator.mailboxApp.request(`/api/messages/${first?.id ?? ''}`)
    expect(await one.json()).toEqual(first)
    expect((await emulator.mailboxApp.request('/api/messages/not-an-id')).status).toBe(404)

    const cleared = await emulator.mailboxApp.request('/api/messages?to=first@example.test', {
      method: 'DELETE',
    })
    expect(cleared.status).toBe(204)
    expect((await messages()).map((message) => message.to)).toEqual(['second@example.test'])
    await emulator.mailboxApp.request('/api/messages', { method: 'DELETE' })
    expect(await messages()).toEqual([])
  })
})

describe('mailbox page', () => {
  it('lists emails with their subject, recipient and a link to each, on a phone-friendly page', async () => {
    await signUp('reader@example.test')
    const response = await emulator.mailboxApp.request('/')
    expect(response.status).toBe(200)
    expect(response.headers.get('content-security-policy')).toContain("default-src 'none'")
    const html = await response.text()
    expect(html).toContain('<html lang="en">')
    expect(html).toContain('name="viewport"')
    expect(html).toContain('<label for="to">Recipient</label>')
    const [message] = await messages('?to=reader@example.test')
    expect(html).toContain(
      `<a class="subject" href="/messages/${message?.id ?? ''}">Confirm Your Email</a>`,
    )
    expect(html).toContain('To reader@example.test')
  })

  it('shows one email with its links first, its code, and the email as sent in a sandbox', async () => {
    const [message] = await messages('?to=reader@example.test')
    const response = await emulator.mailboxApp.request(`/messages/${message?.id ?? ''}`)
    const html = await response.text()
    expect(html).toContain('<h1>Confirm Your Email</h1>')
    const link = (message?.links[0] ?? '').replaceAll('&', '&amp;')
    expect(html).toContain(`<a href="${link}">`)
    expect(html).toContain(message?.otp ?? 'no code')
    expect(html).toMatch(/<iframe title="The email as sent" sandbox=/)
    expect(
      (await emulator.mailboxApp.request('/messages/00000000-0000-4000-8000-000000000000')).status,
    ).toBe(404)
  })

  it('escapes what it echoes back', async () => {
    const html = await (await emulator.mailboxApp.request('/?to=%3Cscript%3E')).text()
    expect(html).not.toContain('<script>')
    expect(html).toContain('&lt;script&gt;')
  })

  it('empties the mailbox from the page', async () => {
    const response = await emulator.mailboxApp.request('/messages/delete', { method: 'POST' })
    expect(response.status).toBe(303)
    expect(await messages()).toEqual([])
  })
})
