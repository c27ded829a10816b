import { readFile } from 'node:fs/promises'
import { createServer, type Server } from 'node:http'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Page } from '@playwright/test'
import { expect, test } from '../support/fixtures.ts'
import { e2eStack } from '../support/stack.ts'

// Overrides change one browser only (a cookie), so these journeys run in the shared stack beside
// the other specs without disturbing them: that is part of what they prove.

const billingDist = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../remotes/billing/dist',
)

const contentTypes: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
}

/** A developer's server for billing's build on a free loopback port, as `vite preview` would be. */
async function startDevServer(): Promise<{
  url: string
  requests: string[]
  close(): Promise<void>
}> {
  const requests: string[] = []
  const server: Server = createServer((request, response) => {
    const pathname = new URL(request.url ?? '/', 'http://dev.test').pathname
    requests.push(pathname)
    const file = path.join(billingDist, path.normalize(pathname))
    if (!file.startsWith(billingDist)) {
      response.writeHead(404).end()
      return
    }
    readFile(file).then(
      (body) => {
        response.writeHead(200, {
          'content-type': contentTypes[path.extname(file)] ?? 'application/octet-stream',
          // Module scripts from another origin need CORS, as a dev server sends it.
          'access-control-allow-origin': '*',
        })
        response.end(body)
      },
      () => response.writeHead(404).end(),
    )
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  const port = typeof address === 'object' && address ? address.port : 0
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve())
        // The browser keeps its connections alive; close would otherwise wait for them.
        server.closeAllConnections()
      }),
  }
}

/** The Content-Security-Policy of every page load of `page`, newest last. */
function recordPagePolicies(page: Page): string[] {
  const policies: string[] = []
  page.on('response', (response) => {
    if (
      response.request().isNavigationRequest() &&
      response.request().frame() === page.mainFrame()
    ) {
      policies.push(response.headers()['content-security-policy'] ?? '')
    }
  })
  return policies
}

const scriptSources = (policy: string | undefined): string[] =>
  (policy ?? '')
    .split(';')
    .map((directive) => directive.trim().split(/\s+/))
    .find(([name]) => name === 'script-src')
    ?.slice(1) ?? []

const previewLink = (entryUrl: string, label: string) =>
  `/billing?tessera-override=billing&tessera-override-url=${encodeURIComponent(entryUrl)}&tessera-override-label=${encodeURIComponent(label)}`

test('a developer loads billing from their dev server through a preview link, and one key press returns to the published version', async ({
  page,
  pageErrors,
  browser,
}) => {
  const dev = await startDevServer()
  try {
    const policies = recordPagePolicies(page)
    const entryUrl = `${dev.url}/assets/remoteEntry.js`
    await page.goto(previewLink(entryUrl, 'preview'))

    // Nothing changes until the person agrees.
    const prompt = page.getByRole('region', { name: 'Load a preview?' })
    await expect(prompt).toContainText(
      `This link loads billing from ${dev.url} — preview, in this browser only, until you stop it.`,
    )
    expect(dev.requests).toEqual([])
    expect(scriptSources(policies.at(-1))).not.toContain(dev.url)

    await prompt.getByRole('button', { name: 'Load billing' }).click()
    const banner = page.getByRole('region', { name: 'Overrides in this browser' })
    await expect(banner).toContainText(
      `billing is loaded from ${dev.url} — preview (this browser only)`,
    )
    await expect(
      page.locator('main [data-tessera-remote="billing"]').getByRole('heading', { level: 1 }),
    ).toBeVisible()
    expect(dev.requests).toContain('/assets/remoteEntry.js')
    expect(page.url()).not.toContain('tessera-override')
    // The reloaded page's policy allows the dev server, because this browser's snapshot uses it.
    expect(scriptSources(policies.at(-1))).toContain(dev.url)

    // Everyone else still gets the published billing.
    const other = await browser.newContext({ baseURL: e2eStack.appUrl })
    try {
      const snapshot = (await (await other.request.get('/api/remotes')).json()) as {
        remotes: { name: string; entryUrl: string; override?: unknown }[]
      }
      const billing = snapshot.remotes.find((remote) => remote.name === 'billing')
      expect(billing?.override).toBeUndefined()
      expect(billing?.entryUrl.startsWith(`${e2eStack.cdnUrl}/billing/`)).toBe(true)
    } finally {
      await other.close()
    }

    // The way out is the first thing after the skip link, and works from the keyboard.
    const published: string[] = []
    page.on('request', (request) => {
      if (request.url().startsWith(`${e2eStack.cdnUrl}/billing/`)) published.push(request.url())
    })
    await page.getByRole('link', { name: 'Skip to content' }).focus()
    await page.keyboard.press('Tab')
    const stop = banner.getByRole('button', { name: 'Stop override of billing' })
    await expect(stop).toBeFocused()
    await page.keyboard.press('Enter')

    await expect(
      page.locator('main [data-tessera-remote="billing"]').getByRole('heading', { level: 1 }),
    ).toBeVisible()
    await expect(page.getByRole('region', { name: 'Overrides in this browser' })).toHaveCount(0)
    await expect.poll(() => published.some((url) => url.endsWith('/remoteEntry.js'))).toBe(true)
    await expect.poll(() => scriptSources(policies.at(-1))).not.toContain(dev.url)
    expect(pageErrors).toEqual([])
  } finally {
    await dev.close()
  }
})

test('on a phone the banner fits the screen and its way out is a large button', async ({
  page,
}) => {
  const dev = await startDevServer()
  try {
    await page.setViewportSize({ width: 390, height: 844 })
    const set = await page.request.post('/api/remotes/overrides', {
      headers: { 'x-tessera-csrf': '1', origin: e2eStack.appUrl },
      data: { remote: 'billing', entryUrl: `${dev.url}/assets/remoteEntry.js` },
    })
    expect(set.status(), await set.text()).toBe(200)
    await page.goto('/billing')
    const banner = page.getByRole('region', { name: 'Overrides in this browser' })
    await expect(banner).toContainText(`billing is loaded from ${dev.url} — local build`)
    const stop = banner.getByRole('button', { name: 'Stop override of billing' })
    const box = await stop.boundingBox()
    expect(box?.width).toBeGreaterThan(300)
    expect(box?.height).toBeGreaterThanOrEqual(40)
    expect((box?.x ?? 0) + (box?.width ?? 0)).toBeLessThanOrEqual(390)
    await stop.click()
    await expect(page.getByRole('region', { name: 'Overrides in this browser' })).toHaveCount(0)
  } finally {
    await dev.close()
  }
})

test('a preview link to an origin this server does not allow is refused with a sentence, and nothing changes', async ({
  page,
}) => {
  await page.goto(previewLink('https://preview.example.net/billing/assets/remoteEntry.js', 'PR 9'))
  const prompt = page.getByRole('region', { name: 'Load a preview?' })
  await prompt.getByRole('button', { name: 'Load billing' }).click()
  await expect(prompt.getByRole('alert')).toHaveText(
    'https://preview.example.net is not an origin overrides may load from here (allowed: http://localhost:*, http://127.0.0.1:*, http://[::1]:*). Ask the operator to add it to REMOTE_OVERRIDE_ORIGINS.',
  )
  await prompt.getByRole('button', { name: 'Not now' }).click()
  await expect(prompt).toHaveCount(0)
  expect(page.url()).not.toContain('tessera-override')
  await expect(page.getByRole('region', { name: 'Overrides in this browser' })).toHaveCount(0)
})
