// Invites: the email in the mailbox, the link's rules (single use, 7 days, the invited address
// only), resend, revoke, and a mail service that is down.
import type { InvitePreview, SentInvite, WorkspaceInvite } from '@tessera/contracts'
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
let owner: { browser: TestBrowser; email: string }
let invitee: { browser: TestBrowser; email: string }
let other: { browser: TestBrowser; email: string }
let teamId: string

beforeAll(async () => {
  app = await startWorkspacesTestApp()
  owner = await person(app, 'owner')
  invitee = await person(app, 'invitee')
  other = await person(app, 'other')
  teamId = (await createTeam(owner.browser, 'Lab <&> "Friends"')).id
}, databaseSetupTimeout)
afterAll(() => app.finish())

const invite = (email: string, role: 'admin' | 'member' = 'member') =>
  owner.browser.send('POST', `/api/workspaces/${teamId}/invites`, { email, role })

describe('sending an invite', () => {
  let token: string

  it('stores the invite and emails a link to the mailbox, never logging the token', async () => {
    const response = await invite(invitee.email.toUpperCase(), 'admin')
    expect(response.status).toBe(201)
    const sent = await jsonOf<SentInvite>(response)
    expect(sent.emailSent).toBe(true)
    expect(sent.invite).toMatchObject({
      email: invitee.email,
      role: 'admin',
      state: 'pending',
      sentCount: 1,
    })
    const message = await app.mail(invitee.email, (candidate) => candidate.type === 'app')
    expect(message.subject).toMatch(/invited you to Lab <&> "Friends" on Tessera/)
    expect(message.html).toContain('Lab &lt;&amp;&gt; &quot;Friends&quot;')
    expect(message.from).toBe('Tessera <no-reply@tessera.local>')
    token = await app.inviteToken(invitee.email)
    expect(message.links).toContain(`http://app.tessera.test/auth/invites/${token}`)
    const { rows } = await app.db.query<{ token_hash: string }>(
      'select token_hash from public.workspace_invites where email = $1',
      [invitee.email],
    )
    expect(rows[0]?.token_hash).toMatch(/^[0-9a-f]{64}$/)
    expect(rows[0]?.token_hash).not.toContain(token)
    await invitee.browser.get(`/api/invites/${token}`)
    expect(JSON.stringify(app.logs)).not.toContain(token)
  })

  it('refuses a second invite to the same address, and one to a member', async () => {
    expect(await refusedWith(await invite(invitee.email), 409)).toBe('already_invited')
    expect(await refusedWith(await invite(owner.email), 409)).toBe('already_member')
  })

  it('shows the invite to the invited account, and masks the address for anyone else', async () => {
    const mine = await jsonOf<InvitePreview>(await invitee.browser.get(`/api/invites/${token}`))
    expect(mine).toMatchObject({
      workspaceName: 'Lab <&> "Friends"',
      role: 'admin',
      state: 'pending',
      forYou: true,
      email: invitee.email,
    })
    const theirs = await jsonOf<InvitePreview>(await other.browser.get(`/api/invites/${token}`))
    expect(theirs.forYou).toBe(false)
    expect(theirs.email).toMatch(/^i•••@example\.test$/)
    expect(await refusedWith(await app.request(`/api/invites/${token}`), 401)).toBe(
      'unauthenticated',
    )
  })

  it('refuses a forwarded link signed in as someone else, and keeps it usable', async () => {
    const accepted = await other.browser.send('POST', `/api/invites/${token}/accept`)
    expect(await refusedWith(accepted, 403)).toBe('invite_wrong_account')
    const declined = await other.browser.send('POST', `/api/invites/${token}/decline`)
    expect(await refusedWith(declined, 403)).toBe('invite_wrong_account')
  })

  it('joins on accept, makes the team current, calls the hook, and works only once', async () => {
    const before = app.membersChanged.length
    const accepted = await invitee.browser.send('POST', `/api/invites/${token}/accept`)
    expect(accepted.status).toBe(200)
    const body = await jsonOf<{ workspace: { id: string; role: string; current: boolean } }>(
      accepted,
    )
    expect(body.workspace).toMatchObject({ id: teamId, role: 'admin', current: true })
    expect(app.membersChanged.slice(before)).toEqual([teamId])
    expect((await workspacesOf(invitee.browser)).currentId).toBe(teamId)
    const again = await invitee.browser.send('POST', `/api/invites/${token}/accept`)
    expect(await refusedWith(again, 410)).toBe('invite_used')
    const preview = await jsonOf<InvitePreview>(await invitee.browser.get(`/api/invites/${token}`))
    expect(preview.state).toBe('accepted')
  })
})

describe('expiry, resend and revoke', () => {
  it('refuses an expired link; a resend sends a new one that works, the old one no more', async () => {
    const sent = await jsonOf<SentInvite>(await invite(other.email))
    const old = await app.inviteToken(other.email)
    await app.db.query(
      `update public.workspace_invites set expires_at = now() - interval '1 minute' where id = $1`,
      [sent.invite.id],
    )
    const expired = await other.browser.send('POST', `/api/invites/${old}/accept`)
    expect(await refusedWith(expired, 410)).toBe('invite_expired')
    const listed = await jsonOf<{ invites: WorkspaceInvite[] }>(
      await owner.browser.get(`/api/workspaces/${teamId}/invites`),
    )
    expect(listed.invites.find((item) => item.id === sent.invite.id)?.state).toBe('expired')
    const resent = await owner.browser.send(
      'POST',
      `/api/workspaces/${teamId}/invites/${sent.invite.id}/resend`,
    )
    expect(resent.status).toBe(200)
    expect((await jsonOf<SentInvite>(resent)).invite).toMatchObject({
      state: 'pending',
      sentCount: 2,
    })
    const fresh = await app.inviteToken(other.email, old)
    expect(fresh).not.toBe(old)
    expect(
      await refusedWith(await other.browser.send('POST', `/api/invites/${old}/accept`), 404),
    ).toBe('not_found')
    const declined = await other.browser.send('POST', `/api/invites/${fresh}/decline`)
    expect(declined.status).toBe(200)
    expect((await jsonOf<InvitePreview>(declined)).state).toBe('declined')
    expect(
      await refusedWith(await other.browser.send('POST', `/api/invites/${fresh}/accept`), 410),
    ).toBe('invite_used')
  })

  it('revokes a pending invite: its link is used up, and a second revoke is refused', async () => {
    const address = `revoked-${crypto.randomUUID().slice(0, 8)}@example.test`
    const sent = await jsonOf<SentInvite>(await invite(address))
    const path = `/api/workspaces/${teamId}/invites/${sent.invite.id}`
    const revoked = await owner.browser.send('DELETE', path)
    expect(revoked.status).toBe(200)
    expect((await jsonOf<{ invite: WorkspaceInvite }>(revoked)).invite.state).toBe('revoked')
    expect(await refusedWith(await owner.browser.send('DELETE', path), 410)).toBe('invite_used')
    expect(await refusedWith(await owner.browser.send('POST', `${path}/resend`), 410)).toBe(
      'invite_used',
    )
    // A revoked invite no longer blocks a new one to the address.
    expect((await invite(address)).status).toBe(201)
  })

  it('keeps the invite when the email cannot be sent, says so, and a resend delivers it', async () => {
    const address = `later-${crypto.randomUUID().slice(0, 8)}@example.test`
    app.mailDown(true)
    const response = await invite(address)
    app.mailDown(false)
    expect(response.status).toBe(201)
    const sent = await jsonOf<SentInvite>(response)
    expect(sent.emailSent).toBe(false)
    expect(sent.message).toMatch(/could not be sent.*Resend it/)
    expect(sent.invite).toMatchObject({ state: 'pending', sentCount: 0, lastSentAt: null })
    const resent = await owner.browser.send(
      'POST',
      `/api/workspaces/${teamId}/invites/${sent.invite.id}/resend`,
    )
    expect((await jsonOf<SentInvite>(resent)).emailSent).toBe(true)
    await app.inviteToken(address)
  })
})

describe('who may see and send invites', () => {
  it('refuses a member, and hides the workspace from an outsider', async () => {
    const member = await person(app, 'member')
    await invite(member.email)
    const token = await app.inviteToken(member.email)
    expect((await member.browser.send('POST', `/api/invites/${token}/accept`)).status).toBe(200)
    const list = await member.browser.get(`/api/workspaces/${teamId}/invites`)
    expect(await refusedWith(list, 403)).toBe('workspace_role_required')
    const send = await member.browser.send('POST', `/api/workspaces/${teamId}/invites`, {
      email: 'x@example.test',
    })
    expect(await refusedWith(send, 403)).toBe('workspace_role_required')
    const outsider = await person(app, 'outsider')
    const seen = await outsider.browser.get(`/api/workspaces/${teamId}/invites`)
    expect(await refusedWith(seen, 404)).toBe('not_found')
  })

  it('answers malformed links and ids from the catalogue', async () => {
    expect(await refusedWith(await other.browser.get('/api/invites/short'), 404)).toBe('not_found')
    const unknown = 'A'.repeat(43)
    expect(await refusedWith(await other.browser.get(`/api/invites/${unknown}`), 404)).toBe(
      'not_found',
    )
    const badId = await owner.browser.send('DELETE', `/api/workspaces/${teamId}/invites/1`)
    expect(await refusedWith(badId, 422)).toBe('validation_failed')
    const badEmail = await owner.browser.send('POST', `/api/workspaces/${teamId}/invites`, {
      email: 'not an address',
    })
    expect(await refusedWith(badEmail, 422)).toBe('validation_failed')
    const owners = await owner.browser.send('POST', `/api/workspaces/${teamId}/invites`, {
      email: 'boss@example.test',
      role: 'owner',
    })
    expect(await refusedWith(owners, 422)).toBe('validation_failed')
  })
})
