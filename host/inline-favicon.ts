import { readFileSync } from 'node:fs'
import type { Plugin } from 'vite'

/** An SVG as a `data:` URL: only the characters a URL or the attribute cannot hold are escaped. */
export function svgDataUrl(svg: string): string {
  const text = svg.trim().replace(/\s+/g, ' ').replace(/"/g, "'")
  return `data:image/svg+xml,${text.replace(/[%#<>{}\n]/g, (char) => encodeURIComponent(char))}`
}

/** The page's icon link, as index.html writes it. */
export const ICON_LINK = '<link rel="icon" href="/favicon.svg" type="image/svg+xml" />'

/**
 * Puts the icon (public/favicon.svg, 399 bytes) in the page as a `data:` URL, so a cold load makes
 * one request fewer while the page's own files download (decision 044). The file is still served,
 * for anything that asks for it by name. Fails the build when the page has no such link.
 */
export function inlineFavicon(file: string): Plugin {
  return {
    name: 'tessera:inline-favicon',
    apply: 'build',
    transformIndexHtml(html) {
      if (!html.includes(ICON_LINK)) throw new Error(`index.html has no ${ICON_LINK} to inline`)
      const link = `<link rel="icon" href="${svgDataUrl(readFileSync(file, 'utf8'))}" type="image/svg+xml" />`
      return html.replace(ICON_LINK, link)
    },
  }
}
