import { describe, expect, it } from 'vitest'
import { normalisePath, openToVisitors, remoteOwning, signInRemoteOf, subPathOf } from './paths.ts'

const auth = { name: 'auth', basePath: '/auth' }
const billing = { name: 'billing', basePath: '/billing', publicPaths: ['/plans'] }
const ai = { name: 'ai', basePath: '/assistant' }
const remotes = [auth, billing, ai]

describe('normalisePath', () => {
  it('gives each page one address', () => {
    expect(normalisePath('/billing/')).toBe('/billing')
    expect(normalisePath('//billing//plans')).toBe('/billing/plans')
    expect(normalisePath('/')).toBe('/')
    expect(normalisePath('')).toBe('/')
  })
})

describe('subPathOf', () => {
  it('answers null outside the base path', () => {
    expect(subPathOf('/auth/profile', '/billing')).toBeNull()
    expect(subPathOf('/auth/profile', '/auth')).toBe('/profile')
    expect(subPathOf('/authors', '/auth')).toBeNull()
    expect(subPathOf('/auth/', '/auth')).toBe('/')
  })
})

describe('the remote owning a path', () => {
  it('is the one whose base path holds it', () => {
    expect(remoteOwning('/billing/plans/', remotes)).toBe(billing)
    expect(remoteOwning('/', remotes)).toBeUndefined()
    expect(signInRemoteOf(remotes)).toBe(auth)
    expect(signInRemoteOf([billing, ai])).toBeUndefined()
  })
})

describe('pages open to visitors', () => {
  it('are the sign-in remote’s and the public paths', () => {
    expect(openToVisitors(auth, '/auth/sign-up', remotes)).toBe(true)
    expect(openToVisitors(billing, '/billing/plans', remotes)).toBe(true)
    expect(openToVisitors(billing, '/billing/plans/', remotes)).toBe(true)
    expect(openToVisitors(billing, '/billing', remotes)).toBe(false)
    expect(openToVisitors(ai, '/assistant', remotes)).toBe(false)
  })

  it('are every page when no remote owns the sign-in page', () => {
    expect(openToVisitors(ai, '/assistant', [billing, ai])).toBe(true)
  })
})
