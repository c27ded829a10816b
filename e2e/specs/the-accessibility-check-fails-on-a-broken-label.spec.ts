import { test, expect } from '@playwright/test'
import { axeFindings } from '../support/a11y.ts'

// The suite's axe check is only worth its passes if it fails where it should: a fixture with the
// faults the product once had (an input without a label, a button whose name leaves out what it
// shows) must be reported, and the same fixture fixed must not.
const broken = `<!doctype html><html lang="en"><head><title>Fixture</title></head><body>
  <main><h1>Fixture</h1>
    <input type="email">
    <button type="button" aria-label="Account menu">Ada Lovelace</button>
  </main></body></html>`
const fixed = `<!doctype html><html lang="en"><head><title>Fixture</title></head><body>
  <main><h1>Fixture</h1>
    <label>Email address <input type="email"></label>
    <button type="button" aria-label="Ada Lovelace, account menu">Ada Lovelace</button>
  </main></body></html>`

test('the accessibility check reports a missing label and a name that leaves out its text', async ({
  page,
}) => {
  await page.setContent(broken)
  const rules = (await axeFindings(page)).map((finding) => finding.rule)
  expect(rules).toContain('label')
  expect(rules).toContain('label-content-name-mismatch')

  await page.setContent(fixed)
  expect(await axeFindings(page)).toEqual([])
})
