import { confirmationLink } from '../support/cluster-api.ts'
import { clusterTest as test, expect } from '../support/cluster.ts'
import { password, uniqueEmail } from '../support/identity.ts'

test('a user signs up and signs in through HAProxy across three replicas, and keeps working when one is killed', async ({
  page,
  request,
  cluster,
  pageErrors,
}) => {
  const served = async () =>
    Object.fromEntries((await cluster.backends()).map((state) => [state.name, state.responses]))
  const before = await served()

  const email = uniqueEmail('cluster')
  await page.goto(`${cluster.appUrl}/auth/sign-up`)
  await page.getByLabel('Display name (optional)').fill('Katherine Johnson')
  await page.getByLabel('Email address').fill(email)
  await page.getByLabel('Password', { exact: true }).fill(password)
  await page.getByLabel('Confirm password').fill(password)
  await page.getByRole('button', { name: 'Create account' }).click()
  await expect(page.getByRole('heading', { name: 'Check your email' })).toBeVisible()
  await page.goto(await confirmationLink(request, cluster, email))
  const menu = page.getByRole('button', { name: 'Katherine Johnson, account menu' })
  await expect(menu).toBeVisible()

  await menu.click()
  await page.getByRole('menuitem', { name: 'Sign out', exact: true }).click()
  await expect(page).toHaveURL(/\/auth\/sign-in/)
  await page.getByLabel('Email address').fill(email)
  await page.getByLabel('Password', { exact: true }).fill(password)
  await page.getByRole('button', { name: 'Sign in', exact: true }).click()
  await expect(menu).toBeVisible()

  // No stickiness: the page's requests went round the replicas, every one of which served some.
  const after = await served()
  const replicasThatServed = Object.keys(after).filter(
    (name) => (after[name] ?? 0) > (before[name] ?? 0),
  )
  expect(replicasThatServed.length).toBeGreaterThan(1)

  // A crash: no drain, its connections (this page's event stream, perhaps) die with it.
  cluster.killReplica('bff2')
  await page.goto(`${cluster.appUrl}/billing`)
  await expect(menu).toBeVisible()
  await expect(
    page.locator('main [data-tessera-remote="billing"]').getByRole('heading', { level: 1 }),
  ).toBeVisible()
  await page.reload()
  await expect(menu).toBeVisible()
  await expect
    .poll(async () => (await cluster.backends()).find((state) => state.name === 'bff2')?.status)
    .toBe('DOWN')
  // HAProxy sent what bff2 could not take to the others: nothing failed for the user.
  const down = await cluster.backends()
  expect(
    down.filter((state) => state.name !== 'bff2').every((state) => state.status === 'UP'),
  ).toBe(true)
  expect(pageErrors).toEqual([])
})
