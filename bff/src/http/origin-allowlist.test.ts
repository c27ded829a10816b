import { describe, expect, it } from 'vitest'
import { createOriginAllowlist } from './origin-allowlist.ts'

describe('createOriginAllowlist', () => {
  it('allows exactly the listed origins', () => {
    const origins = createOriginAllowlist(['http://localhost:5173'])
    expect(origins.allows('http://localhost:5173')).toBe(true)
    expect(origins.allows('http://localhost:5174')).toBe(false)
    expect(origins.allows('null')).toBe(false)
  })

  it('adds an origin by its normalised form', () => {
    const origins = createOriginAllowlist([])
    origins.add('http://127.0.0.1:4000/some/path')
    expect(origins.allows('http://127.0.0.1:4000')).toBe(true)
    expect(origins.list()).toEqual(['http://127.0.0.1:4000'])
  })
})
