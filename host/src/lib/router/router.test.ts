import { describe, expect, it } from 'vitest'
import { createRouter, type RouterWindow } from './router.ts'

/** A window whose history moves its location, as a browser's does. */
function fakeWindow(start = '/') {
  const popListeners = new Set<() => void>()
  const location = { pathname: start, search: '', hash: '', origin: 'http://app.test' }
  const entries: string[] = [start]
  const go = (url: string) => {
    const parsed = new URL(url, 'http://app.test')
    location.pathname = parsed.pathname
    location.search = parsed.search
    location.hash = parsed.hash
  }
  const win: RouterWindow = {
    location,
    history: {
      pushState: (_state, _title, url) => {
        entries.push(String(url))
        go(String(url))
      },
      replaceState: (_state, _title, url) => {
        entries[entries.length - 1] = String(url)
        go(String(url))
      },
    },
    addEventListener: (_type, listener) => popListeners.add(listener),
    removeEventListener: (_type, listener) => popListeners.delete(listener),
  }
  const back = () => {
    entries.pop()
    go(entries[entries.length - 1] ?? '/')
    for (const listener of popListeners) listener()
  }
  return { win, entries, back, popListeners }
}

describe('createRouter', () => {
  it('pushes a history entry and tells subscribers', () => {
    const { win, entries } = fakeWindow('/assistant')
    const router = createRouter(win)
    const seen: string[] = []
    router.subscribe((location) => seen.push(location.pathname))
    router.navigate('/billing/plans?tab=pro')
    expect(entries).toEqual(['/assistant', '/billing/plans?tab=pro'])
    expect(router.current()).toEqual({ pathname: '/billing/plans', search: '?tab=pro', hash: '' })
    expect(seen).toEqual(['/billing/plans'])
  })

  it('replaces the entry when asked, and when going where it already is', () => {
    const { win, entries } = fakeWindow('/')
    const router = createRouter(win)
    router.navigate('/assistant', { replace: true })
    router.navigate('/assistant')
    expect(entries).toEqual(['/assistant'])
  })

  it('follows the back button', () => {
    const { win, back } = fakeWindow('/assistant')
    const router = createRouter(win)
    router.navigate('/billing')
    const seen: string[] = []
    router.subscribe((location) => seen.push(location.pathname))
    back()
    expect(router.current().pathname).toBe('/assistant')
    expect(seen).toEqual(['/assistant'])
  })

  it('resolves relative paths against the current one and drops trailing slashes', () => {
    const { win } = fakeWindow('/billing/plans')
    const router = createRouter(win)
    router.navigate('checkout/')
    expect(router.current().pathname).toBe('/billing/checkout')
  })

  it('refuses to navigate to another origin', () => {
    const { win } = fakeWindow('/')
    const router = createRouter(win)
    expect(() => router.navigate('https://evil.test/phish')).toThrow(
      /only goes to paths of this app/,
    )
  })

  it('stops listening to the browser once disposed', () => {
    const { win, popListeners } = fakeWindow('/')
    const router = createRouter(win)
    expect(popListeners.size).toBe(1)
    router.dispose()
    expect(popListeners.size).toBe(0)
  })
})
