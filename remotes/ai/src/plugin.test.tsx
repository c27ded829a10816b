// @vitest-environment happy-dom
import { afterEach, describe, expect, it, vi } from 'vitest'
import { asPlugin, CONTRACT_MAJOR, type Unmount } from '@tessera/contracts/plugin'
import { createFakePlatform, type FakePlatform } from '@tessera/remote-build/testing'
import plugin from './plugin.tsx'

// The first mount imports the page module; on a busy two-core machine that can take seconds.
const waitFor = <T,>(check: () => T) => vi.waitFor(check, { timeout: 10_000, interval: 20 })

const mounted: { el: HTMLElement; unmount: Unmount }[] = []

function mountPage(platform: FakePlatform): HTMLElement {
  const mountFn = plugin.routes?.mount
  if (mountFn === undefined) throw new Error('the ai plugin has no page')
  const el = document.createElement('div')
  el.dataset.tesseraRemote = 'ai'
  document.body.append(el)
  mounted.push({ el, unmount: mountFn(el, platform) })
  return el
}

function aiPlatform(route = '/') {
  return createFakePlatform({
    remote: { name: 'ai', version: '1.0.0' },
    basePath: '/assistant',
    route,
  })
}

afterEach(() => {
  for (const { el, unmount } of mounted.splice(0)) {
    unmount()
    el.remove()
  }
})

describe('ai plugin', () => {
  it('declares itself as ai on the current contract major, with a page and no slot', () => {
    expect(asPlugin(plugin)).toBe(plugin)
    expect(plugin.name).toBe('ai')
    expect(plugin.contract).toBe(CONTRACT_MAJOR)
    expect(plugin.slots).toBeUndefined()
  })

  it('mounts the assistant page with its name, version and sub-route, then unmounts cleanly', async () => {
    const platform = aiPlatform('/usage')
    const el = mountPage(platform)
    await waitFor(() => expect(el.querySelector('h1')?.textContent).toBe('Your assistant'))
    const facts = el.querySelector('dl')?.textContent ?? ''
    expect(facts).toContain('ai')
    expect(facts).toContain('1.0.0')
    expect(facts).toContain('/assistant')
    expect(facts).toContain('/usage')
    expect(el.querySelector('a[aria-current="page"]')?.textContent).toBe('Usage')

    mounted.pop()?.unmount()
    expect(el.innerHTML).toBe('')
    expect(platform.listenerCount()).toBe(0)
  })

  it('navigates between its pages through the platform', async () => {
    const platform = aiPlatform()
    const el = mountPage(platform)
    const usage = await waitFor(() => {
      const link = [...el.querySelectorAll<HTMLAnchorElement>('nav a')].find(
        (candidate) => candidate.textContent === 'Usage',
      )
      if (link === undefined) throw new Error('no Usage link yet')
      return link
    })
    expect(usage.getAttribute('href')).toBe('/assistant/usage')
    usage.click()
    expect(platform.navigations).toEqual([{ to: '/assistant/usage', replace: false }])
  })

  it('lists live events newest first and notifies through the platform', async () => {
    const platform = aiPlatform()
    const el = mountPage(platform)
    await waitFor(() => expect(el.querySelector('[aria-live="polite"]')).not.toBeNull())
    platform.emit({ type: 'usage.updated', data: { used: 3 } })
    platform.emit({ type: 'plan.changed', data: { plan: 'pro' } })
    await waitFor(() => {
      const types = [...el.querySelectorAll('[aria-live="polite"] li code')].map(
        (code) => code.textContent,
      )
      expect(types).toEqual(['plan.changed', 'usage.updated'])
    })

    const notify = [...el.querySelectorAll('button')].find(
      (button) => button.textContent === 'Send a test notice',
    )
    notify?.click()
    expect(platform.notices).toEqual([{ kind: 'success', message: 'Hello from ai 1.0.0.' }])
  })
})
