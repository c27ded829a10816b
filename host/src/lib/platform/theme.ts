import { themeTokens, type PlatformTheme, type ThemeName } from '@tessera/contracts'
import { themeTokenValues } from './theme-tokens.ts'

export const THEME_STORAGE_KEY = 'tessera.theme'

/** The slice of `window` the theme needs, so tests can hand in fakes. */
export interface ThemeEnvironment {
  root: HTMLElement
  storage: Pick<Storage, 'getItem' | 'setItem'> | null
  matchMedia: ((query: string) => Pick<MediaQueryList, 'matches' | 'addEventListener'>) | null
}

export interface ThemeStore extends PlatformTheme {
  /** Switches to the other theme and remembers the choice. */
  toggle(): void
  set(theme: ThemeName): void
  /** Writes the current token set onto the root element. */
  apply(): void
}

function readStored(storage: ThemeEnvironment['storage']): ThemeName | null {
  try {
    const value = storage?.getItem(THEME_STORAGE_KEY)
    return value === 'light' || value === 'dark' ? value : null
  } catch (error) {
    // Storage can be disabled (private mode, policies); the system preference still works.
    console.warn('The saved theme could not be read', error)
    return null
  }
}

/**
 * Light and dark token sets as custom properties on the root element. It follows the system's
 * colour scheme until the visitor picks one with the toggle; that choice is kept in localStorage.
 */
export function createThemeStore({ root, storage, matchMedia }: ThemeEnvironment): ThemeStore {
  const query = matchMedia?.('(prefers-color-scheme: dark)') ?? null
  let chosen = readStored(storage)
  let current: ThemeName = chosen ?? (query?.matches ? 'dark' : 'light')
  const listeners = new Set<(theme: ThemeName) => void>()

  function apply(): void {
    const values = themeTokenValues[current]
    for (const token of themeTokens) root.style.setProperty(token, values[token])
    root.dataset.theme = current
    root.style.colorScheme = current
    // The browser's own chrome (address bar on phones) follows the chosen theme, not the system's.
    for (const meta of root.ownerDocument.querySelectorAll<HTMLMetaElement>(
      'meta[name="theme-color"]',
    )) {
      meta.content = values['--tessera-color-surface']
    }
  }

  function update(next: ThemeName): void {
    if (next === current) return
    current = next
    apply()
    for (const listener of [...listeners]) listener(next)
  }

  query?.addEventListener('change', (event) => {
    if (chosen === null) update(event.matches ? 'dark' : 'light')
  })

  function set(theme: ThemeName): void {
    chosen = theme
    try {
      storage?.setItem(THEME_STORAGE_KEY, theme)
    } catch (error) {
      console.warn('The theme choice could not be saved', error)
    }
    update(theme)
  }

  return {
    tokens: themeTokens,
    current: () => current,
    subscribe(listener) {
      listeners.add(listener)
      return () => {
        listeners.delete(listener)
      }
    },
    toggle: () => set(current === 'dark' ? 'light' : 'dark'),
    set,
    apply,
  }
}
