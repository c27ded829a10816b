import { describe, expect, it } from 'vitest'
import {
  originOf,
  overrideLink,
  overrideRequestFrom,
  searchWithoutOverride,
} from './override-link.ts'

describe('preview links', () => {
  it('reads the remote, entry URL and label a link asks for', () => {
    expect(
      overrideRequestFrom(
        '?tessera-override=billing&tessera-override-url=http%3A%2F%2Flocalhost%3A5174%2Fassets%2FremoteEntry.js&tessera-override-label=PR%2042',
      ),
    ).toEqual({
      remote: 'billing',
      entryUrl: 'http://localhost:5174/assets/remoteEntry.js',
      label: 'PR 42',
    })
  })

  it('asks for nothing when the link names only half an override', () => {
    expect(overrideRequestFrom('?tessera-override=billing')).toBeNull()
    expect(overrideRequestFrom('?tessera-override-url=http://localhost:5174/e.js')).toBeNull()
    expect(overrideRequestFrom('')).toBeNull()
  })

  it('builds a link that reads back as the same request', () => {
    const request = { remote: 'billing', entryUrl: 'https://pr-7.example.com/e.js?x=1&y=2' }
    const link = overrideLink('http://localhost:8787', '/billing', request)
    expect(link.startsWith('http://localhost:8787/billing?')).toBe(true)
    expect(overrideRequestFrom(new URL(link).search)).toEqual(request)
  })

  it('takes the link’s parameters out of a query and keeps the others', () => {
    expect(
      searchWithoutOverride('?tab=plans&tessera-override=billing&tessera-override-url=x'),
    ).toBe('?tab=plans')
    expect(searchWithoutOverride('?tessera-override=billing&tessera-override-label=a')).toBe('')
  })

  it('shows the origin of an entry URL, or the text itself when it is not a URL', () => {
    expect(originOf('http://localhost:5174/assets/remoteEntry.js')).toBe('http://localhost:5174')
    expect(originOf('not a url')).toBe('not a url')
  })
})
