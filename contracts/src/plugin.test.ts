import { describe, expect, it } from 'vitest'
import { asPlugin, CONTRACT_MAJOR, CONTRACT_MINOR, definePlugin, slotNames } from './plugin.ts'

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
    ['commands that are not a list', { name: 'x', contract: 1, commands: { id: 'a' } }],
  ])('refuses %s', (_what, value) => {
    expect(asPlugin(value)).toBeNull()
  })
})

describe('the contract version', () => {
  it('added the 1.1 slots and commands, the 1.2 audience and the 1.3 signed-in slots as minors: the major stays 1', () => {
    expect(CONTRACT_MAJOR).toBe(1)
    expect(CONTRACT_MINOR).toBe(3)
    expect(slotNames).toEqual(['header.end', 'account.section', 'home.card'])
  })

  it('accepts a plugin with commands and the new slots', () => {
    const plugin = definePlugin({
      name: 'notes',
      contract: CONTRACT_MAJOR,
      slots: { 'account.section': () => () => undefined, 'home.card': () => () => undefined },
      commands: [{ id: 'new-note', label: 'New note', run: () => undefined }],
    })
    expect(asPlugin(plugin)).toBe(plugin)
  })
})
