import { act, cleanup, renderHook, waitFor } from '@testing-library/react'
import type { ReactNode } from 'react'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { PlatformProvider } from '@tessera/plugin-react/platform'
import { fakeAssistantBff } from '../../testing/fake-assistant-bff.ts'
import { assistantPlatform } from '../../testing/render-assistant.tsx'
import { usageLevel, useUsage } from './use-usage.ts'

afterEach(cleanup)

const month = {
  reserved: 0,
  limit: 50_000,
  periodStart: '2026-11-01T00:00:00.000Z',
  periodEnd: '2026-12-01T00:00:00.000Z',
}

function renderUsage(bff = fakeAssistantBff()) {
  const platform = assistantPlatform(bff)
  const wrapper = ({ children }: { children: ReactNode }) => (
    <PlatformProvider platform={platform}>{children}</PlatformProvider>
  )
  return { platform, bff, ...renderHook(() => useUsage(), { wrapper }) }
}

describe('useUsage', () => {
  it('lets a live event that arrives during a read win over that read’s older answer', async () => {
    const bff = fakeAssistantBff()
    let release: () => void = () => undefined
    let staleAnswerRead = false
    const slowUsage = vi.fn(async (path: string, init?: RequestInit) => {
      if (!path.endsWith('/usage')) return bff.fetch(path, init)
      await new Promise<void>((done) => (release = done))
      const response = await bff.fetch(path, init)
      const json = response.json.bind(response)
      return Object.assign(response, {
        json: async () => {
          const body: unknown = await json()
          staleAnswerRead = true
          return body
        },
      })
    })
    const platform = assistantPlatform({ ...bff, fetch: slowUsage })
    const wrapper = ({ children }: { children: ReactNode }) => (
      <PlatformProvider platform={platform}>{children}</PlatformProvider>
    )
    const { result } = renderHook(() => useUsage(), { wrapper })
    await waitFor(() => expect(slowUsage).toHaveBeenCalled())
    act(() => platform.emit({ type: 'assistant.usage', data: { ...month, used: 20_000 } }))
    act(() => release())
    await waitFor(() => expect(staleAnswerRead).toBe(true))
    // Let the read's own continuation run: it must not overwrite the newer event.
    await act(async () => undefined)
    expect(result.current.state).toMatchObject({ status: 'ready', usage: { used: 20_000 } })
  })

  it('ignores a usage event without usage in it', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined)
    const { result, platform } = renderUsage()
    await waitFor(() => expect(result.current.state).toMatchObject({ usage: { used: 12_400 } }))
    act(() => platform.emit({ type: 'assistant.usage', data: { used: 'lots' } }))
    expect(result.current.state).toMatchObject({ usage: { used: 12_400 } })
    expect(warn).toHaveBeenCalledOnce()
    warn.mockRestore()
  })

  it('reads the month again when the live stream comes back from a reconnect', async () => {
    const { result, platform, bff } = renderUsage()
    await waitFor(() => expect(result.current.state).toMatchObject({ usage: { used: 12_400 } }))
    bff.usage.used = 30_000
    act(() => platform.setEventStatus('reconnecting'))
    act(() => platform.setEventStatus('open'))
    await waitFor(() => expect(result.current.state).toMatchObject({ usage: { used: 30_000 } }))
  })
})

describe('usageLevel', () => {
  it('turns high from 80 % and reached at the limit', () => {
    expect(usageLevel({ ...month, used: 10_000 })).toEqual({ ratio: 0.2, level: 'ok' })
    expect(usageLevel({ ...month, used: 40_000 }).level).toBe('high')
    expect(usageLevel({ ...month, used: 50_000 }).level).toBe('reached')
  })
})
