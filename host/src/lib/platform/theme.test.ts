import { describe, expect, it } from 'vitest'
import { themeTokens, type ThemeName } from '@tessera/contracts'
import { createThemeStore, THEME_STORAGE_KEY } from './theme.ts'
import { themeTokensCss, themeTokenValues } from './theme-tokens.ts'

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
  /** The custom properties (and colour scheme) a block declares. */
  const declared = (block: string) =>
    Object.fromEntries(
      [...block.matchAll(/([a-z-]+):\s*([^;{}]+);/g)].map((match) => [match[1], match[2]!.trim()]),
    )

  it('paints the light tokens by default and the dark ones for a system in dark mode', () => {
    const css = themeTokensCss()
    const dark = css.indexOf('@media (prefers-color-scheme: dark)')
    expect(dark).toBeGreaterThan(0)
    for (const [theme, block] of [
      ['light', css.slice(0, dark)],
      ['dark', css.slice(dark)],
    ] as const) {
      expect(declared(block)).toEqual({ 'color-scheme': theme, ...themeTokenValues[theme] })
      expect(Object.keys(declared(block))).toEqual(['color-scheme', ...themeTokens])
    }
  })
})
