import { act, cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react'
import { afterEach, describe, expect, it, vi } from 'vitest'
import {
  conversation,
  fakeAssistantBff,
  message,
  type FakeAssistantBff,
} from '../../../testing/fake-assistant-bff.ts'
import { entitlementsOf } from '@tessera/contracts'
import { ada, assistantPlatform, renderWithPlatform } from '../../../testing/render-assistant.tsx'
import AssistantPage from './assistant-page.tsx'

afterEach(cleanup)

const composer = () => screen.getByRole('textbox', { name: 'Message to the assistant' })
const thread = () => screen.getByRole('region', { name: 'Messages' })
const side = () => screen.getByRole('complementary', { name: 'Conversations' })
const status = () =>
  screen
    .getAllByRole('status')
    .map((el) => el.textContent)
    .join(' | ')

function typeAndPress(text: string, key: { key: string; shiftKey?: boolean } = { key: 'Enter' }) {
  fireEvent.change(composer(), { target: { value: text } })
  fireEvent.keyDown(composer(), key)
}

function renderAt(route: string, bff: FakeAssistantBff) {
  return renderWithPlatform(<AssistantPage />, { bff, platform: assistantPlatform(bff, route) })
}

function withOneConversation(extra: Parameters<typeof fakeAssistantBff>[0] = {}) {
  return fakeAssistantBff({
    conversations: [conversation('c1', 'Trip planning', 5)],
    messages: { c1: [message('user', 'Hello'), message('assistant', 'Hi! How can I help?')] },
    ...extra,
  })
}

describe('the assistant page', () => {
  it('lists conversations newest first and loads older ones with the cursor', async () => {
    const bff = fakeAssistantBff({
      pageSize: 2,
      conversations: [
        conversation('c3', 'Newest', 1),
        conversation('c2', 'Middle', 10),
        conversation('c1', 'Oldest', 100),
      ],
    })
    renderAt('/', bff)
    const list = await screen.findByRole('navigation', { name: 'Your conversations' })
    await waitFor(() =>
      expect(
        within(list)
          .getAllByRole('link')
          .map((a) => a.textContent),
      ).toEqual([expect.stringContaining('Newest'), expect.stringContaining('Middle')]),
    )
    expect(within(list).getAllByRole('link')[0]?.getAttribute('href')).toBe(
      '/assistant/conversations/c3',
    )
    fireEvent.click(within(list).getByRole('button', { name: 'Load older conversations' }))
    await waitFor(() => expect(within(list).getAllByRole('link')).toHaveLength(3))
    expect(within(list).queryByRole('button', { name: 'Load older conversations' })).toBeNull()
    expect(bff.callsTo('GET', '/api/assistant/conversations').at(-1)?.path).toContain('cursor=2')
  })

  it('sends with Enter, shows the typing state, streams the answer and announces it when done', async () => {
    const bff = withOneConversation()
    renderAt('/conversations/c1', bff)
    await screen.findByText('Hi! How can I help?')
    expect(screen.getByRole('heading', { level: 1 }).textContent).toBe('Trip planning')

    const next = bff.nextStream()
    typeAndPress('Plan a day in Paris')
    const stream = await next
    expect(stream.content).toBe('Plan a day in Paris')
    expect(composer()).toHaveProperty('value', '')
    expect(within(thread()).getByText('Plan a day in Paris')).toBeTruthy()
    expect(within(thread()).getByText('Thinking…')).toBeTruthy()
    expect(screen.getByRole('button', { name: 'Stop' })).toBeTruthy()
    expect(status()).toContain('The assistant is answering')

    await act(async () => {
      stream.start()
      stream.delta('**Morning**: the ')
      stream.delta('Louvre.')
    })
    await waitFor(() => expect(within(thread()).getByText('Morning').tagName).toBe('STRONG'))
    expect(within(thread()).queryByText('Thinking…')).toBeNull()
    // Nothing is read out token by token: the live region still says the answer is coming.
    expect(status()).not.toContain('Louvre')

    await act(async () => stream.done())
    await waitFor(() => expect(screen.getByRole('button', { name: 'Send' })).toBeTruthy())
    expect(status()).toContain('The assistant answered: **Morning**: the Louvre.')
    expect(within(thread()).getByText('30 tokens')).toBeTruthy()
  })

  it('adds a new line with Shift+Enter and sends nothing', async () => {
    const bff = withOneConversation()
    renderAt('/conversations/c1', bff)
    await screen.findByText('Hi! How can I help?')
    typeAndPress('first line', { key: 'Enter', shiftKey: true })
    expect(bff.callsTo('POST', '/api/assistant/conversations/c1/messages')).toEqual([])
  })

  it('stops an answer: the fetch is aborted and the partial answer stays, marked Stopped', async () => {
    const bff = withOneConversation()
    renderAt('/conversations/c1', bff)
    await screen.findByText('Hi! How can I help?')
    const next = bff.nextStream()
    typeAndPress('Tell me a long story')
    const stream = await next
    await act(async () => {
      stream.start()
      stream.delta('Once upon a time')
    })
    await waitFor(() => expect(within(thread()).getByText('Once upon a time')).toBeTruthy())
    fireEvent.click(screen.getByRole('button', { name: 'Stop' }))
    await waitFor(() => expect(within(thread()).getByText('Stopped')).toBeTruthy())
    expect(stream.aborted()).toBe(true)
    expect(within(thread()).getByText('Once upon a time')).toBeTruthy()
    expect(screen.getByRole('button', { name: 'Send' })).toBeTruthy()
    expect(document.activeElement).toBe(composer())
    expect(status()).toContain('Stopped. The answer so far is kept.')
  })

  it('stops an answer with Escape in the composer', async () => {
    const bff = withOneConversation()
    renderAt('/conversations/c1', bff)
    await screen.findByText('Hi! How can I help?')
    const next = bff.nextStream()
    typeAndPress('Count to a thousand')
    const stream = await next
    await act(async () => {
      stream.start()
      stream.delta('One, two')
    })
    fireEvent.keyDown(composer(), { key: 'Escape' })
    await waitFor(() => expect(stream.aborted()).toBe(true))
  })

  it('shows a stream error as a sentence with Try again, keeps the partial, and the retry works', async () => {
    const bff = withOneConversation()
    renderAt('/conversations/c1', bff)
    await screen.findByText('Hi! How can I help?')
    const first = bff.nextStream()
    typeAndPress('Explain tides')
    const stream = await first
    await act(async () => {
      stream.start()
      stream.delta('The moon pulls')
      stream.fail('answer_interrupted')
    })
    const alert = await screen.findByRole('alert')
    expect(alert.textContent).toContain('The answer was cut off before it finished')
    expect(alert.getAttribute('data-code')).toBe('answer_interrupted')
    expect(alert.textContent).toContain('Reference req-stream')
    expect(within(thread()).getByText('The moon pulls')).toBeTruthy()
    expect(within(thread()).getByText('Cut off')).toBeTruthy()

    const second = bff.nextStream()
    fireEvent.click(within(alert).getByRole('button', { name: 'Try again' }))
    const retry = await second
    expect(retry.content).toBe('Explain tides')
    await act(async () => {
      retry.start()
      retry.delta('Tides follow the moon.')
      retry.done()
    })
    await waitFor(() => expect(screen.queryByRole('alert')).toBeNull())
    expect(within(thread()).getByText('Tides follow the moon.')).toBeTruthy()
  })

  it('treats a stream that ends without done or error as a dropped connection', async () => {
    const bff = withOneConversation()
    renderAt('/conversations/c1', bff)
    await screen.findByText('Hi! How can I help?')
    const next = bff.nextStream()
    typeAndPress('Hello again')
    const stream = await next
    await act(async () => {
      stream.start()
      stream.delta('Half an ans')
      stream.cut()
    })
    const alert = await screen.findByRole('alert')
    expect(alert.textContent).toContain('cut off before it finished')
    expect(within(alert).getByRole('button', { name: 'Try again' })).toBeTruthy()
    expect(within(thread()).getByText('Half an ans')).toBeTruthy()
  })

  it('waits out a busy model before Try again can be pressed', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true })
    try {
      const bff = withOneConversation()
      renderAt('/conversations/c1', bff)
      await screen.findByText('Hi! How can I help?')
      bff.refuseNext('rate_limited', { retryAfterSeconds: 3 })
      typeAndPress('Quick question')
      const alert = await screen.findByRole('alert')
      expect(alert.textContent).toContain('Try again in 3 seconds.')
      expect(within(alert).getByRole('button', { name: 'Try again (3 s)' })).toHaveProperty(
        'disabled',
        true,
      )
      expect(within(thread()).getByText('Not sent')).toBeTruthy()
      await act(async () => vi.advanceTimersByTimeAsync(3_500))
      expect(within(alert).getByRole('button', { name: 'Try again' })).toHaveProperty(
        'disabled',
        false,
      )
    } finally {
      vi.useRealTimers()
    }
  })

  it('gives a flagged message back to the composer for editing', async () => {
    const bff = withOneConversation()
    renderAt('/conversations/c1', bff)
    await screen.findByText('Hi! How can I help?')
    bff.refuseNext('content_flagged')
    typeAndPress('something the filter flags')
    const alert = await screen.findByRole('alert')
    expect(alert.textContent).toContain('Rephrase it and send it again')
    fireEvent.click(within(alert).getByRole('button', { name: 'Edit the message' }))
    expect(composer()).toHaveProperty('value', 'something the filter flags')
    expect(screen.queryByRole('alert')).toBeNull()
    expect(within(thread()).queryByText('Not sent')).toBeNull()
  })

  it('links to the plans when the month’s tokens run out mid-send', async () => {
    const bff = withOneConversation({ usage: { used: 49_000 } })
    const { platform } = renderAt('/conversations/c1', bff)
    await screen.findByText('Hi! How can I help?')
    await within(side()).findByText('49,000 of 50,000 tokens this month')
    bff.refuseNext('quota_exceeded')
    typeAndPress('One more question')
    const alert = await screen.findByRole('alert')
    expect(alert.textContent?.replace(/\u00a0/g, ' ')).toContain(
      'You have used this month’s 50,000 tokens. Upgrade your plan to keep chatting, or wait until December 1.',
    )
    const plans = within(alert).getByRole('link', { name: 'See plans' })
    expect(plans.getAttribute('href')).toBe('/billing/plans')
    fireEvent.click(plans)
    expect(platform.navigations.at(-1)).toEqual({ to: '/billing/plans', replace: false })
  })

  it('says when a message is too big for the tokens left, offering a new conversation', async () => {
    const bff = withOneConversation()
    renderAt('/conversations/c1', bff)
    await within(side()).findByText('12,400 of 50,000 tokens this month')
    bff.refuseNext('quota_exceeded', { ...bff.usage, requested: 40_000 })
    typeAndPress('A very long question')
    const alert = await screen.findByRole('alert')
    const sentence =
      'Only 37,600 of this month’s tokens are left: not enough for this message and the conversation before it.'
    expect(alert.textContent?.replace(/\u00a0/g, ' ')).toContain(sentence)
    expect(within(alert).getByRole('link', { name: 'See plans' })).toBeTruthy()
    expect(within(alert).getByRole('button', { name: 'Start a new conversation' })).toBeTruthy()
    // Read out as the card says it, not as "all the tokens are used".
    const announcement = screen
      .getAllByRole('status')
      .find((status) => status.classList.contains('visually-hidden'))
    expect(announcement?.textContent?.replace(/\u00a0/g, ' ')).toContain(sentence)
    // The request id is small print under the sentence, with a way to copy it.
    expect(alert.textContent).not.toMatch(/Code|quota_exceeded/)
    expect(alert.querySelector('.failure__reference')?.textContent).toMatch(
      /^Reference req-refused/,
    )
    expect(within(alert).getByRole('button', { name: 'Copy reference' })).toBeTruthy()
  })

  it('shows the usage meter, follows live usage events, and blocks sending at the limit', async () => {
    const bff = withOneConversation()
    const { platform } = renderAt('/conversations/c1', bff)
    await within(side()).findByText('12,400 of 50,000 tokens this month')
    const meter = screen.getByRole('meter', { name: 'Tokens' })
    expect(meter.getAttribute('aria-valuenow')).toBe('12400')
    expect(meter.getAttribute('aria-valuetext')?.replace(/\u00a0/g, ' ')).toBe(
      '12,400 of 50,000 tokens this month (25 %)',
    )

    bff.usage.used = 50_000
    act(() => platform.emit({ type: 'assistant.usage', data: { ...bff.usage } }))
    await within(side()).findByText('50,000 of 50,000 tokens this month')
    expect(screen.getByText(/You have used all 50,000 tokens of your plan this month/)).toBeTruthy()
    fireEvent.change(composer(), { target: { value: 'Still there?' } })
    expect(screen.getByRole('button', { name: 'Send' })).toHaveProperty('disabled', true)
    const links = screen.getAllByRole('link', { name: /See plans|Upgrade your plan/ })
    expect(links.every((link) => link.getAttribute('href') === '/billing/plans')).toBe(true)

    // An upgrade raises the limit: the page reads the usage again and sending works.
    bff.usage.limit = 1_000_000
    act(() =>
      platform.setSession({
        ...ada,
        entitlements: entitlementsOf({ plan: 'pro', status: 'active' }),
      }),
    )
    await within(side()).findByText('50,000 of 1,000,000 tokens this month')
    expect(screen.getByRole('button', { name: 'Send' })).toHaveProperty('disabled', false)
  })

  it('starts a new conversation with the first message and moves to its address', async () => {
    const bff = fakeAssistantBff()
    const { platform } = renderAt('/', bff)
    expect(screen.getByRole('heading', { level: 1 }).textContent).toBe('New conversation')
    await screen.findByText('No conversations yet. Your first message starts one.')
    composer().focus()
    const next = bff.nextStream()
    typeAndPress('Name three rivers')
    // At once, before the conversation exists on the server: the message, a thinking answer, Stop.
    expect(within(thread()).getByText('Name three rivers')).toBeTruthy()
    expect(within(thread()).getByText('Thinking…')).toBeTruthy()
    expect(screen.getByRole('button', { name: 'Stop' })).toBeTruthy()
    const stream = await next
    expect(bff.callsTo('POST', '/api/assistant/conversations')).toHaveLength(1)
    expect(platform.navigations.at(-1)?.to).toBe(
      `/assistant/conversations/${stream.conversationId}`,
    )
    await act(async () => {
      stream.start()
      stream.delta('Nile, Amazon, Yangtze.')
      stream.done()
    })
    await waitFor(() =>
      expect(screen.getByRole('heading', { level: 1 }).textContent).toBe('Name three rivers'),
    )
    const list = screen.getByRole('navigation', { name: 'Your conversations' })
    expect(within(list).getByRole('link', { name: /Name three rivers/ })).toBeTruthy()
    expect(document.activeElement).toBe(composer())
  })

  it('keeps a refused first message on the new page, leaving no empty conversation behind', async () => {
    const bff = fakeAssistantBff()
    const { platform } = renderAt('/', bff)
    await screen.findByText('No conversations yet. Your first message starts one.')
    bff.refuseNext('content_flagged')
    typeAndPress('something the filter flags')
    await waitFor(() => expect(platform.navigations.at(-1)?.to).toBe('/assistant'))
    const alert = await screen.findByRole('alert')
    expect(alert.textContent).toContain('Rephrase it and send it again')
    expect(screen.getByRole('heading', { level: 1 }).textContent).toBe('New conversation')
    expect(within(thread()).getByText('Not sent')).toBeTruthy()
    expect(bff.conversations).toEqual([])
    await screen.findByText('No conversations yet. Your first message starts one.')
    // Back on the new page, the composer has focus again.
    await waitFor(() => expect(document.activeElement).toBe(composer()))

    fireEvent.click(
      within(screen.getByRole('alert')).getByRole('button', { name: 'Edit the message' }),
    )
    expect(composer()).toHaveProperty('value', 'something the filter flags')
    expect(screen.queryByRole('alert')).toBeNull()
  })

  it('renames a conversation inline: Enter saves, Escape cancels and returns focus', async () => {
    const bff = withOneConversation()
    renderAt('/conversations/c1', bff)
    await screen.findByText('Hi! How can I help?')
    fireEvent.click(screen.getByRole('button', { name: 'Rename' }))
    const input = screen.getByRole('textbox', { name: 'Conversation title' })
    fireEvent.keyDown(input, { key: 'Escape' })
    await waitFor(() =>
      expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Rename' })),
    )

    fireEvent.click(screen.getByRole('button', { name: 'Rename' }))
    fireEvent.change(screen.getByRole('textbox', { name: 'Conversation title' }), {
      target: { value: 'Paris in a day' },
    })
    fireEvent.submit(screen.getByRole('textbox', { name: 'Conversation title' }))
    await waitFor(() =>
      expect(screen.getByRole('heading', { level: 1 }).textContent).toBe('Paris in a day'),
    )
    expect(bff.callsTo('PATCH', '/api/assistant/conversations/c1')[0]?.body).toEqual({
      title: 'Paris in a day',
    })
    const list = screen.getByRole('navigation', { name: 'Your conversations' })
    expect(within(list).getByRole('link', { name: /Paris in a day/ })).toBeTruthy()
  })

  it('asks before deleting a conversation, then deletes it and goes to a new one', async () => {
    const bff = withOneConversation()
    const { platform } = renderAt('/conversations/c1', bff)
    await screen.findByText('Hi! How can I help?')
    fireEvent.click(screen.getByRole('button', { name: 'Delete' }))
    const confirm = screen.getByRole('group', { name: 'Delete this conversation?' })
    const yes = within(confirm).getByRole('button', { name: 'Yes, delete' })
    await waitFor(() => expect(document.activeElement).toBe(yes))
    fireEvent.keyDown(yes, { key: 'Escape' })
    await waitFor(() =>
      expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Delete' })),
    )
    expect(bff.callsTo('DELETE', '/api/assistant/conversations/c1')).toEqual([])

    fireEvent.click(screen.getByRole('button', { name: 'Delete' }))
    fireEvent.click(screen.getByRole('button', { name: 'Yes, delete' }))
    await waitFor(() =>
      expect(screen.getByRole('heading', { level: 1 }).textContent).toBe('New conversation'),
    )
    expect(bff.callsTo('DELETE', '/api/assistant/conversations/c1')).toHaveLength(1)
    expect(platform.notices.at(-1)).toEqual({
      kind: 'success',
      message: 'The conversation was deleted.',
    })
    expect(screen.queryByRole('link', { name: /Trip planning/ })).toBeNull()
  })

  it('counts characters near the limit and refuses a message over it', async () => {
    const bff = withOneConversation()
    renderAt('/conversations/c1', bff)
    await screen.findByText('Hi! How can I help?')
    fireEvent.change(composer(), { target: { value: 'a'.repeat(100) } })
    expect(screen.queryByText(/of 16,000 characters/)).toBeNull()
    fireEvent.change(composer(), { target: { value: 'a'.repeat(14_000) } })
    expect(screen.getByText('14,000 of 16,000 characters')).toBeTruthy()
    fireEvent.change(composer(), { target: { value: 'a'.repeat(16_005) } })
    expect(
      screen.getByText('5 characters over the 16,000 limit: shorten the message to send it.'),
    ).toBeTruthy()
    expect(composer().getAttribute('aria-invalid')).toBe('true')
    expect(screen.getByRole('button', { name: 'Send' })).toHaveProperty('disabled', true)
    fireEvent.keyDown(composer(), { key: 'Enter' })
    expect(bff.callsTo('POST', '/api/assistant/conversations/c1/messages')).toEqual([])
  })

  it('renders an answer holding HTML and a javascript: link inert', async () => {
    const bff = withOneConversation()
    renderAt('/conversations/c1', bff)
    await screen.findByText('Hi! How can I help?')
    const next = bff.nextStream()
    typeAndPress('/echo <img src=x onerror=alert(1)> [click](javascript:alert(1))')
    const stream = await next
    await act(async () => {
      stream.start()
      stream.delta('<img src=x onerror=alert(1)> [click](javascript:alert(1))')
      stream.done()
    })
    await waitFor(() => expect(screen.getByRole('button', { name: 'Send' })).toBeTruthy())
    const answers = within(thread()).getAllByRole('article', { name: 'The assistant answered' })
    const last = answers.at(-1)
    if (last === undefined) throw new Error('no answer')
    expect(last.querySelector('img')).toBeNull()
    expect(last.querySelector('a')).toBeNull()
    expect(last.textContent).toContain('<img src=x onerror=alert(1)>')
    expect(last.innerHTML).not.toContain('javascript:')
  })

  it('says a conversation that does not exist is gone, with a way to start a new one', async () => {
    const bff = withOneConversation()
    const { platform } = renderAt('/conversations/nope', bff)
    const alert = await screen.findByRole('alert')
    expect(alert.textContent).toContain('This conversation no longer exists')
    fireEvent.click(within(alert).getByRole('button', { name: 'Start a new conversation' }))
    expect(platform.navigations.at(-1)?.to).toBe('/assistant')
  })
})
