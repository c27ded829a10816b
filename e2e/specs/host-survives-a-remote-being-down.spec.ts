import { expect, remoteFiles, remotes, test } from '../support/fixtures.ts'
import { withFirstReadEdited } from '../support/first-reads.ts'

// One journey per remote: its origin refuses connections, the host shows a fallback card for it,
// reports the failure, and the other two remotes keep working.
for (const down of remotes) {
  test(`the app keeps working when the ${down.name} remote's origin refuses connections`, async ({
    page,
  }) => {
    await page.route(remoteFiles(down.name), (route) => route.abort('connectionrefused'))
    const reports: Array<Record<string, unknown>> = []
    page.on('request', (request) => {
      if (request.url().endsWith('/api/telemetry/remote-errors') && request.method() === 'POST') {
        reports.push(request.postDataJSON() as Record<string, unknown>)
      }
    })

    await page.goto(down.path)
    const card = page
      .getByRole('main')
      .getByRole('region', { name: `${down.label} is unavailable right now` })
    await expect(card).toBeVisible()
    await expect(card.getByRole('button', { name: 'Try again' })).toBeVisible()
    await expect.poll(() => reports.filter((r) => r.remote === down.name).length).toBeGreaterThan(0)
    expect(reports.find((r) => r.remote === down.name)).toMatchObject({
      version: '1.0.0',
      stage: 'entry',
    })

    for (const up of remotes.filter((r) => r.name !== down.name)) {
      await page
        .getByRole('navigation', { name: 'Main' })
        .getByRole('link', { name: up.label })
        .click()
      await expect(
        page.locator(`main [data-tessera-remote="${up.name}"]`).getByRole('heading', { level: 1 }),
      ).toBeVisible()
    }
  })
}

test('a fallback card loads the remote once its origin answers again', async ({ page }) => {
  let refuse = true
  await page.route(remoteFiles('billing'), (route) =>
    refuse ? route.abort('connectionrefused') : route.continue(),
  )
  await page.goto('/billing')
  const card = page
    .getByRole('main')
    .getByRole('region', { name: 'Billing is unavailable right now' })
  await expect(card).toBeVisible()
  refuse = false
  await card.getByRole('button', { name: 'Try again' }).click()
  await expect(
    page.locator('main [data-tessera-remote="billing"]').getByRole('heading', { level: 1 }),
  ).toBeVisible()
})

test('a remote whose origin hangs shows the fallback card after the load timeout', async ({
  page,
}) => {
  // Accept the request and never answer it: without a timeout the page would spin forever.
  await page.route(remoteFiles('ai'), () => undefined)
  await page.goto('/assistant')
  await expect(page.getByRole('main').getByText('Loading Assistant')).toBeVisible()
  await expect(
    page.getByRole('main').getByRole('region', { name: 'Assistant is unavailable right now' }),
  ).toBeVisible({ timeout: 45_000 })
  await expect(page.getByRole('main')).toContainText('Assistant’s server did not answer in time.')
})

test('a remote built for another contract major is refused with a sentence saying so', async ({
  page,
}) => {
  const scripts: string[] = []
  page.on(
    'request',
    (r) => r.url().includes('/billing/') && r.url().endsWith('.js') && scripts.push(r.url()),
  )
  const asContract2 = (snapshot: { remotes: Array<{ name: string; contract: number }> }) => {
    for (const remote of snapshot.remotes) if (remote.name === 'billing') remote.contract = 2
    return snapshot
  }
  // Any later read of the snapshot says so too.
  await page.route('**/api/remotes', async (route) => {
    const response = await route.fetch()
    await route.fulfill({ response, json: asContract2(await response.json()) })
  })
  // The first snapshot comes in the page (first-reads.ts): billing is told so there. The BFF
  // hints no build of another contract (routeHints), so the page's hints go too, in the head and
  // in the Link header.
  await page.route('**/billing', async (route) => {
    const response = await route.fetch()
    const html = withFirstReadEdited(
      (await response.text()).replace(/<link rel="(?:modulepreload|preload)"[^>]*>/g, ''),
      '/api/remotes',
      asContract2,
    )
    const headers = Object.fromEntries(
      Object.entries(response.headers()).filter(([name]) => name !== 'link'),
    )
    await route.fulfill({ response, body: html, headers })
  })
  await page.goto('/billing')
  await expect(
    page.getByRole('main').getByRole('region', { name: 'Billing needs an update' }),
  ).toContainText('Billing was built for platform contract 2, but this app speaks contract 1.')
  expect(scripts).toEqual([])
})
