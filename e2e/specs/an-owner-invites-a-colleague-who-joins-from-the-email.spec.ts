import { expect, test } from '../support/fixtures.ts'
import { expectAccessible } from '../support/a11y.ts'
import { signedInAccount } from '../support/identity.ts'
import { e2eStack } from '../support/stack.ts'

interface MailboxMessage {
  to: string
  subject: string
  text: string
}

test('an owner invites a colleague who joins from the email, and the last owner cannot leave', async ({
  page,
  browser,
  account,
  pageErrors,
}) => {
  const team = 'Analytical Engines'
  const second = await browser.newContext()
  const colleague = await signedInAccount(second, 'invitee', 'Grace Hopper')

  // The owner creates a team from the header's menu.
  await page.goto('/auth/profile')
  await page.getByRole('button', { name: `${account.displayName}, account menu` }).click()
  await page.getByRole('menuitem', { name: 'Create a team…' }).click()
  await page.getByLabel('Team name').fill(team)
  await page.getByRole('button', { name: 'Create team' }).click()
  await expect(page.getByRole('heading', { level: 1, name: team })).toBeVisible()

  // …and invites the colleague, whose invite waits in the list.
  const inviteForm = page.getByRole('form', { name: 'Invite someone' })
  await inviteForm.getByLabel('Email address').fill(colleague.email)
  await inviteForm.getByRole('button', { name: 'Send invite' }).click()
  await expect(inviteForm.getByRole('status')).toHaveText(
    `Invite sent to ${colleague.email}. The link works for 7 days.`,
  )
  await expect(
    page.getByRole('list', { name: 'Pending invites' }).getByRole('listitem'),
  ).toContainText(colleague.email)

  // The colleague opens the link from the email and accepts.
  let mail: MailboxMessage | undefined
  await expect
    .poll(async () => {
      const response = await second.request.get(
        `${e2eStack.mailboxUrl}/api/messages?to=${encodeURIComponent(colleague.email)}`,
      )
      const { messages } = (await response.json()) as { messages: MailboxMessage[] }
      mail = messages.find((message) => message.subject.includes(team))
      return mail !== undefined
    })
    .toBe(true)
  const token = /\/invites\/([A-Za-z0-9_-]{43})/.exec(mail!.text)?.[1]
  expect(token, 'the email carries an invite link').toBeTruthy()
  const invitee = await second.newPage()
  await invitee.goto(`/auth/invites/${token}`)
  await expect(invitee.getByRole('heading', { level: 1, name: `Join ${team}` })).toBeVisible()
  await expect(invitee.getByText(`${account.displayName} invited ${colleague.email}`)).toBeVisible()
  await invitee.getByRole('button', { name: 'Accept and join' }).click()

  // Both see two members; the colleague now works in the team, as the header says.
  await expect(invitee.getByRole('heading', { level: 1, name: team })).toBeVisible()
  await expect(invitee.getByText(`You joined ${team}. You are working in it now.`)).toBeVisible()
  const members = (where: typeof page) =>
    where.getByRole('list', { name: `Members of ${team}` }).getByRole('listitem')
  await expect(members(invitee)).toHaveCount(2)
  await expect(
    invitee.getByRole('button', { name: `${colleague.displayName}, ${team}, account menu` }),
  ).toBeVisible()
  await expect(members(page)).toHaveCount(2)
  await expect(members(page).filter({ hasText: colleague.displayName })).toContainText('Member')
  await expect(page.getByText('No invites are waiting for an answer.')).toBeVisible()
  await expectAccessible(page, 'the members page, seen by its owner')

  // The only owner cannot leave: the rule's sentence appears next to the button.
  await page.getByRole('button', { name: 'Leave workspace' }).click()
  await page.getByRole('button', { name: 'Yes, leave' }).click()
  await expect(
    page.getByRole('region', { name: 'Leave this workspace' }).getByRole('alert'),
  ).toContainText(
    'A workspace needs at least one owner. Make another member an owner first, then try again.',
  )
  await expect(members(page)).toHaveCount(2)

  await second.close()
  expect(pageErrors).toEqual([])
})
