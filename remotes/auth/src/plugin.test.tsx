// @vitest-environment happy-dom
import { afterEach, describe, expect, it, vi } from 'vitest'
import { asPlugin, CONTRACT_MAJOR, type MountFn, type Unmount } from '@tessera/contracts/plugin'
import type { SessionState } from '@tessera/contracts/platform'
import { createFakePlatform, type FakePlatform } from '@tessera/remote-build/testing'
import plugin from './plugin.tsx'

// The first mount imports the page module; on a busy two-core machine that can take seconds.
const waitFor = <T,>(check: () => T) => vi.waitFor(check, { timeout: 10_000, interval: 20 })

const mounted: { el: HTMLElement; unmount: Unmount }[] = []

function mount(mountFn: MountFn | undefined, platform: FakePlatform): HTMLElement {
  if (mountFn === undefined) throw new Error('nothing to mount')
  const el = document.createElement('div')
  el.dataset.tesseraRemote = 'auth'
  document.body.append(el)
  mounted.push({ el, unmount: mountFn(el, platform) })
  return el
}

const ada: SessionState = {
  status: 'signed-in',
  user: { id: 'u1', email: 'ada@example.com', displayName: 'Ada Lovelace' },
}

function authPlatform(options: { route?: string; session?: SessionState } = {}) {
  return createFakePlatform({ remote: { name: 'auth', version: '1.0.0' }, ...options })
}

async function find<T extends Element>(el: HTMLElement, selector: string): Promise<T> {
  return waitFor(() => {
    const found = el.querySelector<T>(selector)
    if (found === null) throw new Error(`nothing matches ${selector} yet`)
    return found
  })
}

function key(target: Element, name: string) {
  target.dispatchEvent(new KeyboardEvent('keydown', { key: name, bubbles: true, cancelable: true }))
}

afterEach(() => {
  for (const { el, unmount } of mounted.splice(0)) {
    unmount()
    el.remove()
  }
})

describe('auth plugin', () => {
  it('declares itself as auth on the current contract major', () => {
    expect(asPlugin(plugin)).toBe(plugin)
    expect(plugin.name).toBe('auth')
    expect(plugin.contract).toBe(CONTRACT_MAJOR)
    expect(Object.keys(plugin.slots ?? {})).toEqual(['header.end'])
  })

  it('mounts the account page with its name, version and sub-route, then unmounts cleanly', async () => {
    const platform = authPlatform({ route: '/sign-in', session: ada })
    const el = mount(plugin.routes?.mount, platform)

    const heading = await find(el, 'h1')
    expect(heading.textContent).toBe('Your account')
    const facts = el.querySelector('dl')?.textContent ?? ''
    expect(facts).toContain('auth')
    expect(facts).toContain('1.0.0')
    expect(facts).toContain('/sign-in')
    expect(el.textContent).toContain('Signed in as Ada Lovelace (ada@example.com)')
    expect(el.querySelector('a[aria-current="page"]')?.textContent).toBe('Sign in')

    mounted.pop()?.unmount()
    expect(el.innerHTML).toBe('')
    expect(platform.listenerCount()).toBe(0)
  })

  it('lists live events newest first in a polite live region', async () => {
    const platform = authPlatform()
    const el = mount(plugin.routes?.mount, platform)
    await find(el, '[aria-live="polite"]')
    platform.emit({ type: 'SIGNED_IN', data: null })
    platform.emit({ type: 'TOKEN_REFRESHED', data: null })
    await waitFor(() => {
      const types = [...el.querySelectorAll('[aria-live="polite"] li code')].map(
        (code) => code.textContent,
      )
      expect(types).toEqual(['TOKEN_REFRESHED', 'SIGNED_IN'])
    })
  })

  it('offers a Sign in link in the header when signed out', async () => {
    const platform = authPlatform()
    const el = mount(plugin.slots?.['header.end'], platform)
    const link = await find<HTMLAnchorElement>(el, 'a')
    expect(link.textContent).toBe('Sign in')
    expect(link.getAttribute('href')).toBe('/auth/sign-in')
    link.click()
    expect(platform.navigations).toEqual([{ to: '/auth/sign-in', replace: false }])
  })

  it('switches the header from Sign in to the user menu when the session changes', async () => {
    const platform = authPlatform()
    const el = mount(plugin.slots?.['header.end'], platform)
    await find(el, 'a')
    platform.setSession(ada, 'SIGNED_IN')
    const button = await find<HTMLButtonElement>(el, 'button[aria-haspopup="menu"]')
    expect(button.textContent).toContain('Ada Lovelace')
    platform.setSession({ status: 'signed-out', user: null }, 'SIGNED_OUT')
    await waitFor(() => expect(el.querySelector('a')?.textContent).toBe('Sign in'))
  })

  it('opens the user menu by keyboard, moves with arrows and closes with Escape', async () => {
    const platform = authPlatform({ session: ada })
    const el = mount(plugin.slots?.['header.end'], platform)
    const button = await find<HTMLButtonElement>(el, 'button[aria-haspopup="menu"]')
    expect(button.getAttribute('aria-expanded')).toBe('false')

    button.focus()
    key(button, 'ArrowDown')
    await waitFor(() => expect(document.activeElement?.textContent).toBe('Profile'))
    expect(button.getAttribute('aria-expanded')).toBe('true')
    const menu = el.querySelector('[role="menu"]')
    expect(menu?.getAttribute('aria-labelledby')).toBe(button.id)
    expect([...el.querySelectorAll('[role="menuitem"]')].map((item) => item.textContent)).toEqual([
      'Profile',
      'Sign out',
    ])

    key(document.activeElement ?? button, 'ArrowDown')
    expect(document.activeElement?.textContent).toBe('Sign out')
    key(document.activeElement ?? button, 'ArrowDown')
    expect(document.activeElement?.textContent).toBe('Profile')

    key(document.activeElement ?? button, 'Escape')
    await waitFor(() => expect(button.getAttribute('aria-expanded')).toBe('false'))
    expect(document.activeElement).toBe(button)
  })

  it('navigates to the chosen account page from the menu and closes it', async () => {
    const platform = authPlatform({ session: ada })
    const el = mount(plugin.slots?.['header.end'], platform)
    const button = await find<HTMLButtonElement>(el, 'button[aria-haspopup="menu"]')
    button.click()
    await waitFor(() => expect(button.getAttribute('aria-expanded')).toBe('true'))
    const signOut = [...el.querySelectorAll<HTMLAnchorElement>('[role="menuitem"]')].find(
      (item) => item.textContent === 'Sign out',
    )
    signOut?.click()
    expect(platform.navigations).toEqual([{ to: '/auth/sign-out', replace: false }])
    await waitFor(() => expect(button.getAttribute('aria-expanded')).toBe('false'))
  })
})
