import type { Page } from '@playwright/test'
import { expectAccessibleInEveryLook } from '../support/a11y.ts'
import { expect, test } from '../support/fixtures.ts'
import { withStripeClock } from '../support/stripe.ts'
import { teamWithInvite } from '../support/teams.ts'

// The team pages (issue 19), as every-page-passes-axe… checks the rest: in the light and dark
// themes at a desktop's and a phone's width, seen by the owner of a team on the Team plan (the
// invite page by the colleague it was sent to).

const heading = (page: Page, name: string | RegExp) =>
  page.locator('main').getByRole('heading', { level: 1, name })

test('the team pages pass axe in both themes on a desktop and a phone', async ({
  page,
  browser,
  pageErrors,
}) => {
  test.setTimeout(240_000)
  const team = 'Analytical Engines'
  const colleagueContext = await browser.newContext()
  const { workspaceId, invitePath } = await withStripeClock(() =>
    teamWithInvite(page, colleagueContext, team),
  )

  await page.goto('/auth/workspaces')
  await expectAccessibleInEveryLook(page, 'the workspaces page', () =>
    expect(page.getByRole('main').getByText(team).first()).toBeVisible(),
  )
  await page.goto(`/auth/workspaces/${workspaceId}`)
  await expectAccessibleInEveryLook(page, 'a team’s members page', () =>
    expect(page.getByRole('list', { name: 'Pending invites' })).toBeVisible(),
  )
  await page.goto('/assistant/team-usage')
  await expectAccessibleInEveryLook(page, 'the team usage page', () =>
    expect(page.getByRole('heading', { level: 2, name: 'Members' })).toBeVisible(),
  )
  await page.goto('/billing')
  await expectAccessibleInEveryLook(page, 'a team’s billing page', () =>
    expect(page.getByRole('region', { name: 'Next invoice' }).getByRole('table')).toBeVisible(),
  )
  await page.goto('/billing/plans')
  await expectAccessibleInEveryLook(page, 'the plans page in a team', () =>
    expect(page.getByRole('list', { name: 'Plans' })).toBeVisible(),
  )

  const invitee = await colleagueContext.newPage()
  await invitee.goto(invitePath)
  await expectAccessibleInEveryLook(invitee, 'an invite page', async () => {
    await expect(heading(invitee, `Join ${team}`)).toBeVisible()
    await expect(invitee.getByRole('button', { name: 'Accept and join' })).toBeVisible()
  })

  await colleagueContext.close()
  expect(pageErrors).toEqual([])
})
