import { grantOperatorInConsole, operatorSession, signedUpSession } from '../support/console.ts'
import { alteredBuild, deployApi, publishAltered, restoreBilling } from '../support/deploy-cli.ts'
import { deployTest as test, expect } from '../support/deploy-stack.ts'

/** `text` as a literal part of a regular expression. */
const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

test.afterEach(async ({ request, deployStack }) => {
  await restoreBilling(request, deployStack)
})

test('the first operator grants the role to a new account, and when the two promote different versions at once the second is refused with who changed it and when, and nothing of theirs is applied', async ({
  browser,
  request,
  deployStack: stack,
}) => {
  test.setTimeout(360_000)
  for (const version of ['2.4.0', '2.5.0']) {
    const build = await alteredBuild(
      stack,
      'billing',
      `console-${version}`,
      ({ descriptor, files }) => {
        const entry = files.get(descriptor.entry) ?? new Uint8Array()
        files.set(
          descriptor.entry,
          new Uint8Array([...entry, ...new TextEncoder().encode(`\n//${version}\n`)]),
        )
      },
    )
    expect((await publishAltered(stack, build, ['--version', version])).output).toContain(
      `billing ${version} registered`,
    )
  }
  const address = { appUrl: stack.appUrl, dataDir: stack.dataDir, mailboxUrl: stack.mailboxUrl }
  // The stack's first operator makes a newly signed-up account the second, on the console's
  // Operators page (as `npm run operators -- grant` would), and the list says who granted it.
  const first = await operatorSession(browser, address)
  const second = await signedUpSession(browser, address, 'second-operator')
  await grantOperatorInConsole(first.page, second.email)
  await expect(
    first.page.getByRole('row', { name: new RegExp(escaped(second.email)) }),
  ).toContainText(first.email)
  for (const { page } of [first, second]) {
    await page.goto('/console/remotes/billing')
    await expect(page.getByRole('heading', { level: 1, name: 'billing versions' })).toBeVisible()
  }

  // Both open their confirmation against stable 1.0.0 (the same revision).
  await first.page.getByRole('button', { name: 'Promote 2.4.0' }).click()
  await second.page.getByRole('button', { name: 'Promote 2.5.0' }).click()
  const firstDialog = first.page.getByRole('dialog', { name: 'Promote billing 2.4.0?' })
  const secondDialog = second.page.getByRole('dialog', { name: 'Promote billing 2.5.0?' })
  await expect(secondDialog.getByRole('group', { name: 'Stable channel' })).toContainText(
    /1\.0\.0.*2\.5\.0/,
  )

  await firstDialog.getByRole('button', { name: 'Promote' }).click()
  await expect(firstDialog).toHaveCount(0)
  await secondDialog.getByRole('button', { name: 'Promote' }).click()
  const refusal = secondDialog.getByRole('alert')
  await expect(refusal).toContainText(
    new RegExp(
      `Nothing was promoted\\. Changed by ${escaped(first.email)} at .+; reload to see it\\.`,
    ),
  )
  await expect(secondDialog.getByRole('button', { name: 'Promote' })).toHaveCount(0)
  expect((await deployApi(request, stack, 'billing').state()).stable.version).toBe('2.4.0')

  // Reload shows what the first operator did; nothing of the second's was applied.
  await refusal.getByRole('button', { name: 'Reload' }).click()
  await expect(secondDialog).toHaveCount(0)
  await expect(second.page.getByRole('region', { name: 'Channels' })).toContainText(
    /Stable\s*2\.4\.0/,
  )
  await first.context.close()
  await second.context.close()
})
