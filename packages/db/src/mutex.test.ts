import { describe, expect, it } from 'vitest'
import { Mutex } from './mutex.ts'

const tick = () => new Promise<void>((resolve) => setImmediate(resolve))

describe('Mutex', () => {
  it('grants the lock in the order it was asked for, one holder at a time', async () => {
    const mutex = new Mutex()
    const order: string[] = []
    let holders = 0
    const hold = (name: string) =>
      mutex.run(async () => {
        holders++
        expect(holders).toBe(1)
        order.push(`${name} in`)
        await tick()
        order.push(`${name} out`)
        holders--
      })
    await Promise.all([hold('a'), hold('b'), hold('c')])
    expect(order).toEqual(['a in', 'a out', 'b in', 'b out', 'c in', 'c out'])
  })

  it('releases the lock when the holder throws', async () => {
    const mutex = new Mutex()
    await expect(mutex.run(() => Promise.reject(new Error('boom')))).rejects.toThrow('boom')
    expect(await mutex.run(async () => 'next')).toBe('next')
  })

  it('with nested-use detection, throws when a holder asks for the lock again', async () => {
    const mutex = new Mutex({ detectNestedUse: true })
    expect(mutex.detectsNestedUse).toBe(true)
    await expect(mutex.run(() => mutex.run(async () => 'inner'))).rejects.toThrow(
      /already in use by this call chain/,
    )
    // Outside any hold, and after the failed one, the lock is free.
    expect(mutex.heldHere).toBe(false)
    expect(await mutex.run(async () => 'after')).toBe('after')
  })

  it('with nested-use detection, lets work a holder left running take the lock after it', async () => {
    const mutex = new Mutex({ detectNestedUse: true })
    let later: Promise<string> | undefined
    let releaseOuter!: () => void
    const outerMayEnd = new Promise<void>((resolve) => {
      releaseOuter = resolve
    })
    await mutex.run(async () => {
      expect(mutex.heldHere).toBe(true)
      // Fire-and-forget: it asks for the lock once the hold that started it has ended.
      later = outerMayEnd.then(() => mutex.run(async () => 'later'))
    })
    releaseOuter()
    expect(await later).toBe('later')
  })

  it('without detection, does not track holders: a nested request queues behind its holder', async () => {
    const mutex = new Mutex()
    expect(mutex.detectsNestedUse).toBe(false)
    const events: string[] = []
    let inner: Promise<void> | undefined
    await mutex.run(async () => {
      expect(mutex.heldHere).toBe(false)
      inner = mutex.run(async () => {
        events.push('inner')
      })
      await tick()
      events.push('outer done')
    })
    await inner
    expect(events).toEqual(['outer done', 'inner'])
  })
})
