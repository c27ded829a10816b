// The assistant inside workspaces (issue 19, docs/decisions/027), through the routes: conversations
// scoped to the session's workspace, sharing (read-only for the others), member caps set by
// owners and admins, the team pool in the meter, and the admins' usage report.
import { conversationPageSchema, errorBodySchema, usageSchema } from '@tessera/contracts'
import type { Conversation, UsageReport } from '@tessera/contracts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { databaseSetupTimeout } from '../../testing/identity.ts'
import type { TestBrowser } from '../../testing/identity.ts'
import {
  newConversation,
  postMessage,
  sendAndRead,
  startAssistantTestApp,
} from '../../testing/assistant.ts'
import type { AssistantTestApp } from '../../testing/assistant.ts'
import { csrfHeaders } from '../../testing/app.ts'

type Person = TestBrowser & { id: string }
let t: AssistantTestApp
let ada: Person // owner
let bob: Person // member
let cat: Person // admin
let dan: Person // outsider
let team: string

async function json<T>(response: Response, status = 200): Promise<T> {
  expect(response.status, await response.clone().text()).toBe(status)
  return (await response.json()) as T
}

async function refused(response: Response, status: number, code: string) {
  expect(response.status, await response.clone().text()).toBe(status)
  const body = errorBodySchema.parse(await response.json())
  expect(body.error.code).toBe(code)
  return body.error
}

const list = async (browser: TestBrowser): Promise<Conversation[]> =>
  conversationPageSchema.parse(await json(await browser.get('/api/assistant/conversations')))
    .conversations

const switchTo = async (browser: TestBrowser, workspaceId: string) =>
  json(await browser.send('POST', '/api/workspaces/current', { workspaceId }))

beforeAll(async () => {
  t = await startAssistantTestApp({ env: { ASSISTANT_MAX_ANSWER_TOKENS: '256' } })
  ada = await t.user('ada')
  bob = await t.user('bob')
  cat = await t.user('cat')
  dan = await t.user('dan')
  const created = await json<{ workspace: { id: string } }>(
    await ada.send('POST', '/api/workspaces', { name: 'Orbit' }),
    201,
  )
  team = created.workspace.id
  // Members join by invite in their own tests; here they are added as the BFF would.
  for (const [who, role] of [
    [bob, 'member'],
    [cat, 'admin'],
  ] as const) {
    await t.db.query(
      'insert into public.workspace_members (workspace_id, user_id, role) values ($1, $2, $3)',
      [team, who.id, role],
    )
  }
  for (const who of [ada, bob, cat]) await switchTo(who, team)
}, databaseSetupTimeout)
afterAll(() => t.finish())

describe('conversations in a workspace', () => {
  it('lists only the current workspace’s conversations, private to their author', async () => {
    const inTeam = await newConversation(ada, 'Roadmap')
    expect((await list(ada)).map((c) => c.id)).toContain(inTeam)
    expect((await list(bob)).map((c) => c.id)).not.toContain(inTeam)
    const personal = await json<{ workspace: { id: string } }>(
      await ada.send('POST', '/api/workspaces/current', {
        workspaceId: (
          await json<{ workspaces: { id: string; kind: string }[] }>(
            await ada.get('/api/workspaces'),
          )
        ).workspaces.find((w) => w.kind === 'personal')!.id,
      }),
    )
    expect(personal.workspace.id).not.toBe(team)
    expect((await list(ada)).map((c) => c.id)).not.toContain(inTeam)
    await switchTo(ada, team)
  })

  it('shows a shared conversation to the members, read-only, marked with its author', async () => {
    const id = await newConversation(bob, 'Launch notes')
    await sendAndRead(bob, id, 'hello team')
    const shared = await json<{ conversation: Conversation }>(
      await bob.send('PATCH', `/api/assistant/conversations/${id}`, { shared: true }),
    )
    expect(shared.conversation.shared).toBe(true)
    const seen = (await list(ada)).find((c) => c.id === id)
    expect(seen).toMatchObject({ shared: true, sharedBy: expect.stringContaining('bob') })
    const read = await json<{ messages: unknown[] }>(
      await cat.get(`/api/assistant/conversations/${id}/messages`),
    )
    expect(read.messages.length).toBe(2)
    await refused(await postMessage(ada, id, 'may I?'), 403, 'conversation_read_only')
    await refused(
      await ada.send('PATCH', `/api/assistant/conversations/${id}`, { title: 'Mine now' }),
      403,
      'conversation_read_only',
    )
    await refused(
      await ada.send('PATCH', `/api/assistant/conversations/${id}`, { shared: false }),
      403,
      'conversation_read_only',
    )
    await refused(
      await ada.send('DELETE', `/api/assistant/conversations/${id}`),
      403,
      'conversation_read_only',
    )
    await refused(await dan.get(`/api/assistant/conversations/${id}/messages`), 404, 'not_found')
    await json(await bob.send('PATCH', `/api/assistant/conversations/${id}`, { shared: false }))
    await refused(await ada.get(`/api/assistant/conversations/${id}/messages`), 404, 'not_found')
  })

  it('refuses to share a conversation of a personal workspace', async () => {
    const id = await newConversation(dan, 'Private')
    await refused(
      await dan.send('PATCH', `/api/assistant/conversations/${id}`, { shared: true }),
      409,
      'sharing_unavailable',
    )
  })
})

const putCap = (who: TestBrowser, userId: string, monthlyTokens: unknown) =>
  who.request(`/api/workspaces/${team}/members/${userId}/cap`, {
    method: 'PUT',
    headers: csrfHeaders,
    body: JSON.stringify({ monthlyTokens }),
  })

describe('member caps and the team pool', () => {
  it('refuses a cap that is negative, not whole, not a number, or for a non-member', async () => {
    for (const monthlyTokens of [-1, 1.5, '100', undefined])
      await refused(await putCap(cat, bob.id, monthlyTokens), 422, 'validation_failed')
    await refused(await putCap(cat, dan.id, 1000), 404, 'not_found')
    await refused(await putCap(bob, cat.id, 1000), 403, 'workspace_role_required')
    await refused(await putCap(cat, ada.id, 1000), 403, 'workspace_role_required')
    await refused(await putCap(dan, bob.id, 1000), 404, 'not_found')
  })

  it('stops a member at their cap with a sentence naming who to ask', async () => {
    const set = await json<{ member: { monthlyTokenCap: number | null } }>(
      await putCap(cat, bob.id, 100),
    )
    expect(set.member.monthlyTokenCap).toBe(100)
    const id = await newConversation(bob, 'Capped')
    const error = await refused(await postMessage(bob, id, 'one more?'), 429, 'member_cap_reached')
    expect(error.message).toContain('Orbit')
    expect(error.message).toMatch(/ada|cat/)
    expect(error.details).toMatchObject({ cap: 100 })
    await json(await putCap(ada, bob.id, null))
    await sendAndRead(bob, id, 'now it fits')
  })

  it('shows a member their own use and what is left of the pool', async () => {
    const usage = usageSchema.parse(await json(await bob.get('/api/assistant/usage')))
    expect(usage.workspace).toMatchObject({ id: team, name: 'Orbit' })
    expect(usage.member?.used).toBeGreaterThan(0)
    expect(usage.member?.cap).toBeNull()
    expect(usage.pool?.used).toBeGreaterThanOrEqual(usage.member?.used ?? 0)
    expect(usage.pool?.limit).toBeGreaterThan(0)
    expect(usage.used).toBe(usage.member?.used)
  })
})

describe('the usage report', () => {
  it('gives owners and admins tokens per member, model and day, as JSON and as CSV', async () => {
    const report = await json<UsageReport>(await cat.get(`/api/assistant/usage?workspace=${team}`))
    expect(report.workspace.name).toBe('Orbit')
    const bobs = report.rows.filter((row) => row.userId === bob.id)
    expect(bobs.length).toBeGreaterThan(0)
    const total = bobs.reduce((sum, row) => sum + row.tokens, 0)
    expect(report.members.find((m) => m.userId === bob.id)).toMatchObject({
      used: total,
      tokens: total,
      role: 'member',
    })
    expect(report.pool.used).toBe(report.rows.reduce((sum, row) => sum + row.tokens, 0))
    const csv = await cat.get(`/api/assistant/usage?workspace=${team}&format=csv`)
    expect(csv.status).toBe(200)
    expect(csv.headers.get('content-type')).toMatch(/^text\/csv/)
    const lines = (await csv.text()).split('\r\n')
    expect(lines[0]).toBe('day,user_id,email,name,model,tokens,answers')
    expect(lines.filter((line) => line.includes(bob.id)).length).toBe(bobs.length)
  })

  it('reports the plan’s pool for a team that has not sent anything this month', async () => {
    const created = await json<{ workspace: { id: string } }>(
      await ada.send('POST', '/api/workspaces', { name: 'Quiet' }),
      201,
    )
    const id = created.workspace.id
    const report = await json<UsageReport>(await ada.get(`/api/assistant/usage?workspace=${id}`))
    expect(report.rows).toEqual([])
    expect(report.pool.used).toBe(0)
    expect(report.pool.limit).toBeGreaterThan(0)
  })

  it('refuses members, outsiders and an inverted range', async () => {
    await refused(
      await bob.get(`/api/assistant/usage?workspace=${team}`),
      403,
      'workspace_role_required',
    )
    await refused(await dan.get(`/api/assistant/usage?workspace=${team}`), 404, 'not_found')
    await refused(
      await ada.get(`/api/assistant/usage?workspace=${team}&from=2026-11-20&to=2026-11-01`),
      422,
      'validation_failed',
    )
    await refused(
      await ada.get(`/api/assistant/usage?workspace=${team}&from=2026-13-01`),
      422,
      'validation_failed',
    )
  })
})
