import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { createNoticeStore } from './notices.ts'

describe('createNoticeStore', () => {
  beforeEach(() => {
    vi.useFakeTimers()
  })
  afterEach(() => {
    vi.useRealTimers()
  })

  it('dismisses info after its duration and errors only later', () => {
    const store = createNoticeStore({ durationMs: 5000, errorDurationMs: 12_000 })
    store.notify({ kind: 'info', message: 'Saved' })
    store.notify({ kind: 'error', message: 'Payment failed', code: 'upstream_unavailable' })
    vi.advanceTimersByTime(5000)
    expect(store.current().map((t) => t.message)).toEqual(['Payment failed'])
    vi.advanceTimersByTime(7000)
    expect(store.current()).toEqual([])
  })

  it('holds a toast while it is read and restarts its clock after', () => {
    const store = createNoticeStore({ durationMs: 1000 })
    const id = store.notify({ kind: 'success', message: 'Done' })
    store.hold(id)
    vi.advanceTimersByTime(5000)
    expect(store.current()).toHaveLength(1)
    store.release(id)
    vi.advanceTimersByTime(1000)
    expect(store.current()).toHaveLength(0)
  })

  it('keeps only the newest few', () => {
    const store = createNoticeStore({ max: 2 })
    for (const message of ['a', 'b', 'c']) store.notify({ kind: 'info', message }, 'billing')
    expect(store.current().map((t) => [t.message, t.source])).toEqual([
      ['b', 'billing'],
      ['c', 'billing'],
    ])
  })
})
