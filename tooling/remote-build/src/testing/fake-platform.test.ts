import { describe, expect, it } from 'vitest'
import type { LiveEvent } from '@tessera/contracts'
import { createFakePlatform } from './fake-platform.ts'

describe('createFakePlatform', () => {
  it('delivers an emitted event to listeners of its type and of every type', () => {
    const platform = createFakePlatform()
    const typed: LiveEvent[] = []
    const all: LiveEvent[] = []
    platform.events.subscribe('plan.changed', (event) => typed.push(event))
    platform.events.subscribe('*', (event) => all.push(event))
    platform.emit({ type: 'plan.changed', data: { plan: 'pro' } })
    platform.emit({ type: 'other', data: null })
    expect(typed.map((event) => event.type)).toEqual(['plan.changed'])
    expect(all.map((event) => event.type)).toEqual(['plan.changed', 'other'])
    expect(all[0]?.id).not.toBe(all[1]?.id)
  })

  it('counts listeners until they unsubscribe', () => {
    const platform = createFakePlatform()
    const stops = [
      platform.events.subscribe('*', () => {}),
      platform.session.subscribe(() => {}),
      platform.theme.subscribe(() => {}),
      platform.route.subscribe(() => {}),
    ]
    expect(platform.listenerCount()).toBe(4)
    for (const stop of stops) stop()
    expect(platform.listenerCount()).toBe(0)
  })

  it('records notices and navigations and tells subscribers about new state', () => {
    const platform = createFakePlatform({ remote: { name: 'billing', version: '1.0.0' } })
    const seen: string[] = []
    platform.session.subscribe((state, event) => seen.push(`${state.status}:${event ?? '-'}`))
    platform.theme.subscribe((theme) => seen.push(theme))
    platform.route.subscribe((route) => seen.push(route))

    platform.setSession(
      { status: 'signed-in', user: { id: 'u1', email: 'a@example.com', displayName: null } },
      'SIGNED_IN',
    )
    platform.setTheme('dark')
    platform.setRoute('/plans')
    platform.notify({ kind: 'info', message: 'hi' })
    platform.navigate('/billing/plans', { replace: true })

    expect(seen).toEqual(['signed-in:SIGNED_IN', 'dark', '/plans'])
    expect(platform.basePath).toBe('/billing')
    expect(platform.session.current().status).toBe('signed-in')
    expect(platform.notices).toEqual([{ kind: 'info', message: 'hi' }])
    expect(platform.navigations).toEqual([{ to: '/billing/plans', replace: true }])
  })
})
