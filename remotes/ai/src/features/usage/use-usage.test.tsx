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

describe('useUsage in several mounts of one page (the header’s meter and the page)', () => {
  const usageReads = (bff: ReturnType<typeof fakeAssistantBff>) =>
    bff.calls.filter((call) => call.path.endsWith('/usage')).length

  function mountTwice(bff = fakeAssistantBff()) {
    const platform = assistantPlatform(bff)
    const wrapper = ({ children }: { children: ReactNode }) => (
      <PlatformProvider platform={platform}>{children}</PlatformProvider>
    )
    const meter = renderHook(() => useUsage(), { wrapper })
    const page = renderHook(() => useUsage(), { wrapper })
    return { platform, bff, wrapper, meter, page }
  }

  it('reads the month once for both, and both follow the live events', async () => {
    const { platform, bff, meter, page } = mountTwice()
    await waitFor(() =>
      expect(page.result.current.state).toMatchObject({ usage: { used: 12_400 } }),
    )
    expect(meter.result.current.state).toMatchObject({ usage: { used: 12_400 } })
    expect(usageReads(bff)).toBe(1)
    act(() => platform.emit({ type: 'assistant.usage', data: { ...month, used: 20_000 } }))
    expect(meter.result.current.state).toMatchObject({ usage: { used: 20_000 } })
    expect(page.result.current.state).toMatchObject({ usage: { used: 20_000 } })
  })

  it('shares a page that mounts later what the meter read, and reads once on a reconnect', async () => {
    const bff = fakeAssistantBff()
    const platform = assistantPlatform(bff)
    const wrapper = ({ children }: { children: ReactNode }) => (
      <PlatformProvider platform={platform}>{children}</PlatformProvider>
    )
    const meter = renderHook(() => useUsage(), { wrapper })
    await waitFor(() => expect(meter.result.current.state).toMatchObject({ status: 'ready' }))
    const page = renderHook(() => useUsage(), { wrapper })
    expect(page.result.current.state).toMatchObject({ usage: { used: 12_400 } })
    expect(usageReads(bff)).toBe(1)
    bff.usage.used = 30_000
    act(() => platform.setEventStatus('reconnecting'))
    act(() => platform.setEventStatus('open'))
    await waitFor(() =>
      expect(page.result.current.state).toMatchObject({ usage: { used: 30_000 } }),
    )
    expect(meter.result.current.state).toMatchObject({ usage: { used: 30_000 } })
    expect(usageReads(bff)).toBe(2)
  })

  it('reads again for the next mount once every mount has gone (no one heard the events)', async () => {
    const { bff, wrapper, meter, page } = mountTwice()
    await waitFor(() => expect(page.result.current.state).toMatchObject({ status: 'ready' }))
    meter.unmount()
    page.unmount()
    await new Promise((resolve) => setTimeout(resolve, 0))
    bff.usage.used = 31_000
    const next = renderHook(() => useUsage(), { wrapper })
    await waitFor(() =>
      expect(next.result.current.state).toMatchObject({ usage: { used: 31_000 } }),
    )
    expect(usageReads(bff)).toBe(2)
  })
})

describe('usageLevel', () => {
  it('turns high from 80 % and reached at the limit', () => {
    expect(usageLevel({ ...month, used: 10_000 })).toEqual({ ratio: 0.2, level: 'ok' })
    expect(usageLevel({ ...month, used: 40_000 }).level).toBe('high')
    expect(usageLevel({ ...month, used: 50_000 }).level).toBe('reached')
  })
})
