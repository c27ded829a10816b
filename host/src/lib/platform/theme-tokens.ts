// The theme's values, without the DOM: the store (theme.ts) sets them on the page, and the host's
// build (vite.config.ts) writes them into its CSS for the first paint.
import { themeTokens, type ThemeName, type ThemeToken } from '@tessera/contracts'

const fontBody =
  'ui-sans-serif, system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif'
const fontMono =
  'ui-monospace, SFMono-Regular, "SF Mono", Menlo, Consolas, "Liberation Mono", monospace'

/** The two token sets. Colours meet WCAG AA for body text on `bg` and `surface` in both themes. */
export const themeTokenValues: Record<ThemeName, Record<ThemeToken, string>> = {
  light: {
    '--tessera-color-bg': '#f6f7f9',
    '--tessera-color-surface': '#ffffff',
    '--tessera-color-fg': '#161a22',
    '--tessera-color-muted': '#5a6272',
    '--tessera-color-border': '#e2e5eb',
    '--tessera-color-accent': '#4f46e5',
    '--tessera-color-accent-fg': '#ffffff',
    '--tessera-color-danger': '#c0362c',
    '--tessera-color-success': '#1c7a4a',
    '--tessera-color-focus': '#2563eb',
    '--tessera-font-body': fontBody,
    '--tessera-font-mono': fontMono,
    '--tessera-radius': '10px',
    '--tessera-space': '8px',
  },
  dark: {
    '--tessera-color-bg': '#0e1116',
    '--tessera-color-surface': '#161b23',
    '--tessera-color-fg': '#e6e9ef',
    '--tessera-color-muted': '#9aa3b5',
    '--tessera-color-border': '#2a313d',
    '--tessera-color-accent': '#8b8df9',
    '--tessera-color-accent-fg': '#0e1116',
    '--tessera-color-danger': '#f17a70',
    '--tessera-color-success': '#4cc38a',
    '--tessera-color-focus': '#93b4ff',
    '--tessera-font-body': fontBody,
    '--tessera-font-mono': fontMono,
    '--tessera-radius': '10px',
    '--tessera-space': '8px',
  },
}

/**
 * The token sets as a stylesheet: the light set on `:root`, the dark one for a system in dark mode,
 * and either for a page whose root says `data-theme` (the visitor's pick, set by index.html's
 * script before the first paint and by the store). The host's build puts it in the page's CSS
 * (vite.config.ts), so what the page paints before its scripts run (the boot skeleton) is in the
 * visitor's theme, not the browser's defaults; the store's inline tokens then win over it.
 */
export function themeTokensCss(): string {
  const block = (selector: string, theme: ThemeName, indent = '') =>
    [
      `${indent}${selector} {`,
      `${indent}  color-scheme: ${theme};`,
      ...themeTokens.map((token) => `${indent}  ${token}: ${themeTokenValues[theme][token]};`),
      `${indent}}`,
    ].join('\n')
  return [
    block(':root', 'light'),
    `@media (prefers-color-scheme: dark) {\n${block(':root', 'dark', '  ')}\n}`,
    block(":root[data-theme='light']", 'light'),
    block(":root[data-theme='dark']", 'dark'),
    '',
  ].join('\n')
}
