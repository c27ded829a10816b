import { describe, expect, it } from 'vitest'
import { createManualClock } from '../testing/app.ts'
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

  it('shares one load among the calls made while it is in flight, and keeps its value', async () => {
    const clock = createManualClock()
    const cache = createRecentCache<string>({ max: 10, ttlMs: 1000, clock })
    let loads = 0
    const load = async () => {
      loads++
      await Promise.resolve()
      return `value ${loads}`
    }
    const burst = await Promise.all(Array.from({ length: 5 }, () => cache.getOrLoad('k', load)))
    expect(burst).toEqual(Array(5).fill('value 1'))
    expect(await cache.getOrLoad('k', load)).toBe('value 1')
    expect(loads).toBe(1)
    clock.advance(1000)
    expect(await cache.getOrLoad('k', load)).toBe('value 2')
  })

  it('neither keeps nor shares a load that was in flight when the cache changed', async () => {
    const cache = createRecentCache<string>({ max: 10 })
    let finishFirst!: (value: string) => void
    const first = cache.getOrLoad('k', () => new Promise((resolve) => (finishFirst = resolve)))
    // A write through this process while the first read is on its way.
    cache.delete('k')
    const second = cache.getOrLoad('k', async () => 'after the change')
    finishFirst('before the change')
    expect(await first).toBe('before the change')
    expect(await second).toBe('after the change')
    expect(cache.get('k')).toBe('after the change')
  })

  it('keeps nothing when a load finds nothing or fails, and loads again next time', async () => {
    const cache = createRecentCache<string>({ max: 10 })
    expect(await cache.getOrLoad('k', async () => null)).toBeNull()
    await expect(cache.getOrLoad('k', () => Promise.reject(new Error('down')))).rejects.toThrow(
      'down',
    )
    expect(await cache.getOrLoad('k', async () => 'found')).toBe('found')
  })
})
