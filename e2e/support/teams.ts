// Team states for the journeys that look at team pages rather than build a team (the journey
// a-team-pays-per-seat-… builds one through the pages): the API calls those pages make.
import { expect, type BrowserContext, type Page } from '@playwright/test'
import { signedInAccount } from './identity.ts'
import { e2eStack } from './stack.ts'
import { subscribeThroughApi } from './stripe.ts'

const stateChanging = { 'x-tessera-csrf': '1', origin: e2eStack.appUrl }

/**
 * A team owned by the page's signed-in user, the session working in it, on the Team plan (2
 * seats), with a colleague (in `colleagueContext`) invited: the invite page's address is
 * `invitePath`.
 */
export async function teamWithInvite(page: Page, colleagueContext: BrowserContext, name: string) {
  const created = await page.request.post('/api/workspaces', {
    headers: stateChanging,
    data: { name },
  })
  expect(created.status(), await created.text()).toBeLessThan(300)
  const { workspace } = (await created.json()) as { workspace: { id: string } }
  const switched = await page.request.post('/api/workspaces/current', {
    headers: stateChanging,
    data: { workspaceId: workspace.id },
  })
  expect(switched.status(), await switched.text()).toBe(200)
  await subscribeThroughApi(page, 'team')

  const colleague = await signedInAccount(colleagueContext, 'colleague', 'Grace Hopper')
  const invited = await page.request.post(`/api/workspaces/${workspace.id}/invites`, {
    headers: stateChanging,
    data: { email: colleague.email, role: 'member' },
  })
  expect(invited.status(), await invited.text()).toBeLessThan(300)
  let token: string | undefined
  await expect
    .poll(async () => {
      const response = await colleagueContext.request.get(
        `${e2eStack.mailboxUrl}/api/messages?to=${encodeURIComponent(colleague.email)}`,
      )
      const { messages } = (await response.json()) as { messages: { text: string }[] }
      token = messages
        .map((message) => /\/invites\/([A-Za-z0-9_-]{43})/.exec(message.text)?.[1])
        .find((found) => found !== undefined)
      return token !== undefined
    })
    .toBe(true)
  return { workspaceId: workspace.id, invitePath: `/auth/invites/${token}`, colleague }
}
