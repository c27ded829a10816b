import type { Page } from '@playwright/test'
import {
  clusterAccount,
  clusterDeployApi,
  emulatorControl,
  logLines,
  logOffsets,
  publishNewVersion,
  servedBy,
  stateChanging,
} from '../support/cluster-api.ts'
import { clusterTest as test, expect, type Cluster } from '../support/cluster.ts'

/** Opens `path` in `page` and returns the replica its event stream (`GET /api/events`) is on. */
async function openOn(cluster: Cluster, page: Page, at: string): Promise<string> {
  const stream = page.waitForResponse(
    (response) => new URL(response.url()).pathname === '/api/events',
  )
  await page.goto(at)
  return servedBy(cluster, await stream)
}

test('two tabs whose event streams are on different replicas follow a plan change delivered to a third, a promote and a sign-out', async ({
  browser,
  cluster,
}) => {
  // Two browser contexts holding the same session cookie, not two pages of one: pages of one
  // context share a BroadcastChannel, over which the host mirrors its session to its other tabs,
  // so a change one tab heard would reach the other without PostgreSQL. Here each tab hears of
  // it only on its own event stream, from the outbox on its own replica.
  const first = await browser.newContext({ baseURL: cluster.appUrl })
  const account = await clusterAccount(first.request, cluster, 'two-tabs', 'Mary Jackson')
  const second = await browser.newContext({
    baseURL: cluster.appUrl,
    storageState: await first.storageState(),
  })
  const tab1 = await first.newPage()
  const tab2 = await second.newPage()
  const errors: string[] = []
  for (const tab of [tab1, tab2]) tab.on('pageerror', (error) => errors.push(error.message))

  // HAProxy goes round the replicas without stickiness; each tab is loaded while it may send
  // new requests to one replica only, so the two streams end up on bff1 and bff2, which the
  // replicas' own logs confirm.
  expect(await cluster.routeOnlyTo(['bff1'], () => openOn(cluster, tab1, '/billing'))).toBe('bff1')
  expect(await cluster.routeOnlyTo(['bff2'], () => openOn(cluster, tab2, '/billing'))).toBe('bff2')
  const menu = (tab: Page) =>
    tab.getByRole('button', { name: `${account.displayName}, account menu` })
  const badge = (tab: Page) => tab.getByRole('banner').getByRole('link', { name: /^Current plan:/ })
  const usage = (tab: Page, limit: RegExp) =>
    tab
      .getByRole('banner')
      .getByRole('link', { name: new RegExp(`^Assistant: 0 of ${limit.source}`) })
  for (const tab of [tab1, tab2]) {
    await expect(menu(tab)).toBeVisible()
    await expect(badge(tab)).toHaveText('Free')
    await expect(usage(tab, /50.000 tokens/)).toBeVisible()
  }

  // (a) The Stripe stand-in delivers this checkout's webhooks to bff3 itself, not through HAProxy.
  const bff3 = cluster.replicas.find((replica) => replica.name === 'bff3')!
  const webhookPath = '/api/billing/webhook'
  const secret = 'whsec_tessera_local_stand_in'
  const logged = logOffsets(cluster)
  await emulatorControl(cluster.stripeUrl, '/webhooks/endpoint', {
    url: `${bff3.url}${webhookPath}`,
    secret,
  })
  try {
    const started = await first.request.post('/api/billing/checkout', {
      headers: stateChanging(cluster),
      data: { plan: 'pro' },
    })
    expect(started.status(), await started.text()).toBe(200)
    const { url } = (await started.json()) as { url: string }
    const sessionId = /\/checkout\/(cs_[^/?#]+)/.exec(url)?.[1]
    expect(sessionId, `a checkout session id in ${url}`).toBeTruthy()
    await emulatorControl(cluster.stripeUrl, `/checkout/${sessionId}/pay`, {
      card: '4242424242424242',
    })

    for (const tab of [tab1, tab2]) {
      await expect(badge(tab)).toHaveText('Pro')
      await expect(usage(tab, /1.000.000 tokens/)).toBeVisible()
    }
  } finally {
    await emulatorControl(cluster.stripeUrl, '/webhooks/endpoint', {
      url: `http://127.0.0.1:${new URL(cluster.appUrl).port}${webhookPath}`,
      secret,
    })
  }
  // Every webhook of the checkout went to bff3 and none to the replicas the tabs are on.
  const webhooks = Object.fromEntries(
    Object.entries(logLines(cluster, logged)).map(([name, lines]) => [
      name,
      lines
        .filter((line) => line.msg === 'request' && line.path === webhookPath)
        .map((line) => line.status),
    ]),
  )
  expect(webhooks.bff3?.length).toBeGreaterThan(0)
  expect(webhooks.bff3?.every((status) => status === 200)).toBe(true)
  expect(webhooks).toMatchObject({ bff1: [], bff2: [] })

  // (c) A promote through the deploy API (the team's own commands) moves both tabs' notice.
  const deploy = await clusterDeployApi(cluster, 'billing')
  const stableBefore = (await deploy.state('billing')).stable.version
  expect(stableBefore, 'the cluster published billing to stable').not.toBeNull()
  const version = await publishNewVersion(cluster, 'billing')
  try {
    expect((await deploy.promote('billing', version)).after.version).toBe(version)
    for (const tab of [tab1, tab2]) {
      await expect(tab.getByRole('status').filter({ hasText: 'been updated' })).toHaveText(
        /^Billing has been updated since this page opened\. Reload to use the new version/,
      )
    }
  } finally {
    // The next journey in this worker starts from the billing the cluster published.
    await deploy.promote('billing', stableBefore!)
  }

  // (b) Signing out in tab 1 signs tab 2 out: its replica hears of it from PostgreSQL.
  await menu(tab1).click()
  await tab1.getByRole('menuitem', { name: 'Sign out', exact: true }).click()
  await expect(tab1).toHaveURL(/\/auth\/sign-in/)
  await expect(tab2).toHaveURL(/\/auth\/sign-in\?next=%2Fbilling/)
  await expect(tab2.getByRole('link', { name: 'Sign in' })).toBeVisible()
  expect(errors).toEqual([])
  await first.close()
  await second.close()
})
