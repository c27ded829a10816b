import { armFault, assistantPage, marker, type OpenAiFault } from '../support/assistant.ts'
import { expect, test } from '../support/fixtures.ts'

interface FaultCase {
  name: string
  fault: OpenAiFault & { count?: number; endpoint?: 'chat.completions' | 'moderations' }
  code: string
  sentence: RegExp
  /** Some words of the answer arrived before the fault: they are kept. */
  keepsPartial?: boolean
}

// Every model failure the stand-in can inject, and the catalogue error the page must show for it.
const cases: FaultCase[] = [
  {
    name: 'the model answers 429',
    fault: { type: 'rate_limit', retryAfterMs: 2000 },
    code: 'model_busy',
    sentence: /The assistant is busy right now\./,
  },
  {
    name: 'the model answers 500',
    fault: { type: 'server_error', status: 500 },
    code: 'upstream_unavailable',
    sentence: /The assistant could not be reached\. Check your connection, then try again\./,
  },
  {
    name: 'the model sends nothing before the first-token timeout',
    fault: { type: 'stall' },
    code: 'upstream_timeout',
    sentence: /The assistant took too long to start answering\. Try again/,
  },
  {
    name: 'the stream is cut mid-answer',
    fault: { type: 'cut', afterTokens: 6 },
    code: 'answer_interrupted',
    sentence: /The answer was cut off before it finished\. What arrived is kept/,
    keepsPartial: true,
  },
  {
    name: 'moderation is down',
    // The BFF retries moderation once: both attempts fail.
    fault: { type: 'server_error', status: 503, endpoint: 'moderations', count: 2 },
    code: 'upstream_unavailable',
    sentence: /The assistant could not be reached\./,
  },
]

for (const { name, fault, code, sentence, keepsPartial } of cases) {
  test(`when ${name}, the page says so with ${code}, loses nothing, and Try again answers`, async ({
    page,
    pageErrors,
  }) => {
    const chat = assistantPage(page)
    await page.goto('/assistant')
    await chat.ask('What is a lighthouse?')
    await chat.settled()
    await expect(chat.answers).toHaveCount(1)
    // Drawn by the Markdown renderer (an answer shows as written until it has loaded): its list.
    await expect(chat.lastAnswer().locator('li').first()).toBeVisible()
    const firstAnswer = await chat.lastAnswer().innerText()

    const word = marker()
    await armFault({ ...fault, match: word })
    await chat.ask(`Why do lighthouses blink? ${word}`)
    await expect(chat.alert).toBeVisible({ timeout: 20_000 })
    await expect(chat.alert).toContainText(sentence)
    await expect(chat.alert).toHaveAttribute('data-code', code)
    await expect(chat.alert).toContainText(/Reference \S+/)
    await expect(chat.send).toBeVisible()

    // Nothing lost: the earlier exchange and the question are still on the page.
    await expect(chat.thread.getByText('What is a lighthouse?', { exact: true })).toBeVisible()
    await expect.poll(() => chat.answers.first().innerText()).toBe(firstAnswer)
    await expect(
      chat.thread.getByText(`Why do lighthouses blink? ${word}`, { exact: true }),
    ).toBeVisible()
    if (keepsPartial) {
      await expect(chat.lastAnswer()).toContainText('(local model)')
      await expect(chat.lastAnswer()).toContainText('Cut off')
    }

    // The fault was armed once: trying again gets a whole answer.
    const tryAgain = chat.alert.getByRole('button', { name: 'Try again' })
    await expect(tryAgain).toBeEnabled({ timeout: 10_000 })
    await tryAgain.click()
    await chat.settled()
    await expect(chat.alert).toHaveCount(0)
    await expect(chat.lastAnswer()).toContainText('Written by the Tessera OpenAI stand-in')

    // And the conversation is whole after a reload.
    await page.reload()
    await expect(chat.thread.getByText('What is a lighthouse?', { exact: true })).toBeVisible()
    await expect(chat.lastAnswer()).toContainText('Written by the Tessera OpenAI stand-in')
    expect(pageErrors).toEqual([])
  })
}
