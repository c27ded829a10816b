import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { createLoadOrder, whenContentPainted } from './load-order.ts'

/** Whether a promise has settled, after letting pending callbacks run. */
async function isSettled(promise: Promise<void>): Promise<boolean> {
  let settled = false
  void promise.then(() => {
    settled = true
  })
  await vi.advanceTimersByTimeAsync(0)
  return settled
}

describe('createLoadOrder', () => {
  beforeEach(() => {
    vi.useFakeTimers()
  })
  afterEach(() => {
    vi.useRealTimers()
  })

  it('holds the slots until the page releases them and the page has been idle once', async () => {
    const idle: Array<() => void> = []
    const order = createLoadOrder({ maxWaitMs: 1000, whenIdle: (callback) => idle.push(callback) })
    const slots = order.slotsMayLoad()
    await vi.advanceTimersByTimeAsync(999)
    expect(await isSettled(slots)).toBe(false)
    order.releaseSlots()
    // The page's plugin has only scheduled its render: the slots wait for it to run.
    expect(await isSettled(slots)).toBe(false)
    idle.forEach((callback) => callback())
    expect(await isSettled(slots)).toBe(true)
    // The longest wait is over with: no timer is left behind.
    expect(vi.getTimerCount()).toBe(0)
  })

  it('waits for an idle moment with a deadline, so a busy page does not hold the slots', async () => {
    const requestIdleCallback = vi.fn((callback: () => void, _options: { timeout: number }) => {
      callback()
      return 1
    })
    vi.stubGlobal('requestIdleCallback', requestIdleCallback)
    try {
      const order = createLoadOrder()
      order.releaseSlots()
      expect(await isSettled(order.slotsMayLoad())).toBe(true)
      expect(requestIdleCallback).toHaveBeenCalledWith(expect.any(Function), { timeout: 100 })
    } finally {
      vi.unstubAllGlobals()
    }
  })

  it('lets the slots go after the longest wait when the page never settles', async () => {
    const order = createLoadOrder({ maxWaitMs: 1000 })
    const slots = order.slotsMayLoad()
    await vi.advanceTimersByTimeAsync(999)
    expect(await isSettled(slots)).toBe(false)
    await vi.advanceTimersByTimeAsync(1)
    expect(await isSettled(slots)).toBe(true)
  })

  it('counts the longest wait from the first slot that asks, not from its creation', async () => {
    const order = createLoadOrder({ maxWaitMs: 1000 })
    await vi.advanceTimersByTimeAsync(5000)
    const slots = order.slotsMayLoad()
    expect(await isSettled(slots)).toBe(false)
    await vi.advanceTimersByTimeAsync(1000)
    expect(await isSettled(slots)).toBe(true)
  })

  it('stays open once released, for slots that ask later', async () => {
    const order = createLoadOrder({ maxWaitMs: 1000, whenIdle: (callback) => callback() })
    order.releaseSlots()
    expect(await isSettled(order.slotsMayLoad())).toBe(true)
    expect(vi.getTimerCount()).toBe(0)
  })
})

describe('whenContentPainted', () => {
  beforeEach(() => {
    vi.useFakeTimers()
  })
  afterEach(() => {
    vi.useRealTimers()
  })

  it('waits for a paint inside the page, not for the header or the loading line before it', async () => {
    const outlet = document.createElement('div')
    const loading = outlet.appendChild(document.createElement('p'))
    loading.setAttribute('role', 'status')
    const page = outlet.appendChild(document.createElement('h1'))
    const header = document.createElement('header')
    let report: (element: Element | null) => void = () => undefined
    const stop = vi.fn()
    const painted = whenContentPainted(outlet, {
      observe: (onElement) => {
        report = onElement
        return stop
      },
    })
    report(header)
    report(loading)
    report(null)
    expect(await isSettled(painted)).toBe(false)
    report(page)
    expect(await isSettled(painted)).toBe(true)
    expect(stop).toHaveBeenCalledTimes(1)
    expect(vi.getTimerCount()).toBe(0)
  })

  it('goes on at once where the browser reports no paints, and after a while at the latest', async () => {
    const outlet = document.createElement('div')
    expect(await isSettled(whenContentPainted(outlet, { observe: () => null }))).toBe(true)
    const stop = vi.fn()
    const painted = whenContentPainted(outlet, { observe: () => stop, maxWaitMs: 3000 })
    await vi.advanceTimersByTimeAsync(2999)
    expect(await isSettled(painted)).toBe(false)
    await vi.advanceTimersByTimeAsync(1)
    expect(await isSettled(painted)).toBe(true)
    expect(stop).toHaveBeenCalledTimes(1)
  })
})
