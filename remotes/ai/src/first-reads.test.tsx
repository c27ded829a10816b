import { cleanup, screen } from '@testing-library/react'
import { afterEach, describe, expect, it } from 'vitest'
import AssistantPage from './features/chat/components/assistant-page.tsx'
import { firstReads } from './first-reads.ts'
import { conversation, fakeAssistantBff } from './testing/fake-assistant-bff.ts'
import { renderWithPlatform } from './testing/render-assistant.tsx'

afterEach(cleanup)

describe('the reads the descriptor hints (firstReads)', () => {
  it('are the reads the page makes as soon as it shows, as it asks for them', async () => {
    const bff = fakeAssistantBff({ conversations: [conversation('c1', 'Trip planning', 5)] })
    renderWithPlatform(<AssistantPage />, { bff })
    await screen.findByText('Trip planning')
    const reads = bff.calls.filter((call) => call.method === 'GET').map((call) => call.path)
    expect([...new Set(reads)].sort()).toEqual([...firstReads].sort())
  })
})
