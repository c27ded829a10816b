// Conversation search through the route (docs/decisions/029): full-text over messages and titles,
// ranked, with highlights as plain pieces; scoped to what the conversation list shows, through RLS
// (another user, or another workspace, finds nothing); every bad query a catalogued 422.
import { errorBodySchema, searchResultsSchema } from '@tessera/contracts'
import type { SearchHit } from '@tessera/contracts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { databaseSetupTimeout } from '../../testing/identity.ts'
import type { TestBrowser } from '../../testing/identity.ts'
import { newConversation, sendAndRead, startAssistantTestApp } from '../../testing/assistant.ts'
import type { AssistantTestApp } from '../../testing/assistant.ts'
import { highlightOf } from './search.ts'

type Person = TestBrowser & { id: string }
let t: AssistantTestApp
let ada: Person
let bob: Person

const search = async (browser: TestBrowser, q: string, limit?: number): Promise<SearchHit[]> => {
  const query = new URLSearchParams({ q })
  if (limit !== undefined) query.set('limit', String(limit))
  const response = await browser.get(`/api/assistant/search?${query.toString()}`)
  expect(response.status, await response.clone().text()).toBe(200)
  return searchResultsSchema.parse(await response.json()).results
}

const marked = (pieces: { text: string; match: boolean }[]) =>
  pieces.filter((piece) => piece.match).map((piece) => piece.text.toLowerCase())

beforeAll(async () => {
  t = await startAssistantTestApp()
  ada = await t.user('ada')
  bob = await t.user('bob')
}, databaseSetupTimeout)
afterAll(() => t.finish())

describe('GET /api/assistant/search', () => {
  it('finds the message that holds the words, stemmed, with the words marked', async () => {
    const id = await newConversation(ada, 'Garden plans')
    await sendAndRead(ada, id, 'How deep should the raspberry canes be planted in clay soil?')
    const results = await search(ada, 'raspberry cane')
    expect(results).toHaveLength(1)
    const [hit] = results
    expect(hit?.conversationId).toBe(id)
    expect(hit?.message?.role).toBe('user')
    expect(marked(hit?.message?.snippet ?? [])).toEqual(['raspberry', 'canes'])
    expect(hit?.message?.snippet.map((piece) => piece.text).join('')).toContain('clay soil')
    // The title did not match: it comes whole and unmarked.
    expect(hit?.title).toEqual([{ text: 'Garden plans', match: false }])
  })

  it('finds a conversation by its title alone, and ranks a title match first', async () => {
    const titled = await newConversation(ada, 'Telescope shopping')
    const mentioned = await newConversation(ada, 'Fairground memories')
    await sendAndRead(ada, mentioned, '/echo I once looked through a telescope at a fair.')
    const results = await search(ada, 'telescope')
    expect(results.map((hit) => hit.conversationId)).toEqual([titled, mentioned])
    expect(results[0]?.message).toBeNull()
    expect(marked(results[0]?.title ?? [])).toEqual(['telescope'])
    expect(results[1]?.message).not.toBeNull()
  })

  it('returns one hit per conversation, its best message, within the limit', async () => {
    const ids: string[] = []
    for (let n = 0; n < 3; n += 1) {
      const id = await newConversation(ada)
      await sendAndRead(ada, id, `/echo Notes on glaciers, part ${n}.`)
      ids.push(id)
    }
    const all = await search(ada, 'glaciers')
    // The question and the echoed answer both match; each conversation is listed once.
    expect(all.map((hit) => hit.conversationId).sort()).toEqual([...ids].sort())
    expect(await search(ada, 'glaciers', 2)).toHaveLength(2)
  })

  it('keeps markup in a message as text: highlights are pieces, never HTML', async () => {
    const id = await newConversation(ada)
    await sendAndRead(ada, id, '/echo <img src=x onerror=alert(1)> zeppelin <b>bold</b>')
    const [hit] = await search(ada, 'zeppelin')
    const pieces = hit?.message?.snippet ?? []
    expect(marked(pieces)).toEqual(['zeppelin'])
    expect(pieces.every((piece) => !piece.text.includes('\u0002'))).toBe(true)
  })

  it('reads operators people type (quotes, minus, or) without failing', async () => {
    const id = await newConversation(ada)
    await sendAndRead(ada, id, '/echo Kayak routes along the fjord coast.')
    expect((await search(ada, '"kayak routes" -canoe')).map((hit) => hit.conversationId)).toEqual([
      id,
    ])
    for (const odd of ['"', '-', '!!', '&|:*', '(((', 'the', "' or 1=1 --"])
      expect(Array.isArray(await search(ada, odd))).toBe(true)
  })

  it('finds nothing of another user’s conversations', async () => {
    const id = await newConversation(ada, 'Private pelican diary')
    await sendAndRead(ada, id, 'The pelican came back to the harbour today.')
    expect((await search(ada, 'pelican')).length).toBeGreaterThan(0)
    expect(await search(bob, 'pelican')).toEqual([])
    expect(await search(bob, 'harbour')).toEqual([])
  })

  it('searches the current workspace: a team’s shared conversations, not its private ones', async () => {
    const created = await ada.send('POST', '/api/workspaces', { name: 'Searchers' })
    expect(created.status).toBe(201)
    const team = ((await created.json()) as { workspace: { id: string } }).workspace.id
    await t.db.query(
      `insert into public.workspace_members (workspace_id, user_id, role) values ($1, $2, 'member')`,
      [team, bob.id],
    )
    for (const who of [ada, bob])
      expect(
        (await who.send('POST', '/api/workspaces/current', { workspaceId: team })).status,
      ).toBe(200)
    const shared = await newConversation(ada, 'Walrus survey')
    await sendAndRead(ada, shared, 'Count the walrus colony on the north shore.')
    expect(
      (await ada.send('PATCH', `/api/assistant/conversations/${shared}`, { shared: true })).status,
    ).toBe(200)
    const hidden = await newConversation(ada, 'Walrus budget')
    await sendAndRead(ada, hidden, 'The walrus budget is private.')

    const bobs = await search(bob, 'walrus')
    expect(bobs.map((hit) => hit.conversationId)).toEqual([shared])
    expect(bobs[0]?.sharedBy).toMatch(/ada/)
    expect((await search(ada, 'walrus')).map((hit) => hit.conversationId).sort()).toEqual(
      [shared, hidden].sort(),
    )
    // The personal workspace's conversations are not in the team's search.
    expect(await search(ada, 'pelican')).toEqual([])
  })

  it.each([
    ['an empty query', 'q='],
    ['only spaces', 'q=%20%20'],
    ['no query', ''],
    ['a query over 200 characters', `q=${'a'.repeat(201)}`],
    ['a control character', 'q=a%01b'],
    ['a limit of 0', 'q=x&limit=0'],
    ['a limit over 50', 'q=x&limit=51'],
    ['a limit that is no number', 'q=x&limit=ten'],
    ['two queries', 'q=a&q=b'],
  ])('refuses %s with a catalogued 422', async (_, query) => {
    const response = await ada.get(`/api/assistant/search?${query}`)
    expect(response.status).toBe(422)
    expect(errorBodySchema.parse(await response.json()).error.code).toBe('validation_failed')
  })

  it('asks a visitor who is not signed in to sign in', async () => {
    const response = await t.request('/api/assistant/search?q=pelican')
    expect(response.status).toBe(401)
    expect(errorBodySchema.parse(await response.json()).error.code).toBe('unauthenticated')
  })
})

describe('highlightOf', () => {
  it('turns the sentinels into marked pieces and drops stray ones', () => {
    expect(highlightOf('a \u0002b\u0003 c\u0003')).toEqual([
      { text: 'a ', match: false },
      { text: 'b', match: true },
      { text: ' c', match: false },
    ])
    expect(highlightOf('')).toEqual([])
  })
})
