import { afterEach, describe, expect, it, vi } from 'vitest'
import { asPlugin, CONTRACT_MAJOR, type MountFn, type Unmount } from '@tessera/contracts/plugin'
import type { FakePlatform } from '@tessera/remote-build/testing'
import plugin from './plugin.tsx'
import { conversation, fakeAssistantBff } from './testing/fake-assistant-bff.ts'
import { assistantPlatform } from './testing/render-assistant.tsx'

// The first mount imports the page module; on a busy two-core machine that can take seconds.
const waitFor = <T,>(check: () => T) => vi.waitFor(check, { timeout: 10_000, interval: 20 })

const mounted: { el: HTMLElement; unmount: Unmount }[] = []

function mount(mountFn: MountFn | undefined, platform: FakePlatform): HTMLElement {
  if (mountFn === undefined) throw new Error('nothing to mount')
  const el = document.createElement('div')
  el.dataset.tesseraRemote = 'ai'
  document.body.append(el)
  mounted.push({ el, unmount: mountFn(el, platform) })
  return el
}

afterEach(() => {
  for (const { el, unmount } of mounted.splice(0)) {
    unmount()
    el.remove()
  }
})

describe('ai plugin', () => {
  it('declares itself as ai on the current contract major, with a page and the header slot', () => {
    expect(asPlugin(plugin)).toBe(plugin)
    expect(plugin.name).toBe('ai')
    expect(plugin.contract).toBe(CONTRACT_MAJOR)
    expect(Object.keys(plugin.slots ?? {})).toEqual(['header.end'])
  })

  it('mounts the assistant page at a conversation’s address, then unmounts cleanly', async () => {
    const bff = fakeAssistantBff({ conversations: [conversation('c1', 'Trip planning')] })
    const platform = assistantPlatform(bff, '/conversations/c1')
    const el = mount(plugin.routes?.mount, platform)
    await waitFor(() => expect(el.querySelector('h1')?.textContent).toBe('Trip planning'))
    await waitFor(() =>
      expect(el.textContent?.replace(/\u00a0/g, ' ')).toContain(
        '12,400 of 50,000 tokens this month',
      ),
    )

    mounted.pop()?.unmount()
    expect(el.innerHTML).toBe('')
    expect(platform.listenerCount()).toBe(0)
  })

  it('shows the month’s usage in the header slot, live, and nothing when signed out', async () => {
    const bff = fakeAssistantBff()
    const platform = assistantPlatform(bff)
    const el = mount(plugin.slots?.['header.end'], platform)
    const link = await waitFor(() => {
      const found = el.querySelector('a')
      if (found === null) throw new Error('no meter yet')
      return found
    })
    expect(link.getAttribute('aria-label')?.replace(/\u00a0/g, ' ')).toBe(
      'Assistant: 12,400 of 50,000 tokens this month',
    )
    expect(link.getAttribute('href')).toBe('/assistant')

    platform.emit({ type: 'assistant.usage', data: { ...bff.usage, used: 50_000 } })
    await waitFor(() => expect(el.querySelector('a')?.getAttribute('href')).toBe('/billing/plans'))
    expect(el.querySelector('a')?.getAttribute('aria-label')).toMatch(/the limit is reached/)

    platform.setSession({ status: 'signed-out', user: null })
    await waitFor(() => expect(el.querySelector('a')).toBeNull())
  })
})
