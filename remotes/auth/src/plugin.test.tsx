import { afterEach, describe, expect, it, vi } from 'vitest'
import { asPlugin, CONTRACT_MAJOR, type MountFn, type Unmount } from '@tessera/contracts/plugin'
import type { SessionState } from '@tessera/contracts/platform'
import { createFakePlatform, type FakePlatform } from '@tessera/remote-build/testing'
import plugin from './plugin.tsx'
import { fakeBff } from './testing/render-page.tsx'

// The first mount imports the pages module; on a busy two-core machine that can take seconds.
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

function authPlatform(
  options: { route?: string; session?: SessionState; fetch?: FakePlatform['api']['fetch'] } = {},
) {
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

const itemNames = (el: HTMLElement) =>
  [...el.querySelectorAll('[role="menuitem"]')].map((item) => item.textContent)

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

  it('mounts the page of its sub-route, follows route changes, and unmounts cleanly', async () => {
    window.history.replaceState(null, '', '/auth/sign-in')
    const platform = authPlatform({ route: '/sign-in' })
    const el = mount(plugin.routes?.mount, platform)
    await waitFor(() => expect(el.querySelector('h1')?.textContent).toBe('Sign in to Tessera'))
    window.history.replaceState(null, '', '/auth/forgot-password')
    platform.setRoute('/forgot-password')
    await waitFor(() => expect(el.querySelector('h1')?.textContent).toBe('Reset your password'))
    mounted.pop()?.unmount()
    expect(el.innerHTML).toBe('')
    expect(platform.listenerCount()).toBe(0)
  })

  it('shows a not-found page for an unknown account address', async () => {
    const platform = authPlatform({ route: '/nowhere' })
    const el = mount(plugin.routes?.mount, platform)
    await waitFor(() => expect(el.querySelector('h1')?.textContent).toBe('Page not found'))
  })

  it('sends /auth to the profile when signed in and to sign-in when not', async () => {
    const signedIn = authPlatform({ route: '/', session: ada })
    mount(plugin.routes?.mount, signedIn)
    await waitFor(() =>
      expect(signedIn.navigations).toContainEqual({ to: '/auth/profile', replace: true }),
    )
    const signedOut = authPlatform({ route: '/' })
    mount(plugin.routes?.mount, signedOut)
    await waitFor(() =>
      expect(signedOut.navigations).toContainEqual({ to: '/auth/sign-in', replace: true }),
    )
  })

  it('offers a Sign in link in the header that brings the visitor back', async () => {
    window.history.replaceState(null, '', '/billing/invoices')
    const platform = authPlatform()
    const el = mount(plugin.slots?.['header.end'], platform)
    const link = await find<HTMLAnchorElement>(el, 'a')
    expect(link.textContent).toBe('Sign in')
    expect(link.getAttribute('href')).toBe('/auth/sign-in')
    link.click()
    expect(platform.navigations).toEqual([
      { to: '/auth/sign-in?next=%2Fbilling%2Finvoices', replace: false },
    ])
  })

  it('switches the header from Sign in to the user menu when the session changes', async () => {
    const platform = authPlatform()
    const el = mount(plugin.slots?.['header.end'], platform)
    await find(el, 'a')
    platform.setSession(ada, 'SIGNED_IN')
    const button = await find<HTMLButtonElement>(el, 'button[aria-haspopup="menu"]')
    expect(button.textContent).toContain('Ada Lovelace')
    platform.setSession(
      { status: 'signed-in', user: { ...ada.user!, displayName: 'Countess' } },
      'USER_UPDATED',
    )
    await waitFor(() => expect(button.textContent).toContain('Countess'))
    platform.setSession({ status: 'signed-out', user: null }, 'SIGNED_OUT')
    await waitFor(() => expect(el.querySelector('a')?.textContent).toBe('Sign in'))
  })

  it('opens the user menu with Enter, moves with arrows and closes with Escape', async () => {
    const platform = authPlatform({ session: ada })
    const el = mount(plugin.slots?.['header.end'], platform)
    const button = await find<HTMLButtonElement>(el, 'button[aria-haspopup="menu"]')
    expect(button.getAttribute('aria-expanded')).toBe('false')

    button.focus()
    key(button, 'Enter')
    await waitFor(() => expect(document.activeElement?.textContent).toBe('Create a team…'))
    expect(button.getAttribute('aria-expanded')).toBe('true')
    const menu = el.querySelector('[role="menu"]')
    expect(menu?.getAttribute('aria-labelledby')).toBe(button.id)
    // Without a list of workspaces (the fake BFF has none) the menu still offers the rest.
    expect(itemNames(el)).toEqual([
      'Create a team…',
      'Manage workspaces',
      'Profile',
      'Sessions',
      'Sign out',
      'Sign out everywhere',
    ])

    key(document.activeElement ?? button, 'ArrowDown')
    expect(document.activeElement?.textContent).toBe('Manage workspaces')
    key(document.activeElement ?? button, 'End')
    expect(document.activeElement?.textContent).toBe('Sign out everywhere')
    key(document.activeElement ?? button, 'ArrowDown')
    expect(document.activeElement?.textContent).toBe('Create a team…')
    key(document.activeElement ?? button, 'ArrowUp')
    expect(document.activeElement?.textContent).toBe('Sign out everywhere')

    key(document.activeElement ?? button, 'Escape')
    await waitFor(() => expect(button.getAttribute('aria-expanded')).toBe('false'))
    expect(document.activeElement).toBe(button)
  })

  it('opens the user menu with Space and at the last item with ArrowUp', async () => {
    const platform = authPlatform({ session: ada })
    const el = mount(plugin.slots?.['header.end'], platform)
    const button = await find<HTMLButtonElement>(el, 'button[aria-haspopup="menu"]')
    button.focus()
    key(button, ' ')
    await waitFor(() => expect(document.activeElement?.textContent).toBe('Create a team…'))
    key(document.activeElement ?? button, 'Escape')
    await waitFor(() => expect(document.activeElement).toBe(button))
    key(button, 'ArrowUp')
    await waitFor(() => expect(document.activeElement?.textContent).toBe('Sign out everywhere'))
  })

  it('navigates to the chosen account page from the menu and closes it', async () => {
    const platform = authPlatform({ session: ada })
    const el = mount(plugin.slots?.['header.end'], platform)
    const button = await find<HTMLButtonElement>(el, 'button[aria-haspopup="menu"]')
    button.click()
    await waitFor(() => expect(button.getAttribute('aria-expanded')).toBe('true'))
    const sessions = [...el.querySelectorAll<HTMLElement>('[role="menuitem"]')].find(
      (item) => item.textContent === 'Sessions',
    )
    sessions?.click()
    expect(platform.navigations).toEqual([{ to: '/auth/sessions', replace: false }])
    await waitFor(() => expect(button.getAttribute('aria-expanded')).toBe('false'))
  })

  it('signs out everywhere from the menu, then shows the sign-in page', async () => {
    const bff = fakeBff({ 'POST /api/auth/sign-out': Response.json({ status: 'signed_out' }) })
    const platform = authPlatform({ session: ada, fetch: bff.fetch })
    platform.session.refresh = async () => {
      platform.setSession({ status: 'signed-out', user: null }, 'SIGNED_OUT')
      return platform.session.current()
    }
    const el = mount(plugin.slots?.['header.end'], platform)
    const button = await find<HTMLButtonElement>(el, 'button[aria-haspopup="menu"]')
    button.click()
    const everywhere = [...el.querySelectorAll<HTMLElement>('[role="menuitem"]')].find(
      (item) => item.textContent === 'Sign out everywhere',
    )
    everywhere?.click()
    await waitFor(() =>
      expect(platform.navigations).toEqual([{ to: '/auth/sign-in', replace: false }]),
    )
    expect(bff.calls.filter((call) => call.method === 'POST')).toEqual([
      { method: 'POST', path: '/api/auth/sign-out', body: { scope: 'global' } },
    ])
    expect(platform.notices).toEqual([
      { kind: 'success', message: 'You are signed out on every device.' },
    ])
    await waitFor(() => expect(el.querySelector('a')?.textContent).toBe('Sign in'))
  })

  it('keeps the menu and says so when signing out fails', async () => {
    const platform = authPlatform({
      session: ada,
      fetch: () =>
        Promise.reject(
          Object.assign(new Error('Unreachable.'), {
            name: 'ApiError',
            code: 'upstream_unavailable',
            status: 503,
          }),
        ),
    })
    const el = mount(plugin.slots?.['header.end'], platform)
    const button = await find<HTMLButtonElement>(el, 'button[aria-haspopup="menu"]')
    button.click()
    const signOut = [...el.querySelectorAll<HTMLElement>('[role="menuitem"]')].find(
      (item) => item.textContent === 'Sign out',
    )
    signOut?.click()
    await waitFor(() => expect(platform.notices[0]?.kind).toBe('error'))
    expect(platform.notices[0]?.message).toMatch(/^You could not be signed out\. /)
    expect(platform.navigations).toEqual([])
    await waitFor(() => expect(button.getAttribute('aria-busy')).toBe('false'))
  })
})
