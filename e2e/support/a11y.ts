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
