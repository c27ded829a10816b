import type { Page } from '@playwright/test'
import { anonymousTest, expect, test } from '../support/fixtures.ts'

// WCAG 2.4.7: whatever the keyboard reaches shows that it has the focus. Each page is walked
// with Tab; every element that takes the focus must draw an outline or a ring (box-shadow), or
// (a field inside a box) make its box change.
interface Stop {
  what: string
  visible: boolean
}

async function walk(page: Page, stops: number): Promise<Stop[]> {
  const seen: Stop[] = []
  for (let i = 0; i < stops; i++) {
    await page.keyboard.press('Tab')
    const stop = await page.evaluate(() => {
      const element = document.activeElement
      if (element === null || element === document.body) return null
      const style = getComputedStyle(element)
      const outline = style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) > 0
      let visible = outline || style.boxShadow !== 'none'
      if (!visible && element instanceof HTMLElement) {
        // A field inside a box the box rings (`:focus-within`): the ring must come and go with
        // the focus, so a box that always has a shadow does not count.
        const boxes = [element.parentElement, element.parentElement?.parentElement].filter(
          (box): box is HTMLElement => box instanceof HTMLElement,
        )
        const looks = () =>
          boxes.map((box) => {
            const boxStyle = getComputedStyle(box)
            return `${boxStyle.boxShadow}|${boxStyle.outlineStyle}|${boxStyle.borderColor}`
          })
        const focused = looks()
        element.blur()
        const blurred = looks()
        element.focus()
        visible = focused.some((look, index) => look !== blurred[index])
      }
      const name =
        element.getAttribute('aria-label') ??
        element.getAttribute('placeholder') ??
        (element.textContent ?? '').trim().slice(0, 40)
      return { what: `${element.tagName.toLowerCase()} "${name}"`, visible }
    })
    if (stop === null) break
    if (seen.some((earlier) => earlier.what === stop.what)) break
    seen.push(stop)
  }
  return seen
}

async function expectFocusShown(page: Page, path: string): Promise<void> {
  await page.goto(path)
  await expect(page.locator('main').getByRole('heading', { level: 1 })).toBeVisible()
  const stops = await walk(page, 40)
  expect(stops.length, `${path}: the keyboard reaches something`).toBeGreaterThan(3)
  expect(
    stops.filter((stop) => !stop.visible).map((stop) => stop.what),
    `${path}: focused without a visible outline or ring`,
  ).toEqual([])
}

anonymousTest('signed out, every control a keyboard reaches shows its focus', async ({ page }) => {
  for (const path of ['/', '/auth/sign-in', '/auth/sign-up', '/billing/plans']) {
    await expectFocusShown(page, path)
  }
})

test('signed in, every control a keyboard reaches shows its focus', async ({ page }) => {
  for (const path of ['/assistant', '/billing', '/auth/profile', '/auth/sessions']) {
    await expectFocusShown(page, path)
  }
})
