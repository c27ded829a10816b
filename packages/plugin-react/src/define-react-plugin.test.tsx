// @vitest-environment happy-dom
import { act } from 'react'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { asPlugin, CONTRACT_MAJOR } from '@tessera/contracts/plugin'
import type { MountFn, Unmount } from '@tessera/contracts/plugin'
import { createFakePlatform } from '@tessera/remote-build/testing'
import type { FakePlatform } from '@tessera/remote-build/testing'
import { defineReactPlugin } from './define-react-plugin.tsx'
import { usePlatform, useRoute } from './platform.tsx'
import { useSearchParams } from './use-search.ts'

// Tells React that these tests wrap their updates in act(), as Testing Library's render does.
;(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true

const mounted: { el: HTMLElement; unmount: Unmount }[] = []

function mount(mountFn: MountFn | undefined, platform: FakePlatform): HTMLElement {
  if (mountFn === undefined) throw new Error('nothing to mount')
  const el = document.createElement('div')
  document.body.append(el)
  act(() => {
    mounted.push({ el, unmount: mountFn(el, platform) })
  })
  return el
}

afterEach(() => {
  for (const { el, unmount } of mounted.splice(0)) {
    act(() => unmount())
    el.remove()
  }
  window.history.replaceState(null, '', '/')
})

function Pages() {
  return <h1>Page at {useRoute()}</h1>
}

function Badge() {
  const platform = usePlatform()
  const next = useSearchParams().get('next') ?? 'none'
  return (
    <button type="button" onClick={() => platform.navigate('/billing/plans')}>
      next={next}
    </button>
  )
}

describe('defineReactPlugin', () => {
  it('declares a plugin of its name on the current contract major with its slots', () => {
    const plugin = defineReactPlugin({
      name: 'billing',
      routes: () => Promise.resolve({ default: Pages }),
      slots: { 'header.end': Badge },
    })
    expect(asPlugin(plugin)).toBe(plugin)
    expect(plugin.name).toBe('billing')
    expect(plugin.contract).toBe(CONTRACT_MAJOR)
    expect(typeof plugin.routes?.mount).toBe('function')
    expect(Object.keys(plugin.slots ?? {})).toEqual(['header.end'])
  })

  it('leaves out routes and slots it was not given', () => {
    const plugin = defineReactPlugin({ name: 'quiet' })
    expect(asPlugin(plugin)).toBe(plugin)
    expect(plugin.routes).toBeUndefined()
    expect(plugin.slots).toBeUndefined()
  })

  it('says what is loading until the pages module arrives, then shows the page', async () => {
    let arrive: (module: { default: typeof Pages }) => void = () => {}
    const plugin = defineReactPlugin({
      name: 'billing',
      routes: () => new Promise((resolve) => (arrive = resolve)),
      loading: 'Loading billing…',
    })
    const platform = createFakePlatform({ remote: { name: 'billing', version: '1.0.0' } })
    const el = mount(plugin.routes?.mount, platform)
    expect(el.querySelector('[role="status"]')?.textContent).toBe('Loading billing…')

    await act(async () => arrive({ default: Pages }))
    await vi.waitFor(() => expect(el.querySelector('h1')?.textContent).toBe('Page at /'))
    act(() => platform.setRoute('/plans'))
    expect(el.querySelector('h1')?.textContent).toBe('Page at /plans')

    act(() => mounted.pop()?.unmount())
    expect(el.innerHTML).toBe('')
    expect(platform.listenerCount()).toBe(0)
  })

  it('shows the page in the turn its module arrives, not after a loading hold-back', async () => {
    let arrive: (module: { default: typeof Pages }) => void = () => {}
    const plugin = defineReactPlugin({
      name: 'billing',
      routes: () => new Promise((resolve) => (arrive = resolve)),
    })
    const platform = createFakePlatform({ remote: { name: 'billing', version: '1.0.0' } })
    const el = mount(plugin.routes?.mount, platform)
    expect(el.querySelector('[role="status"]')?.textContent).toBe('Loading…')
    // Outside act(), as in a browser: React.lazy under Suspense would keep the fallback until a
    // 300 ms timer fires; the page must come within a few turns of React's scheduler instead.
    const env = globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }
    env.IS_REACT_ACT_ENVIRONMENT = false
    try {
      arrive({ default: Pages })
      for (let turn = 0; turn < 20 && el.querySelector('h1') === null; turn++) {
        await new Promise((resolve) => setTimeout(resolve, 0))
      }
      expect(el.querySelector('h1')?.textContent).toBe('Page at /')
      expect(el.querySelector('[role="status"]')).toBeNull()
    } finally {
      env.IS_REACT_ACT_ENVIRONMENT = true
    }
  })

  it('asks for the pages module once, and again on a later mount after it failed', async () => {
    const importRoutes = vi
      .fn<() => Promise<{ default: typeof Pages }>>()
      .mockRejectedValueOnce(new Error('the cdn is down'))
      .mockResolvedValue({ default: Pages })
    const plugin = defineReactPlugin({ name: 'billing', routes: importRoutes })
    const platform = createFakePlatform({ remote: { name: 'billing', version: '1.0.0' } })
    const consoleError = vi.spyOn(console, 'error').mockImplementation(() => {})
    try {
      const failed = mount(plugin.routes?.mount, platform)
      await vi.waitFor(() =>
        expect(failed.querySelector('[role="alert"]')?.textContent).toContain('could not be shown'),
      )
      expect(importRoutes).toHaveBeenCalledTimes(1)

      const retried = mount(plugin.routes?.mount, platform)
      await vi.waitFor(() => expect(retried.querySelector('h1')?.textContent).toBe('Page at /'))
      const third = mount(plugin.routes?.mount, platform)
      expect(third.querySelector('h1')?.textContent).toBe('Page at /')
      expect(importRoutes).toHaveBeenCalledTimes(2)
    } finally {
      consoleError.mockRestore()
    }
  })

  it('mounts a slot whose navigations reach the host and are announced to query readers', () => {
    window.history.replaceState(null, '', '/billing/plans?next=%2Fassistant')
    const plugin = defineReactPlugin({ name: 'billing', slots: { 'header.end': Badge } })
    const platform = createFakePlatform({ remote: { name: 'billing', version: '1.0.0' } })
    platform.navigate = (to, options) => {
      platform.navigations.push({ to, replace: options?.replace ?? false })
      window.history.replaceState(null, '', to)
    }
    const el = mount(plugin.slots?.['header.end'], platform)
    const button = el.querySelector('button')
    expect(button?.textContent).toBe('next=/assistant')

    act(() => button?.click())
    expect(platform.navigations).toEqual([{ to: '/billing/plans', replace: false }])
    expect(button?.textContent).toBe('next=none')
  })
})
