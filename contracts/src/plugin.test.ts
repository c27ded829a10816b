import { describe, expect, it } from 'vitest'
import { asPlugin, CONTRACT_MAJOR, definePlugin } from './plugin.ts'

describe('asPlugin', () => {
  const mount = () => () => undefined

  it('accepts what definePlugin declares', () => {
    const plugin = definePlugin({ name: 'billing', contract: CONTRACT_MAJOR, routes: { mount } })
    expect(asPlugin(plugin)).toBe(plugin)
  })

  it('accepts a slot-only plugin', () => {
    expect(asPlugin({ name: 'badge', contract: 1, slots: { 'header.end': mount } })).not.toBeNull()
  })

  it.each([
    ['nothing', undefined],
    ['a string', 'plugin'],
    ['a plugin without a name', { contract: 1 }],
    ['a plugin whose contract is not a number', { name: 'x', contract: '1' }],
    ['routes without mount', { name: 'x', contract: 1, routes: {} }],
    ['slots that are not an object', { name: 'x', contract: 1, slots: 'header.end' }],
  ])('refuses %s', (_what, value) => {
    expect(asPlugin(value)).toBeNull()
  })
})
