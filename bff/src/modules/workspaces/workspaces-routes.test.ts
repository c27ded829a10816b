// /api/workspaces: the personal workspace, team workspaces, switching, and the member rules of
// docs/decisions/024, against the embedded database and the Auth stand-in.
import type { WorkspaceMember, WorkspaceSummary } from '@tessera/contracts'
import { WORKSPACE_EVENT_TYPE } from '@tessera/contracts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { databaseSetupTimeout, jsonOf } from '../../testing/identity.ts'
import type { TestBrowser } from '../../testing/identity.ts'
import {
  createTeam,
  person,
  refusedWith,
  startWorkspacesTestApp,
  workspacesOf,
} from '../../testing/workspaces.ts'
import type { WorkspacesTestApp } from '../../testing/workspaces.ts'

let app: WorkspacesTestApp
let ada: { browser: TestBrowser; email: string }
let bob: { browser: TestBrowser; email: string }
let cat: { browser: TestBrowser; email: string }
let dan: { browser: TestBrowser; email: string }
const ids: Record<string, string> = {}

beforeAll(async () => {
  app = await startWorkspacesTestApp()
  ada = await person(app, 'ada')
  bob = await person(app, 'bob')
  cat = await person(app, 'cat')
  dan = await person(app, 'dan')
  for (const [name, who] of Object.entries({ ada, bob, cat, dan })) {
    const me = await jsonOf<{ user: { id: string } }>(await who.browser.get('/api/me'))
    ids[name] = me.user.id
  }
}, databaseSetupTimeout)
afterAll(() => app.finish())

/** Puts `who` into the workspace with `role` through an invite, as a person would. */
async function join(
  owner: TestBrowser,
  workspaceId: string,
  who: { browser: TestBrowser; email: string },
  role: 'admin' | 'member',
) {
  const sent = await owner.send('POST', `/api/workspaces/${workspaceId}/invites`, {
    email: who.email,
    role,
  })
  expect(sent.status, await sent.clone().text()).toBe(201)
  const token = await app.inviteToken(who.email)
  const accepted = await who.browser.send('POST', `/api/invites/${token}/accept`)
  expect(accepted.status, await accepted.clone().text()).toBe(200)
}

const members = async (browser: TestBrowser, workspaceId: string) =>
  (
    await jsonOf<{ members: WorkspaceMember[] }>(
      await browser.get(`/api/workspaces/${workspaceId}/members`),
    )
  ).members

describe('the personal workspace', () => {
  it('gives every user one personal workspace, owned by them alone, current by default', async () => {
    const { workspaces, currentId } = await workspacesOf(ada.browser)
    expect(workspaces).toHaveLength(1)
    expect(workspaces[0]).toMatchObject({
      kind: 'personal',
      role: 'owner',
      memberCount: 1,
      current: true,
    })
    expect(currentId).toBe(workspaces[0]?.id)
  })

  it('refuses invites to it, leaving it and removing its owner, with the personal rule', async () => {
    const personal = (await workspacesOf(ada.browser)).currentId
    const invite = await ada.browser.send('POST', `/api/workspaces/${personal}/invites`, {
      email: bob.email,
    })
    expect(await refusedWith(invite, 409)).toBe('personal_workspace')
    expect(
      await refusedWith(await ada.browser.send('POST', `/api/workspaces/${personal}/leave`), 409),
    ).toBe('personal_workspace')
    const demote = await ada.browser.send(
      'PATCH',
      `/api/workspaces/${personal}/members/${ids.ada}`,
      { role: 'member' },
    )
    expect(await refusedWith(demote, 409)).toBe('personal_workspace')
  })
})

describe('team workspaces', () => {
  let team: WorkspaceSummary

  it('creates a team with its creator as owner, and lists it after the personal one', async () => {
    team = await createTeam(ada.browser, '  Acme research ')
    expect(team).toMatchObject({ name: 'Acme research', kind: 'team', role: 'owner' })
    expect(team.memberCount).toBe(1)
    expect(team.current).toBe(false)
    const { workspaces } = await workspacesOf(ada.browser)
    expect(workspaces.map((workspace) => workspace.kind)).toEqual(['personal', 'team'])
  })

  it('switches this session to the team and tells its tabs, leaving other sessions where they were', async () => {
    const other = await app.signIn(ada.email)
    const response = await ada.browser.send('POST', '/api/workspaces/current', {
      workspaceId: team.id,
    })
    expect(response.status).toBe(200)
    expect((await jsonOf<{ workspace: WorkspaceSummary }>(response)).workspace.current).toBe(true)
    expect((await workspacesOf(ada.browser)).currentId).toBe(team.id)
    expect((await workspacesOf(other)).currentId).not.toBe(team.id)
    const event = app.published.find(
      (message) =>
        message.topic === `user:${ids.ada}` &&
        message.event.type === WORKSPACE_EVENT_TYPE &&
        (message.event.data as { change: string }).change === 'current',
    )
    expect(event?.event.data).toMatchObject({ workspaceId: team.id, change: 'current' })
    expect((event?.event.data as { sessionId: string | null }).sessionId).toEqual(
      expect.any(String),
    )
  })

  it('refuses to switch to a workspace the user is not a member of', async () => {
    const response = await bob.browser.send('POST', '/api/workspaces/current', {
      workspaceId: team.id,
    })
    expect(await refusedWith(response, 404)).toBe('not_found')
  })

  it('lets owners and admins rename, and refuses members and outsiders', async () => {
    await join(ada.browser, team.id, bob, 'admin')
    await join(ada.browser, team.id, cat, 'member')
    const renamed = await bob.browser.send('PATCH', `/api/workspaces/${team.id}`, { name: 'Acme' })
    expect(renamed.status).toBe(200)
    expect((await jsonOf<{ workspace: WorkspaceSummary }>(renamed)).workspace.name).toBe('Acme')
    const byMember = await cat.browser.send('PATCH', `/api/workspaces/${team.id}`, { name: 'X' })
    expect(await refusedWith(byMember, 403)).toBe('workspace_role_required')
    const byOutsider = await dan.browser.send('PATCH', `/api/workspaces/${team.id}`, { name: 'X' })
    expect(await refusedWith(byOutsider, 404)).toBe('not_found')
  })

  it('lists members to members, owners first, and to nobody else', async () => {
    const list = await members(cat.browser, team.id)
    expect(list.map((member) => [member.email, member.role])).toEqual([
      [ada.email, 'owner'],
      [bob.email, 'admin'],
      [cat.email, 'member'],
    ])
    const outsider = await dan.browser.get(`/api/workspaces/${team.id}/members`)
    expect(await refusedWith(outsider, 404)).toBe('not_found')
    expect((await workspacesOf(dan.browser)).workspaces).toHaveLength(1)
  })

  it('refuses a member who changes a role or removes someone', async () => {
    const role = await cat.browser.send('PATCH', `/api/workspaces/${team.id}/members/${ids.bob}`, {
      role: 'member',
    })
    expect(await refusedWith(role, 403)).toBe('workspace_role_required')
    const remove = await cat.browser.send('DELETE', `/api/workspaces/${team.id}/members/${ids.bob}`)
    expect(await refusedWith(remove, 403)).toBe('workspace_role_required')
  })

  it('lets an admin promote a member, but not touch an owner or an admin, or make an owner', async () => {
    const path = (who: string) => `/api/workspaces/${team.id}/members/${who}`
    expect(
      await refusedWith(await bob.browser.send('PATCH', path(ids.ada!), { role: 'member' }), 403),
    ).toBe('workspace_role_required')
    expect(await refusedWith(await bob.browser.send('DELETE', path(ids.ada!)), 403)).toBe(
      'workspace_role_required',
    )
    expect(
      await refusedWith(await bob.browser.send('PATCH', path(ids.cat!), { role: 'owner' }), 403),
    ).toBe('workspace_role_required')
    const promoted = await bob.browser.send('PATCH', path(ids.cat!), { role: 'admin' })
    expect(promoted.status).toBe(200)
    expect((await jsonOf<{ member: WorkspaceMember }>(promoted)).member.role).toBe('admin')
    expect(
      await refusedWith(await bob.browser.send('PATCH', path(ids.cat!), { role: 'member' }), 403),
    ).toBe('workspace_role_required')
  })

  it('never lets the last owner be demoted or leave', async () => {
    const demote = await ada.browser.send(
      'PATCH',
      `/api/workspaces/${team.id}/members/${ids.ada}`,
      { role: 'admin' },
    )
    expect(await refusedWith(demote, 409)).toBe('last_owner')
    const leave = await ada.browser.send('POST', `/api/workspaces/${team.id}/leave`)
    expect(await refusedWith(leave, 409)).toBe('last_owner')
    const self = await ada.browser.send('DELETE', `/api/workspaces/${team.id}/members/${ids.ada}`)
    expect(await refusedWith(self, 409)).toBe('last_owner')
  })

  it('lets an owner remove an admin: their sessions go home, the hook hears of it', async () => {
    await cat.browser.send('POST', '/api/workspaces/current', { workspaceId: team.id })
    expect((await workspacesOf(cat.browser)).currentId).toBe(team.id)
    const before = app.membersChanged.length
    const removed = await ada.browser.send(
      'DELETE',
      `/api/workspaces/${team.id}/members/${ids.cat}`,
    )
    expect(removed.status).toBe(204)
    expect(app.membersChanged.slice(before)).toEqual([team.id])
    const { workspaces, currentId } = await workspacesOf(cat.browser)
    expect(workspaces).toHaveLength(1)
    expect(currentId).toBe(workspaces[0]?.id)
    const told = app.published.some(
      (message) =>
        message.topic === `user:${ids.cat}` &&
        (message.event.data as { change?: string }).change === 'removed',
    )
    expect(told).toBe(true)
  })

  it('lets an owner hand over: a second owner makes leaving possible', async () => {
    const made = await ada.browser.send('PATCH', `/api/workspaces/${team.id}/members/${ids.bob}`, {
      role: 'owner',
    })
    expect(made.status).toBe(200)
    const before = app.membersChanged.length
    const left = await ada.browser.send('POST', `/api/workspaces/${team.id}/leave`)
    expect(left.status).toBe(204)
    expect(app.membersChanged.slice(before)).toEqual([team.id])
    expect((await members(bob.browser, team.id)).map((member) => member.role)).toEqual(['owner'])
    // The session that had switched to it is back in its personal workspace.
    const { workspaces, currentId } = await workspacesOf(ada.browser)
    expect(workspaces.find((workspace) => workspace.id === currentId)?.kind).toBe('personal')
  })
})

describe('at the same time', () => {
  it('lets only one of two owners leave when both leave at once: the team keeps an owner', async () => {
    const team = await createTeam(dan.browser, 'Both leave')
    await join(dan.browser, team.id, ada, 'member')
    const made = await dan.browser.send('PATCH', `/api/workspaces/${team.id}/members/${ids.ada}`, {
      role: 'owner',
    })
    expect(made.status).toBe(200)
    const answers = await Promise.all(
      [dan, ada].map((who) => who.browser.send('POST', `/api/workspaces/${team.id}/leave`)),
    )
    expect(answers.map((answer) => answer.status).sort()).toEqual([204, 409])
    const { rows } = await app.db.query<{ role: string }>(
      'select role from public.workspace_members where workspace_id = $1',
      [team.id],
    )
    expect(rows.map((row) => row.role)).toEqual(['owner'])
  })
})

describe('bad input', () => {
  it('answers ids that are not uuids, bad names and roles with 422, and no session with 401', async () => {
    expect(await refusedWith(await ada.browser.get('/api/workspaces/nope/members'), 422)).toBe(
      'validation_failed',
    )
    const long = await ada.browser.send('POST', '/api/workspaces', { name: 'x'.repeat(81) })
    expect(await refusedWith(long, 422)).toBe('validation_failed')
    const blank = await ada.browser.send('POST', '/api/workspaces', { name: '   ' })
    expect(await refusedWith(blank, 422)).toBe('validation_failed')
    const lines = await ada.browser.send('POST', '/api/workspaces', { name: 'a\nb' })
    expect(await refusedWith(lines, 422)).toBe('validation_failed')
    const team = await createTeam(ada.browser, 'Input checks')
    const role = await ada.browser.send('PATCH', `/api/workspaces/${team.id}/members/${ids.ada}`, {
      role: 'boss',
    })
    expect(await refusedWith(role, 422)).toBe('validation_failed')
    const stranger = await ada.browser.send(
      'PATCH',
      `/api/workspaces/${team.id}/members/${crypto.randomUUID()}`,
      { role: 'member' },
    )
    expect(await refusedWith(stranger, 404)).toBe('not_found')
    const extra = await ada.browser.send('POST', '/api/workspaces/current', {
      workspaceId: team.id,
      admin: true,
    })
    expect(await refusedWith(extra, 422)).toBe('validation_failed')
    expect(await refusedWith(await app.request('/api/workspaces'), 401)).toBe('unauthenticated')
  })
})
