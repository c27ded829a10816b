// Test support for workspaces: the identity test app with a recorded members-changed hook and an
// email port that can be made to fail, plus a few calls every workspace test makes. Never
// imported by the app itself.
import type { WorkspaceSummary, WorkspacesResponse } from '@tessera/contracts'
import { expect } from 'vitest'
import { createResendMail } from '../platform/mail.ts'
import type { MailSender } from '../platform/mail.ts'
import { jsonOf, startIdentityTestApp, testPassword } from './identity.ts'
import type { IdentityTestApp, TestBrowser } from './identity.ts'

export interface WorkspacesTestApp extends IdentityTestApp {
  /** Workspace ids the members-changed hook was called with, in order. */
  membersChanged: string[]
  /** While true, every invite email fails as an unreachable mail service would. */
  mailDown(down: boolean): void
  /** The invite link's token from the newest invite email to `to`. */
  inviteToken(to: string, previous?: string): Promise<string>
}

export async function startWorkspacesTestApp(): Promise<WorkspacesTestApp> {
  const membersChanged: string[] = []
  let down = false
  let real: MailSender | undefined
  let mailboxUrl = ''
  const mail: MailSender = {
    send: (message) => {
      if (down) return Promise.resolve({ sent: false, reason: 'the mail API is unreachable' })
      real ??= createResendMail({
        apiUrl: mailboxUrl,
        apiKey: 're_tessera_local_mailbox',
        from: 'Tessera <no-reply@tessera.local>',
      })
      return real.send(message)
    },
  }
  const app = await startIdentityTestApp({
    deps: { workspaces: { mail, onMembersChanged: (id) => void membersChanged.push(id) } },
  })
  mailboxUrl = app.supabase.mailboxUrl
  return {
    ...app,
    membersChanged,
    mailDown: (value) => (down = value),
    async inviteToken(to, previous) {
      const message = await app.mail(
        to,
        (candidate) =>
          candidate.type === 'app' &&
          (previous === undefined || !candidate.links.some((link) => link.endsWith(previous))),
      )
      const link = message.links.find((candidate) => candidate.includes('/invites/'))
      const token = link?.split('/invites/')[1]
      if (token === undefined) throw new Error('the invite email has no link')
      return token
    },
  }
}

/** Signs up `label@…` and returns the browser and the address. */
export async function person(app: IdentityTestApp, label: string) {
  const email = `${label}-${crypto.randomUUID().slice(0, 8)}@example.test`
  const browser = await app.signUp(email)
  return { email, browser, password: testPassword }
}

export async function workspacesOf(browser: TestBrowser): Promise<WorkspacesResponse> {
  const response = await browser.get('/api/workspaces')
  expect(response.status, await response.clone().text()).toBe(200)
  return jsonOf<WorkspacesResponse>(response)
}

/** Creates a team workspace as `browser`; its summary. */
export async function createTeam(browser: TestBrowser, name: string): Promise<WorkspaceSummary> {
  const response = await browser.send('POST', '/api/workspaces', { name })
  expect(response.status, await response.clone().text()).toBe(201)
  return (await jsonOf<{ workspace: WorkspaceSummary }>(response)).workspace
}

/** The error code of a response, with its status checked. */
export async function refusedWith(response: Response, status: number): Promise<string> {
  const text = await response.text()
  expect(response.status, text).toBe(status)
  return (JSON.parse(text) as { error: { code: string } }).error.code
}
