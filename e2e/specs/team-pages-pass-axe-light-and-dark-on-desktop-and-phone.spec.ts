import type { Page } from '@playwright/test'
import { expectAccessible } from '../support/a11y.ts'
import { expect, test } from '../support/fixtures.ts'
import { withStripeClock } from '../support/stripe.ts'
import { teamWithInvite } from '../support/teams.ts'

// The team pages (issue 19), as every-page-passes-axe… checks the rest: in the light and dark
// themes at a desktop's and a phone's width, seen by the owner of a team on the Team plan (the
// invite page by the colleague it was sent to).
const looks = [
  { width: 1280, height: 800, colorScheme: 'light' },
  { width: 1280, height: 800, colorScheme: 'dark' },
  { width: 390, height: 844, colorScheme: 'light' },
  { width: 390, height: 844, colorScheme: 'dark' },
] as const

async function everyLook(page: Page, state: string, ready: () => Promise<void>): Promise<void> {
  for (const look of looks) {
    await page.setViewportSize({ width: look.width, height: look.height })
    await page.emulateMedia({ colorScheme: look.colorScheme })
    await ready()
    await page.evaluate(() =>
      Promise.allSettled(document.getAnimations().map((animation) => animation.finished)),
    )
    await expectAccessible(page, `${state}, ${look.colorScheme}, ${look.width} px`)
  }
}

const heading = (page: Page, name: string | RegExp) =>
  page.locator('main').getByRole('heading', { level: 1, name })

test('the team pages pass axe in both themes on a desktop and a phone', async ({
  page,
  browser,
  pageErrors,
}) => {
  test.setTimeout(120_000)
  const team = 'Analytical Engines'
  const colleagueContext = await browser.newContext()
  const { workspaceId, invitePath } = await withStripeClock(() =>
    teamWithInvite(page, colleagueContext, team),
  )

  await page.goto('/auth/workspaces')
  await everyLook(page, 'the workspaces page', () =>
    expect(page.getByRole('main').getByText(team).first()).toBeVisible(),
  )
  await page.goto(`/auth/workspaces/${workspaceId}`)
  await everyLook(page, 'a team’s members page', () =>
    expect(page.getByRole('list', { name: 'Pending invites' })).toBeVisible(),
  )
  await page.goto('/assistant/team-usage')
  await everyLook(page, 'the team usage page', () =>
    expect(page.getByRole('heading', { level: 2, name: 'Members' })).toBeVisible(),
  )
  await page.goto('/billing')
  await everyLook(page, 'a team’s billing page', () =>
    expect(page.getByRole('region', { name: 'Next invoice' }).getByRole('table')).toBeVisible(),
  )
  await page.goto('/billing/plans')
  await everyLook(page, 'the plans page in a team', () =>
    expect(page.getByRole('list', { name: 'Plans' })).toBeVisible(),
  )

  const invitee = await colleagueContext.newPage()
  await invitee.goto(invitePath)
  await everyLook(invitee, 'an invite page', async () => {
    await expect(heading(invitee, `Join ${team}`)).toBeVisible()
    await expect(invitee.getByRole('button', { name: 'Accept and join' })).toBeVisible()
  })

  await colleagueContext.close()
  expect(pageErrors).toEqual([])
})
