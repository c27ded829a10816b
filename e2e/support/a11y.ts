// axe-core in the browser the journey drives: every page and state a journey checks must have no
// violation of WCAG 2.1 A and AA (plus axe's best practices that have a rule in WCAG's spirit).
import AxeBuilder from '@axe-core/playwright'
import { expect, type Page } from '@playwright/test'

/** The rule sets the suite holds every page to. */
export const axeTags = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice']

/** One violation, short enough to read in a failure message. */
export interface AxeFinding {
  rule: string
  impact: string | null
  help: string
  targets: string[]
}

/** What axe finds on the page as it is now. */
export async function axeFindings(page: Page): Promise<AxeFinding[]> {
  const results = await new AxeBuilder({ page })
    .withTags(axeTags)
    // Off by default (axe calls it experimental), but a visible label a voice user cannot say
    // is a real barrier: WCAG 2.5.3, Label in Name.
    .options({ rules: { 'label-content-name-mismatch': { enabled: true } } })
    .analyze()
  return results.violations.map((violation) => ({
    rule: violation.id,
    impact: violation.impact ?? null,
    help: violation.help,
    targets: violation.nodes.map((node) => node.target.join(' ')),
  }))
}

/** Fails the test (at its end: every state is checked) with each violation, naming the state. */
export async function expectAccessible(page: Page, state: string): Promise<void> {
  expect.soft(await axeFindings(page), `axe violations on ${state}`).toEqual([])
}

/** The looks every page is checked in: light and dark, at a desktop's and a phone's width. */
const looks = [
  { width: 1280, height: 800, colorScheme: 'light' },
  { width: 1280, height: 800, colorScheme: 'dark' },
  { width: 390, height: 844, colorScheme: 'light' },
  { width: 390, height: 844, colorScheme: 'dark' },
] as const

/** Checks the page in every look, `ready` (the state shown) holding before each check. */
export async function expectAccessibleInEveryLook(
  page: Page,
  state: string,
  ready: () => Promise<void>,
): Promise<void> {
  for (const look of looks) {
    await page.setViewportSize({ width: look.width, height: look.height })
    await page.emulateMedia({ colorScheme: look.colorScheme })
    // On the app's pages the theme store hears the change a frame later and only then writes the
    // new tokens (and starts the colour transitions): a check before that would measure the old
    // theme's colours. Pages the BFF renders alone (a shared conversation) theme by CSS only.
    const html = page.locator('html')
    if ((await html.getAttribute('data-theme')) !== null)
      await expect(html).toHaveAttribute('data-theme', look.colorScheme)
    await ready()
    // Colours ease from one theme to the other: check what stays, not a frame in between.
    await page.evaluate(() =>
      // A transition cut short by the next one rejects its `finished`: that one is over too.
      Promise.allSettled(document.getAnimations().map((animation) => animation.finished)),
    )
    await expectAccessible(page, `${state}, ${look.colorScheme}, ${look.width} px`)
  }
}
