import { describe, expect, it } from 'vitest'
import { createManualClock } from '../testing.ts'
import { createRecentCache } from './recent-cache.ts'

describe('createRecentCache', () => {
  it('forgets a value once its lifetime has passed', () => {
    const clock = createManualClock()
    const cache = createRecentCache<number>({ max: 10, ttlMs: 1000, clock })
    cache.set('a', 1)
    clock.advance(999)
    expect(cache.get('a')).toBe(1)
    clock.advance(1)
    expect(cache.get('a')).toBeUndefined()
  })

  it('keeps at most max values, dropping the oldest', () => {
    const cache = createRecentCache<number>({ max: 2 })
    cache.set('a', 1)
    cache.set('b', 2)
    cache.set('a', 3)
    cache.set('c', 4)
    expect([cache.get('a'), cache.get('b'), cache.get('c')]).toEqual([3, undefined, 4])
  })

  it('drops the values a predicate picks', () => {
    const cache = createRecentCache<{ user: string }>({ max: 10 })
    cache.set('1', { user: 'ada' })
    cache.set('2', { user: 'bob' })
    cache.deleteWhere((value) => value.user === 'ada')
    expect([cache.get('1'), cache.get('2')]).toEqual([undefined, { user: 'bob' }])
  })
})
