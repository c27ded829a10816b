import { mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { ICON_LINK, inlineFavicon, svgDataUrl } from './inline-favicon.ts'

type Transform = (html: string) => string
const transformOf = (plugin: ReturnType<typeof inlineFavicon>): Transform =>
  plugin.transformIndexHtml as Transform

describe('inlineFavicon', () => {
  it('puts the icon in the page as a data URL that decodes to the file', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'tessera-favicon-'))
    const svg =
      '<svg xmlns="http://www.w3.org/2000/svg"><rect fill="#4f46e5" width="32" height="32"/></svg>\n'
    await writeFile(path.join(dir, 'favicon.svg'), svg)
    const html = transformOf(inlineFavicon(path.join(dir, 'favicon.svg')))(
      `<head>${ICON_LINK}</head>`,
    )
    const href = /<link rel="icon" href="([^"]+)" type="image\/svg\+xml" \/>/.exec(html)?.[1] ?? ''
    expect(href.startsWith('data:image/svg+xml,')).toBe(true)
    expect(href).not.toMatch(/[#<>"]/)
    expect(decodeURIComponent(href.slice('data:image/svg+xml,'.length))).toBe(
      svg.trim().replace(/"/g, "'"),
    )
    expect(html).not.toContain('/favicon.svg')
  })

  it('fails the build when the page has no icon link to replace', () => {
    expect(() => transformOf(inlineFavicon('/nowhere.svg'))('<head></head>')).toThrow(
      /no <link rel="icon"/,
    )
  })

  it('escapes a percent sign, which would otherwise start an escape', () => {
    expect(svgDataUrl('<svg width="100%"/>')).toBe("data:image/svg+xml,%3Csvg width='100%25'/%3E")
  })
})
