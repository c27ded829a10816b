// Public share links through the routes (docs/decisions/030): the author shares, lists and
// revokes; a visitor with no session reads the conversation as it is now (JSON and page), without
// any email; a guessed, revoked or deleted link is 404 `share_not_found`; nobody else can revoke.
import {
  errorBodySchema,
  shareLinkListSchema,
  shareLinkResponseSchema,
  sharedConversationSchema,
} from '@tessera/contracts'
import type { ShareLink } from '@tessera/contracts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { databaseSetupTimeout } from '../../testing/identity.ts'
import type { TestBrowser } from '../../testing/identity.ts'
import { newConversation, sendAndRead, startAssistantTestApp } from '../../testing/assistant.ts'
import type { AssistantTestApp } from '../../testing/assistant.ts'
import { createTestApp, csrfHeaders } from '../../testing/app.ts'
import { newShareId } from './share-links.ts'

type Person = TestBrowser & { id: string }
let t: AssistantTestApp
let ada: Person
let bob: Person

async function share(
  browser: TestBrowser,
  conversationId: string,
  status = 201,
): Promise<ShareLink> {
  const response = await browser.send(
    'POST',
    `/api/assistant/conversations/${conversationId}/share`,
  )
  expect(response.status, await response.clone().text()).toBe(status)
  return shareLinkResponseSchema.parse(await response.json()).share
}

async function refused(response: Response, status: number, code: string) {
  expect(response.status, await response.clone().text()).toBe(status)
  expect(errorBodySchema.parse(await response.json()).error.code).toBe(code)
}

const visit = (id: string) => t.request(`/api/shared/${id}`)

beforeAll(async () => {
  t = await startAssistantTestApp({ env: { SHARED_LINK_RATE_LIMIT: '1000' } })
  ada = await t.user('ada')
  bob = await t.user('bob')
  await ada.send('PATCH', '/api/me/profile', { displayName: 'Ada L.' })
}, databaseSetupTimeout)
afterAll(() => t.finish())

describe('sharing a conversation', () => {
  it('makes an unguessable link a visitor with no session can read, with no email', async () => {
    const id = await newConversation(ada, 'Moth traps')
    await sendAndRead(ada, id, 'How do I build a moth trap?')
    const link = await share(ada, id)
    expect(link.id).toMatch(/^[A-Za-z0-9_-]{32}$/)
    expect(link.path).toBe(`/shared/${link.id}`)
    expect(link.conversationId).toBe(id)

    const response = await visit(link.id)
    expect(response.status).toBe(200)
    expect(response.headers.get('x-robots-tag')).toContain('noindex')
    expect(response.headers.get('cache-control')).toBe('no-store')
    const text = await response.text()
    expect(text).not.toMatch(/[\w.+-]+@[\w-]+\.\w+/)
    const shared = sharedConversationSchema.parse(JSON.parse(text))
    expect(shared.title).toBe('Moth traps')
    expect(shared.messages.map((m) => m.role)).toEqual(['user', 'assistant'])
    expect(shared.messages[0]?.content).toBe('How do I build a moth trap?')
  })

  it('shows the conversation as it is when read: a later message appears', async () => {
    const id = await newConversation(ada, 'Growing')
    await sendAndRead(ada, id, 'First question.')
    const link = await share(ada, id)
    await sendAndRead(ada, id, 'Second question.')
    const shared = sharedConversationSchema.parse(await (await visit(link.id)).json())
    expect(shared.messages).toHaveLength(4)
  })

  it('gives the same link when shared again, and lists it for its author only', async () => {
    const id = await newConversation(ada, 'Twice')
    const first = await share(ada, id)
    const again = await share(ada, id, 200)
    expect(again.id).toBe(first.id)
    const listed = shareLinkListSchema.parse(await (await ada.get('/api/assistant/shares')).json())
    expect(listed.shares[0]).toEqual(first)
    const bobs = shareLinkListSchema.parse(await (await bob.get('/api/assistant/shares')).json())
    expect(bobs.shares.map((s) => s.id)).not.toContain(first.id)
  })

  it('stops working once revoked, and a new share makes a new id', async () => {
    const id = await newConversation(ada, 'Revocable')
    const link = await share(ada, id)
    const revoked = await ada.send('DELETE', `/api/assistant/conversations/${id}/share`)
    expect(revoked.status).toBe(204)
    await refused(await visit(link.id), 404, 'share_not_found')
    const page = await t.request(`/shared/${link.id}`)
    expect(page.status).toBe(404)
    expect(await page.text()).toContain('This link no longer works')
    await refused(
      await ada.send('DELETE', `/api/assistant/conversations/${id}/share`),
      404,
      'not_found',
    )
    const again = await share(ada, id)
    expect(again.id).not.toBe(link.id)
  })

  it('dies with its conversation', async () => {
    const id = await newConversation(ada, 'Short-lived')
    const link = await share(ada, id)
    expect((await ada.send('DELETE', `/api/assistant/conversations/${id}`)).status).toBe(204)
    await refused(await visit(link.id), 404, 'share_not_found')
  })

  it('lets nobody else share or revoke it', async () => {
    const id = await newConversation(ada, 'Mine')
    const link = await share(ada, id)
    await refused(
      await bob.send('POST', `/api/assistant/conversations/${id}/share`),
      404,
      'not_found',
    )
    await refused(
      await bob.send('DELETE', `/api/assistant/conversations/${id}/share`),
      404,
      'not_found',
    )
    expect((await visit(link.id)).status).toBe(200)
    // Even straight to the database as bob: RLS deletes nothing.
    const { rowCount } = await t.db.transaction(
      async (tx) => tx.query('delete from public.assistant_share_links where id = $1', [link.id]),
      {
        opening: {
          text: `select set_config('role', 'authenticated', true), set_config('request.jwt.claims', $1, true)`,
          params: [JSON.stringify({ sub: bob.id, role: 'authenticated' })],
        },
      },
    )
    expect(rowCount).toBe(0)
    expect((await visit(link.id)).status).toBe(200)
  })

  it('answers a guessed or malformed id with 404 share_not_found', async () => {
    for (const id of [newShareId(), 'x', 'A'.repeat(32), `${'a'.repeat(31)}%`, 'a'.repeat(500)])
      await refused(await visit(encodeURIComponent(id)), 404, 'share_not_found')
  })

  it('asks to sign in before sharing, and refuses an id that is no conversation', async () => {
    await refused(
      await t.request(`/api/assistant/conversations/${crypto.randomUUID()}/share`, {
        method: 'POST',
        headers: csrfHeaders,
      }),
      401,
      'unauthenticated',
    )
    await refused(
      await ada.send('POST', '/api/assistant/conversations/nope/share'),
      404,
      'not_found',
    )
    await refused(
      await ada.send('POST', `/api/assistant/conversations/${crypto.randomUUID()}/share`),
      404,
      'not_found',
    )
  })
})

describe('the shared page', () => {
  it('is a script-free page with a title, noindex, and every text escaped', async () => {
    const id = await newConversation(ada, 'Tags <b>here</b>')
    await sendAndRead(ada, id, '/echo <script>alert(1)</script>\n```\nconst a = 1 < 2\n```')
    const link = await share(ada, id)
    const response = await t.request(`/shared/${link.id}`)
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toMatch(/^text\/html/)
    expect(response.headers.get('content-security-policy')).toMatch(/default-src 'none'/)
    expect(response.headers.get('content-security-policy')).not.toMatch(/script-src/)
    const html = await response.text()
    expect(html).toContain(
      '<title>Tags &lt;b&gt;here&lt;/b&gt; · Shared conversation · Tessera</title>',
    )
    expect(html).toContain('<meta name="robots" content="noindex, nofollow">')
    expect(html).not.toContain('<script')
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;')
    expect(html).toContain('<pre><code>const a = 1 &lt; 2</code></pre>')
    expect(html).toContain('Shared by Ada L.')
    expect(html).not.toMatch(/[\w.+-]+@[\w-]+\.\w+/)
  })
})

describe('the rate limit', () => {
  it('answers 429 with Retry-After past the limit, page and JSON alike', async () => {
    // Malformed ids are refused before the database is asked: this app has none.
    const { app } = createTestApp({ env: { SHARED_LINK_RATE_LIMIT: '2' } })
    expect((await app.request('/api/shared/x')).status).toBe(404)
    expect((await app.request('/shared/x')).status).toBe(404)
    await refused(await app.request('/api/shared/x'), 429, 'rate_limited')
    const page = await app.request('/shared/x')
    expect(page.status).toBe(429)
    expect(page.headers.get('retry-after')).toMatch(/^\d+$/)
    expect(await page.text()).toContain('Too many requests')
  })
})
