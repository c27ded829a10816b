import { describe, expect, it } from 'vitest'
import { safeNextPath, withNext } from './next-path.ts'

const origin = 'http://localhost:8787'

describe('safeNextPath', () => {
  it('keeps a path of this app, with its query and hash', () => {
    expect(safeNextPath('/billing', origin)).toBe('/billing')
    expect(safeNextPath('/billing/invoices?page=2#latest', origin)).toBe(
      '/billing/invoices?page=2#latest',
    )
  })

  it('takes the path out of a full URL on this origin, as email links carry it', () => {
    expect(safeNextPath('http://localhost:8787/assistant', origin)).toBe('/assistant')
  })

  it('refuses other sites, however they are spelled', () => {
    for (const raw of [
      'https://evil.example/',
      '//evil.example/path',
      '/\\evil.example',
      'http://localhost:8788/billing',
      'javascript:alert(1)',
      'data:text/html,hi',
      ' /billing',
    ]) {
      expect(safeNextPath(raw, origin), raw).toBeNull()
    }
  })

  it('refuses the API and pages that would send the visitor round in a loop', () => {
    expect(safeNextPath('/api/me', origin)).toBeNull()
    expect(safeNextPath('/auth/confirm?token_hash=x', origin)).toBeNull()
    expect(safeNextPath('/auth/sign-in?next=/billing', origin)).toBeNull()
  })

  it('treats nothing, the root and non-ASCII as no destination', () => {
    expect(safeNextPath(null, origin)).toBeNull()
    expect(safeNextPath('', origin)).toBeNull()
    expect(safeNextPath('/', origin)).toBeNull()
    expect(safeNextPath('http://localhost:8787/', origin)).toBeNull()
    expect(safeNextPath('/bïlling', origin)).toBeNull()
  })
})

describe('withNext', () => {
  it('adds next as an encoded query parameter, or nothing', () => {
    expect(withNext('/auth/sign-up', '/billing?tab=a')).toBe(
      '/auth/sign-up?next=%2Fbilling%3Ftab%3Da',
    )
    expect(withNext('/auth/sign-up', null)).toBe('/auth/sign-up')
  })
})
