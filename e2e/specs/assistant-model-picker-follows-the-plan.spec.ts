import { assistantPage, conversationIdIn, marker, modelRequests } from '../support/assistant.ts'
import { expect, test } from '../support/fixtures.ts'
import { e2eStack } from '../support/stack.ts'
import { subscribeThroughApi, withStripeClock } from '../support/stripe.ts'

const stateChanging = { 'x-tessera-csrf': '1', origin: e2eStack.appUrl }

test('a free user sees only the free model and is refused a team model; after upgrading to Pro they pick the larger model, which writes the answer and is remembered after a reload', async ({
  page,
  pageErrors,
}) => {
  test.setTimeout(240_000)
  const chat = assistantPage(page)
  const picker = page.getByRole('combobox', { name: 'Model' })
  const word = marker()

  // Free: one model to use, and the way to the plans that have more.
  await page.goto('/assistant')
  await expect(picker).toHaveValue('gpt-4o-mini')
  await expect(picker.getByRole('option')).toHaveText(['gpt-4o-mini (default)'])
  await expect(page.getByRole('link', { name: 'More models' })).toHaveAttribute(
    'href',
    '/billing/plans',
  )
  await chat.ask(`Hello from ${word}`)
  await chat.settled()
  await expect(chat.lastAnswer()).toContainText('gpt-4o-mini')
  const id = conversationIdIn(page)

  // A crafted request for the Team model is refused with the plan that has it; nothing is held.
  const forced = await page.request.post(`/api/assistant/conversations/${id}/messages`, {
    headers: stateChanging,
    data: { content: `Forced ${word}`, model: 'gpt-4.1' },
  })
  expect(forced.status()).toBe(403)
  const refusal = ((await forced.json()) as { error: { code: string; message: string } }).error
  expect(refusal.code).toBe('model_not_in_plan')
  expect(refusal.message).toContain('gpt-4.1 is included in the Team plan')
  const unknown = await page.request.post(`/api/assistant/conversations/${id}/messages`, {
    headers: stateChanging,
    data: { content: `Unknown ${word}`, model: 'gpt-9' },
  })
  expect(unknown.status()).toBe(422)
  expect(await modelRequests(`Forced ${word}`)).toEqual([])

  // The same refusal through the page (its request rewritten on the way): the sentence and the plans.
  await page.route(`**/api/assistant/conversations/${id}/messages`, async (route) => {
    if (route.request().method() !== 'POST') return route.fallback()
    const body = route.request().postDataJSON() as Record<string, unknown>
    await route.fallback({ postData: JSON.stringify({ ...body, model: 'gpt-4.1' }) })
  })
  await chat.ask(`Rewritten ${word}`)
  await expect(chat.alert).toHaveAttribute('data-code', 'model_not_in_plan')
  await expect(chat.alert).toContainText('Upgrade to Team to use it')
  await expect(chat.alert.getByRole('link', { name: 'See plans' })).toHaveAttribute(
    'href',
    '/billing/plans',
  )
  await page.unroute(`**/api/assistant/conversations/${id}/messages`)

  // Pro: two models; this conversation opens on the one it last used.
  await withStripeClock(() => subscribeThroughApi(page, 'pro'))
  await page.reload()
  await expect(picker.getByRole('option')).toHaveText(['gpt-4o (default)', 'gpt-4o-mini'])
  await expect(picker).toHaveValue('gpt-4o-mini')
  await picker.focus()
  await picker.selectOption('gpt-4o')
  await chat.ask(`Now the larger one, ${word}`)
  await chat.settled()
  await expect(chat.lastAnswer()).toContainText('gpt-4o')
  await expect(chat.lastAnswer()).not.toContainText('gpt-4o-mini')
  const [asked] = await modelRequests(`Now the larger one, ${word}`)
  expect(asked?.model).toBe('gpt-4o')

  await page.reload()
  await expect(picker).toHaveValue('gpt-4o')
  expect(pageErrors).toEqual([])
})
