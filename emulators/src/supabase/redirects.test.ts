import { describe, expect, it } from 'vitest'
import { resolveRedirect } from './redirects.ts'

const site = 'http://localhost:8787'

describe('resolveRedirect', () => {
  it('keeps a redirect on the site origin and falls back to the site for anything unlisted', () => {
    expect(resolveRedirect('http://localhost:8787/billing?x=1', site, [])).toBe(
      'http://localhost:8787/billing?x=1',
    )
    expect(resolveRedirect(undefined, site, [])).toBe(site)
    expect(resolveRedirect('/relative', site, [])).toBe(site)
    expect(resolveRedirect('javascript:alert(1)', site, ['**'])).toBe(site)
    expect(resolveRedirect('https://evil.test/', site, [])).toBe(site)
  })

  it('matches the allow list with GoTrue-style globs', () => {
    const list = ['http://localhost:5173/**', 'https://*.preview.test/auth']
    expect(resolveRedirect('http://localhost:5173/a/b', site, list)).toBe(
      'http://localhost:5173/a/b',
    )
    expect(resolveRedirect('https://pr-12.preview.test/auth', site, list)).toBe(
      'https://pr-12.preview.test/auth',
    )
    expect(resolveRedirect('https://a.b.preview.test/auth', site, list)).toBe(site)
    expect(resolveRedirect('https://pr-12.preview.test/other', site, list)).toBe(site)
  })
})
