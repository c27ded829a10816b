import { afterEach, describe, expect, it, vi } from 'vitest'
import indexHtml from '../../index.html?raw'

/** The page's one inline script (the BFF allows it by its hash), run as the browser runs it. */
function runPageScript(): void {
  const scripts = [...indexHtml.matchAll(/<script>([\s\S]*?)<\/script>/g)]
  expect(scripts).toHaveLength(1)
  new Function(scripts[0]?.[1] ?? '')()
}

describe("the page's inline script", () => {
  afterEach(() => {
    vi.useRealTimers()
    vi.restoreAllMocks()
    localStorage.clear()
    delete document.documentElement.dataset.theme
  })

  it('applies the theme the visitor picked before the first paint', () => {
    localStorage.setItem('tessera.theme', 'dark')
    runPageScript()
    expect(document.documentElement.dataset.theme).toBe('dark')
  })

  it('ignores a stored theme it does not know, and storage it cannot read', () => {
    localStorage.setItem('tessera.theme', 'purple')
    runPageScript()
    expect(document.documentElement.dataset.theme).toBeUndefined()
    vi.spyOn(Storage.prototype, 'getItem').mockImplementation(() => {
      throw new DOMException('denied', 'SecurityError')
    })
    expect(() => runPageScript()).not.toThrow()
    expect(document.documentElement.dataset.theme).toBeUndefined()
  })

  it("readies number and date formatting in a task of its own, not during the page's parse", () => {
    vi.useFakeTimers()
    const { NumberFormat, DateTimeFormat } = Intl
    const numbers = vi.spyOn(Intl, 'NumberFormat').mockImplementation(function made(...args) {
      return new NumberFormat(...args)
    })
    const dates = vi.spyOn(Intl, 'DateTimeFormat').mockImplementation(function made(...args) {
      return new DateTimeFormat(...args)
    })
    runPageScript()
    expect(numbers).not.toHaveBeenCalled()
    expect(dates).not.toHaveBeenCalled()
    vi.runAllTimers()
    expect(numbers).toHaveBeenCalledTimes(1)
    expect(dates).toHaveBeenCalledTimes(1)
  })
})
