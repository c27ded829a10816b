import { describe, expect, it } from 'vitest'
import { themeTokens, type ThemeName } from '@tessera/contracts'
import { createThemeStore, THEME_STORAGE_KEY } from './theme.ts'
import { themeTokensCss, themeTokenValues } from './theme-tokens.ts'
import indexHtml from '../../../index.html?raw'

function setup({
  stored = null,
  systemDark = false,
}: { stored?: string | null; systemDark?: boolean } = {}) {
  const root = document.createElement('div')
  const saved = new Map<string, string>()
  if (stored !== null) saved.set(THEME_STORAGE_KEY, stored)
  let changeListener: ((event: MediaQueryListEvent) => void) | null = null
  const store = createThemeStore({
    root,
    storage: {
      getItem: (key) => saved.get(key) ?? null,
      setItem: (key, value) => void saved.set(key, value),
    },
    matchMedia: () =>
      ({
        matches: systemDark,
        addEventListener: (_type: string, listener: (event: MediaQueryListEvent) => void) => {
          changeListener = listener
        },
      }) as unknown as MediaQueryList,
  })
  const systemChangesTo = (dark: boolean) =>
    changeListener?.({ matches: dark } as MediaQueryListEvent)
  return { root, saved, store, systemChangesTo }
}

describe('createThemeStore', () => {
  it('follows the system colour scheme by default', () => {
    expect(setup({ systemDark: true }).store.current()).toBe('dark')
    expect(setup({ systemDark: false }).store.current()).toBe('light')
  })

  it('writes every contract token on the root element', () => {
    const { root, store } = setup({ systemDark: true })
    store.apply()
    for (const token of themeTokens) {
      expect(root.style.getPropertyValue(token)).toBe(themeTokenValues.dark[token])
    }
    expect(root.dataset.theme).toBe('dark')
  })

  it('points the browser’s theme colour at the chosen theme', () => {
    const meta = document.createElement('meta')
    meta.name = 'theme-color'
    document.head.append(meta)
    const { store } = setup()
    store.set('dark')
    expect(meta.content).toBe(themeTokenValues.dark['--tessera-color-surface'])
    meta.remove()
  })

  it('toggles, remembers the choice and tells subscribers', () => {
    const { root, saved, store } = setup()
    const seen: ThemeName[] = []
    store.subscribe((theme) => seen.push(theme))
    store.toggle()
    expect(store.current()).toBe('dark')
    expect(saved.get(THEME_STORAGE_KEY)).toBe('dark')
    expect(root.style.getPropertyValue('--tessera-color-bg')).toBe(
      themeTokenValues.dark['--tessera-color-bg'],
    )
    expect(seen).toEqual(['dark'])
  })

  it('prefers a remembered choice over the system and stops following the system', () => {
    const { store, systemChangesTo } = setup({ stored: 'light', systemDark: true })
    expect(store.current()).toBe('light')
    systemChangesTo(true)
    expect(store.current()).toBe('light')
  })

  it('follows a change of the system scheme while nothing was chosen', () => {
    const { store, systemChangesTo } = setup()
    const seen: ThemeName[] = []
    store.subscribe((theme) => seen.push(theme))
    systemChangesTo(true)
    expect(store.current()).toBe('dark')
    expect(seen).toEqual(['dark'])
  })

  it('defines both themes for every contract token', () => {
    for (const theme of ['light', 'dark'] as const) {
      expect(Object.keys(themeTokenValues[theme]).sort()).toEqual([...themeTokens].sort())
    }
  })
})

describe('themeTokensCss', () => {
  /** Each block's selector (with its media query, if any) and what it declares. */
  const blocks = (css: string) =>
    [...css.matchAll(/(@media[^{]+\{\s*)?([^{}@]+?)\s*\{([^{}]*)\}/g)].map((match) => ({
      selector: `${match[1]?.replace(/\s*\{\s*$/, '').trim() ?? ''} ${match[2]!.trim()}`.trim(),
      declared: Object.fromEntries(
        [...match[3]!.matchAll(/([a-z-]+):\s*([^;]+);/g)].map((m) => [m[1], m[2]!.trim()]),
      ),
    }))

  it('paints the system’s theme, or the one the visitor picked, before any script', () => {
    const tokens = (theme: ThemeName) => ({ 'color-scheme': theme, ...themeTokenValues[theme] })
    expect(blocks(themeTokensCss())).toEqual([
      { selector: ':root', declared: tokens('light') },
      { selector: '@media (prefers-color-scheme: dark) :root', declared: tokens('dark') },
      // Later, so a pick wins over the system's scheme.
      { selector: ":root[data-theme='light']", declared: tokens('light') },
      { selector: ":root[data-theme='dark']", declared: tokens('dark') },
    ])
    expect(Object.keys(tokens('dark'))).toEqual(['color-scheme', ...themeTokens])
  })

  it('is applied from the key the store keeps the pick under, by index.html’s script', () => {
    expect(indexHtml).toContain(`localStorage.getItem('${THEME_STORAGE_KEY}')`)
    expect(indexHtml).toContain('document.documentElement.dataset.theme = theme')
  })
})
