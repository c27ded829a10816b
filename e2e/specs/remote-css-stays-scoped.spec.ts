import type { Page } from '@playwright/test'
import { expect, remoteFiles, remotes, test } from '../support/fixtures.ts'

/** Computed styles of probe elements the test places outside every remote. */
async function probeStyles(page: Page): Promise<Record<string, string>> {
  return page.evaluate(() => {
    const host = document.createElement('div')
    host.id = 'css-probe'
    host.innerHTML =
      '<h1>probe</h1><p>probe</p><button>probe</button><a href="#">probe</a><ul><li>probe</li></ul>'
    document.body.appendChild(host)
    const out: Record<string, string> = {}
    for (const el of host.querySelectorAll('*')) {
      const s = getComputedStyle(el)
      out[el.tagName] = [
        s.color,
        s.backgroundColor,
        s.fontSize,
        s.fontWeight,
        s.margin,
        s.padding,
        s.border,
        s.textTransform,
        s.letterSpacing,
      ].join('|')
    }
    host.remove()
    return out
  })
}

test('each remote’s CSS styles only that remote, never the host or another remote', async ({
  page,
  browser,
}) => {
  // Baseline: the same page with every remote refused, so no remote CSS is present.
  const bare = await browser.newPage()
  for (const remote of remotes)
    await bare.route(remoteFiles(remote.name), (route) => route.abort('connectionrefused'))
  await bare.goto('/assistant')
  await expect(bare.getByRole('navigation', { name: 'Main' })).toBeVisible()
  const baseline = await probeStyles(bare)
  const baselineBrand = await bare
    .getByRole('link', { name: 'Tessera' })
    .evaluate((el) => getComputedStyle(el).cssText || getComputedStyle(el).color)
  await bare.close()

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
  // Every remote's stylesheet is now in the document.
  expect(await probeStyles(page)).toEqual(baseline)
  expect(
    await page
      .getByRole('link', { name: 'Tessera' })
      .evaluate((el) => getComputedStyle(el).cssText || getComputedStyle(el).color),
  ).toEqual(baselineBrand)

  // And inside a remote its own rules do apply: its h1 differs from the unstyled probe h1.
  const remoteH1 = await page
    .locator('main [data-tessera-remote="auth"] h1')
    .first()
    .evaluate((el) => {
      const s = getComputedStyle(el)
      return [
        s.color,
        s.backgroundColor,
        s.fontSize,
        s.fontWeight,
        s.margin,
        s.padding,
        s.border,
        s.textTransform,
        s.letterSpacing,
      ].join('|')
    })
  expect(remoteH1).not.toEqual(baseline.H1)
})
