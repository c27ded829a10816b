import { readFileSync, readdirSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { expect, remotes, test } from '../support/fixtures.ts'

// Guards for the three originjs-on-Vite-8 workarounds (docs/decisions/001). Each test names the
// workaround it protects, so a plugin or Vite upgrade that breaks one says which.
const reactMarker = '__CLIENT_INTERNALS_DO_NOT_USE_OR_WARN_USERS_THEY_CANNOT_UPGRADE='
const reactDomClientMarker = '__reactContainer$'
const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..')

test('workaround 1 (terser): every remote entry replaced its CSS placeholder and loads its CSS', async ({
  page,
  pageErrors,
}) => {
  for (const remote of remotes) {
    const entry = readFileSync(
      path.join(repo, 'remotes', remote.name, 'dist/assets/remoteEntry.js'),
      'utf8',
    )
    // The plugin substitutes this placeholder with the list of CSS files; Oxc's template literals defeat it.
    expect(entry).not.toContain('__v__css__')
  }
  await page.goto('/')
  for (const remote of remotes) {
    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: remote.label })
      .click()
    await expect(
      page
        .locator(`main [data-tessera-remote="${remote.name}"]`)
        .getByRole('heading', { level: 1 }),
    ).toBeVisible()
  }
  const stylesheets = await page.evaluate(() =>
    [...document.querySelectorAll('link[rel="stylesheet"]')].map(
      (l) => (l as HTMLLinkElement).href,
    ),
  )
  for (const remote of remotes)
    expect(stylesheets.some((href) => href.includes(`/${remote.name}/`))).toBe(true)
  expect(pageErrors.filter((m) => m.includes('forEach'))).toEqual([])
})

test('workaround 2 (placeholder remote): the host boots as a federation host and never fetches the placeholder', async ({
  page,
  pageErrors,
}) => {
  const requested: string[] = []
  page.on('request', (r) => requested.push(r.url()))
  await page.goto('/assistant')
  await expect(
    page.locator('main [data-tessera-remote="ai"]').getByRole('heading', { level: 1 }),
  ).toBeVisible()
  expect(pageErrors.filter((m) => m.includes('__rf_placeholder__'))).toEqual([])
  expect(requested.filter((url) => url.includes('tessera-placeholder'))).toEqual([])
})

test('workaround 3 (react-dom/client shared): exactly one React runs the page and no remote bundles its own', async ({
  page,
  pageErrors,
}) => {
  const scripts = new Map<string, string>()
  page.on('response', async (response) => {
    if (response.request().resourceType() === 'script' || response.url().endsWith('.js')) {
      scripts.set(response.url(), await response.text().catch(() => ''))
    }
  })
  await page.goto('/assistant')
  for (const remote of remotes) {
    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: remote.label })
      .click()
    await expect(
      page
        .locator(`main [data-tessera-remote="${remote.name}"]`)
        .getByRole('heading', { level: 1 }),
    ).toBeVisible()
  }
  await page.waitForLoadState('networkidle')
  // React's package defines the internals export once; react-dom's client renderer names its
  // container key `__reactContainer$…`. Minifiers keep both strings.
  const reactCopies = [...scripts.values()].filter((s) => s.includes(reactMarker))
  const reactDomCopies = [...scripts.values()].filter((s) => s.includes(reactDomClientMarker))
  expect(reactCopies).toHaveLength(1)
  expect(reactDomCopies).toHaveLength(1)
  expect(pageErrors.filter((m) => m.includes('#321') || m.includes('Invalid hook call'))).toEqual(
    [],
  )
  for (const remote of remotes) {
    const dist = path.join(repo, 'remotes', remote.name, 'dist/assets')
    for (const file of readdirSync(dist).filter((f) => f.endsWith('.js'))) {
      const code = readFileSync(path.join(dist, file), 'utf8')
      expect(
        code.includes(reactDomClientMarker),
        `${remote.name}/${file} bundles react-dom/client`,
      ).toBe(false)
      expect(code.includes(reactMarker), `${remote.name}/${file} bundles react`).toBe(false)
    }
  }
})
