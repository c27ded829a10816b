import { act, cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react'
import { afterEach, describe, expect, it } from 'vitest'
import { entitlementsOf } from '@tessera/contracts'
import { ada, assistantPlatform, renderWithPlatform } from '../../../testing/render-assistant.tsx'
import { conversation, fakeAssistantBff, message } from '../../../testing/fake-assistant-bff.ts'
import type { FakeAssistantBff } from '../../../testing/fake-assistant-bff.ts'
import AssistantPage from '../../chat/components/assistant-page.tsx'

afterEach(cleanup)

const pro = { ...ada, entitlements: entitlementsOf({ plan: 'pro', status: 'active' }) }
const picker = () => screen.getByRole<HTMLSelectElement>('combobox', { name: 'Model' })
const options = () =>
  within(picker())
    .getAllByRole('option')
    .map((option) => option.textContent)
const composer = () => screen.getByRole('textbox', { name: 'Message to the assistant' })

function renderAt(route: string, bff: FakeAssistantBff, session = ada) {
  const platform = assistantPlatform(bff, route)
  platform.setSession(session)
  return renderWithPlatform(<AssistantPage />, { bff, platform })
}

function withConversation(model: 'gpt-4o' | 'gpt-4o-mini' | null) {
  return fakeAssistantBff({
    conversations: [{ ...conversation('c1', 'Trip planning', 5), model }],
    messages: { c1: [message('user', 'Hello'), message('assistant', 'Hi!', { model: 'gpt-4o' })] },
  })
}

async function send(bff: FakeAssistantBff, text: string) {
  const next = bff.nextStream()
  fireEvent.change(composer(), { target: { value: text } })
  fireEvent.keyDown(composer(), { key: 'Enter' })
  const stream = await next
  await act(async () => {
    stream.start()
    stream.delta('Sure.')
    stream.done()
  })
  return bff.calls
    .filter((call) => call.method === 'POST' && call.path.endsWith('/messages'))
    .at(-1)
}

describe('the model picker', () => {
  it('offers a Free user only the Free model, with a link to the plans that have more', async () => {
    renderAt('/', fakeAssistantBff())
    expect(options()).toEqual(['gpt-4o-mini (default)'])
    expect(picker().value).toBe('gpt-4o-mini')
    expect(screen.getByRole('link', { name: 'More models' }).getAttribute('href')).toBe(
      '/billing/plans',
    )
  })

  it('lets a Pro user pick the smaller model, and sends with it', async () => {
    const bff = withConversation(null)
    renderAt('/conversations/c1', bff, pro)
    await screen.findByText('Hi!')
    expect(options()).toEqual(['gpt-4o (default)', 'gpt-4o-mini'])
    expect(picker().value).toBe('gpt-4o')
    fireEvent.change(picker(), { target: { value: 'gpt-4o-mini' } })
    expect((await send(bff, 'Short answer please'))?.body).toEqual({
      content: 'Short answer please',
      model: 'gpt-4o-mini',
    })
  })

  it('opens a conversation on the model it last used, and a new one on the default', async () => {
    const bff = withConversation('gpt-4o-mini')
    const { platform } = renderAt('/conversations/c1', bff, pro)
    await screen.findByText('Hi!')
    expect(picker().value).toBe('gpt-4o-mini')
    act(() => platform.navigate('/assistant'))
    await waitFor(() => expect(picker().value).toBe('gpt-4o'))
  })

  it('falls back to the default after a downgrade, and says why', async () => {
    const bff = withConversation('gpt-4o')
    renderAt('/conversations/c1', bff)
    await screen.findByText('Hi!')
    expect(picker().value).toBe('gpt-4o-mini')
    expect(picker().getAttribute('aria-describedby')).toBeTruthy()
    expect(
      screen.getByText(/gpt-4o is no longer in your plan, so answers here use gpt-4o-mini/),
    ).toBeTruthy()
    expect((await send(bff, 'Still here?'))?.body).toMatchObject({ model: 'gpt-4o-mini' })
  })

  it('shows a refusal of the model with the BFF’s sentence and the way to the plans', async () => {
    const bff = withConversation(null)
    renderAt('/conversations/c1', bff, pro)
    await screen.findByText('Hi!')
    const sentence =
      'gpt-4.1 is included in the Team plan, and this workspace is on Pro. Upgrade to Team to use it, or pick one of your plan’s models: gpt-4o, gpt-4o-mini.'
    bff.refuseNext('model_not_in_plan', { model: 'gpt-4.1', plan: 'team' }, sentence)
    fireEvent.change(composer(), { target: { value: 'Largest please' } })
    fireEvent.keyDown(composer(), { key: 'Enter' })
    const alert = await screen.findByRole('alert')
    expect(alert.getAttribute('data-code')).toBe('model_not_in_plan')
    expect(within(alert).getByText(sentence)).toBeTruthy()
    expect(within(alert).getByRole('link', { name: 'See plans' }).getAttribute('href')).toBe(
      '/billing/plans',
    )
  })
})
