import type { BrowserContext, Page } from '@playwright/test'
import { assistantPage } from '../support/assistant.ts'
import { expect, test } from '../support/fixtures.ts'
import { password, signedInAccount, uniqueEmail } from '../support/identity.ts'
import { e2eStack } from '../support/stack.ts'
import { cards, payOnCheckoutPage, withStripeClock } from '../support/stripe.ts'

interface MailboxMessage {
  to: string
  subject: string
  text: string
}

/** The newest email to `to` whose subject matches, once it arrived. */
async function mailTo(context: BrowserContext, to: string, subject: RegExp): Promise<string> {
  let found: MailboxMessage | undefined
  await expect
    .poll(async () => {
      // A kept-alive connection the mailbox closed as it was reused is asked again, not fatal
      // (a clean-clone run once got "socket hang up" here).
      const response = await context.request
        .get(`${e2eStack.mailboxUrl}/api/messages?to=${encodeURIComponent(to)}`)
        .catch(() => null)
      if (response === null) return false
      const { messages } = (await response.json()) as { messages: MailboxMessage[] }
      found = messages.find((message) => subject.test(message.subject))
      return found !== undefined
    })
    .toBe(true)
  return found!.text
}

/** The invite page's address in an invite email. */
async function inviteLink(context: BrowserContext, to: string, team: string): Promise<string> {
  const text = await mailTo(context, to, new RegExp(team))
  const token = /\/invites\/([A-Za-z0-9_-]{43})/.exec(text)?.[1]
  expect(token, 'the email carries an invite link').toBeTruthy()
  return `/auth/invites/${token}`
}

/** The billing page's sentence about seats, re-read until Stripe's webhook has been applied. */
async function expectSeats(page: Page, seats: number): Promise<void> {
  await expect(async () => {
    await page.goto('/billing')
    await expect(
      page
        .getByRole('region', { name: 'Your team’s plan' })
        .getByText(`${seats} seats, one per member of the team.`),
    ).toBeVisible({ timeout: 2_000 })
  }).toPass({ timeout: 20_000 })
}

async function invite(page: Page, email: string): Promise<void> {
  const form = page.getByRole('form', { name: 'Invite someone' })
  await form.getByLabel('Email address').fill(email)
  await form.getByRole('button', { name: 'Send invite' }).click()
}

test('a team buys seats through checkout, grows to 3 seats, caps a member and drops a seat', async ({
  page,
  browser,
  account,
  pageErrors,
}) => {
  test.setTimeout(180_000)
  const team = `Difference Engines ${Date.now() % 100_000}`
  const colleagueContext = await browser.newContext()
  const colleague = await signedInAccount(colleagueContext, 'colleague', 'Grace Hopper')

  // The owner creates a team from the header's menu…
  await page.goto('/auth/profile')
  await page.getByRole('button', { name: `${account.displayName}, account menu` }).click()
  await page.getByRole('menuitem', { name: 'Create a team…' }).click()
  await page.getByLabel('Team name').fill(team)
  await page.getByRole('button', { name: 'Create team' }).click()
  await expect(page.getByRole('heading', { level: 1, name: team })).toBeVisible()
  const teamPage = new URL(page.url()).pathname
  // …and switches to it, as its Team plan is bought from inside the team.
  await page.getByRole('button', { name: `${account.displayName}, account menu` }).click()
  await page.getByRole('menuitemradio', { name: team }).click()
  await expect(
    page.getByRole('button', { name: `${account.displayName}, ${team}, account menu` }),
  ).toBeVisible()

  // …and buys the Team plan for it on the checkout page: 2 seats, the minimum.
  await page.goto('/billing/plans')
  const teamPlan = page.getByRole('list', { name: 'Plans' }).getByRole('listitem', { name: 'Team' })
  await expect(teamPlan).toContainText('1 member: 2 seats (the minimum)')
  await withStripeClock(async () => {
    await teamPlan.getByRole('button', { name: 'Subscribe to Team' }).click()
    await expect(page).toHaveURL(/\/checkout\/cs_/)
    await payOnCheckoutPage(page, cards.succeeds)
    await expect(page.getByRole('heading', { level: 1, name: "You're on Team" })).toBeVisible({
      timeout: 20_000,
    })
  })
  await expectSeats(page, 2)

  // Two invites: the second would need a third paid seat, so the page asks first, with its cost.
  await page.goto(teamPage)
  await invite(page, colleague.email)
  const form = page.getByRole('form', { name: 'Invite someone' })
  await expect(form.getByRole('status')).toHaveText(
    `Invite sent to ${colleague.email}. The link works for 7 days.`,
  )
  const newcomerEmail = uniqueEmail('newcomer')
  await invite(page, newcomerEmail)
  const question = form.getByRole('region', { name: 'Confirm an extra seat' })
  await expect(question).toContainText(
    `The team pays for 2 seats; inviting ${newcomerEmail} needs 3 seats.`,
  )
  await expect(question).toContainText(
    /Prorated for the rest of this period: \$[\d.]+\. Next invoice: \$[\d.]+\./,
  )
  await question.getByRole('button', { name: 'Add a seat and send invite' }).click()
  await expect(form.getByRole('status')).toHaveText(
    `Invite sent to ${newcomerEmail}. The link works for 7 days.`,
  )
  await expect(question).toHaveCount(0)

  // The colleague accepts from the email.
  const colleaguePage = await colleagueContext.newPage()
  await colleaguePage.goto(await inviteLink(colleagueContext, colleague.email, team))
  await colleaguePage.getByRole('button', { name: 'Accept and join' }).click()
  await expect(colleaguePage.getByRole('heading', { level: 1, name: team })).toBeVisible()

  // The newcomer has no account: the link leads through sign-up and back to the invite.
  // (The invite went to `newcomerEmail`; the newcomer signs up with that address.)
  const newcomerContext = await browser.newContext()
  const newcomer = await newcomerContext.newPage()
  await newcomer.goto(await inviteLink(newcomerContext, newcomerEmail, team))
  await expect(
    newcomer.getByRole('heading', { level: 1, name: 'You are invited to a workspace' }),
  ).toBeVisible()
  await newcomer.getByRole('link', { name: 'Create an account' }).click()
  await newcomer.getByLabel('Display name (optional)').fill('Alan Turing')
  await newcomer.getByLabel('Email address').fill(newcomerEmail)
  await newcomer.getByLabel('Password', { exact: true }).fill(password)
  await newcomer.getByLabel('Confirm password').fill(password)
  await newcomer.getByRole('button', { name: 'Create account' }).click()
  await expect(newcomer.getByRole('heading', { name: 'Check your email' })).toBeVisible()
  const confirmation = /https?:\/\/\S+\/auth\/confirm\?\S+/.exec(
    await mailTo(newcomerContext, newcomerEmail, /confirm/i),
  )?.[0]
  expect(confirmation, 'the email carries a confirmation link').toBeTruthy()
  await newcomer.goto(confirmation!)
  await expect(newcomer.getByRole('heading', { level: 1, name: `Join ${team}` })).toBeVisible()
  await newcomer.getByRole('button', { name: 'Accept and join' }).click()
  await expect(newcomer.getByRole('heading', { level: 1, name: team })).toBeVisible()

  // Three members, three seats; the next invoice carries the proration of the added seat.
  await expectSeats(page, 3)
  const invoice = page.getByRole('region', { name: 'Next invoice' })
  await expect(invoice.getByRole('row').filter({ hasText: '(prorated)' }).first()).toBeVisible()
  await expect(invoice.getByRole('row', { name: /Total/ })).toContainText(/\$[\d.,]+/)

  // The owner caps the colleague low on the Team usage page.
  await page.goto('/assistant/team-usage')
  const row = page.getByRole('row', { name: new RegExp(colleague.displayName) })
  await row.getByLabel(`Monthly cap for ${colleague.displayName}`).fill('50')
  await row.getByRole('button', { name: 'Save' }).click()
  await page.reload()
  await expect(row.getByLabel(`Monthly cap for ${colleague.displayName}`)).toHaveValue('50')

  // The colleague sends until the cap refuses, and is told whom to ask.
  const chat = assistantPage(colleaguePage)
  await colleaguePage.goto('/assistant')
  for (let sent = 1; sent <= 5; sent += 1) {
    await chat.ask(`Question ${sent}: what is a tessera?`)
    await chat.settled()
    if (await chat.alert.isVisible()) break
  }
  await expect(chat.alert).toHaveAttribute('data-code', 'member_cap_reached')
  await expect(chat.alert).toContainText(`Ask ${account.displayName}`)
  await expect(chat.alert).toContainText('to raise your cap')

  // Removing the newcomer gives back a seat: 2 again, the minimum.
  await page.goto(teamPage)
  const members = page.getByRole('list', { name: `Members of ${team}` })
  await members
    .getByRole('listitem')
    .filter({ hasText: 'Alan Turing' })
    .getByRole('button', { name: 'Remove' })
    .click()
  await page.getByRole('button', { name: 'Yes, remove' }).click()
  await expect(members.getByRole('listitem')).toHaveCount(2)
  await expectSeats(page, 2)

  await colleagueContext.close()
  await newcomerContext.close()
  expect(pageErrors).toEqual([])
})
