import { FIRST_READS_ELEMENT_ID, type InlinedRead } from '@tessera/contracts'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { answeringFirstReads, takeFirstReads } from './first-reads.ts'

const origin = 'https://app.example.com'

function pageWith(text: string): Document {
  const element = document.createElement('script')
  element.type = 'application/json'
  element.id = FIRST_READS_ELEMENT_ID
  element.textContent = text
  document.head.append(element)
  return document
}

afterEach(() => document.getElementById(FIRST_READS_ELEMENT_ID)?.remove())

describe('takeFirstReads', () => {
  it('reads the page’s answers and takes the block out of it', () => {
    const me = { status: 200, headers: { 'content-type': 'application/json' }, body: '{}' }
    const reads = takeFirstReads(pageWith(JSON.stringify({ '/api/me': me })))
    expect([...reads]).toEqual([['/api/me', me]])
    expect(document.getElementById(FIRST_READS_ELEMENT_ID)).toBeNull()
  })

  it('keeps only answers it can rebuild, and none from a block that is not JSON', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined)
    const reads = takeFirstReads(
      pageWith(
        JSON.stringify({
          '/api/a': { status: 200, headers: {}, body: '{}' },
          '/api/b': { status: 99, headers: {}, body: '{}' },
          '/api/c': { status: 200, headers: { n: 1 }, body: '{}' },
          '/api/d': { status: 200, headers: {} },
        }),
      ),
    )
    expect([...reads.keys()]).toEqual(['/api/a'])
    expect(takeFirstReads(pageWith('{not json')).size).toBe(0)
    expect(warn).toHaveBeenCalledOnce()
    expect(takeFirstReads(document).size).toBe(0)
    warn.mockRestore()
  })
})

describe('answeringFirstReads', () => {
  const reads = () =>
    new Map<string, InlinedRead>([
      [
        '/api/me',
        {
          status: 200,
          headers: { 'content-type': 'application/json', 'tessera-events-position': '7' },
          body: '{"user":null}',
        },
      ],
      ['/api/list?limit=20', { status: 401, headers: {}, body: '{"error":{}}' }],
    ])

  it('answers the first GET of each from the page, as the server did, and the rest from the network', async () => {
    const network = vi.fn(async (input: string) => new Response(`network ${input}`))
    const fetch = answeringFirstReads(network, reads(), origin)

    const me = await fetch(`${origin}/api/me`, { credentials: 'include' })
    expect(me.status).toBe(200)
    expect(me.headers.get('Tessera-Events-Position')).toBe('7')
    expect(await me.json()).toEqual({ user: null })
    const list = await fetch(`${origin}/api/list?limit=20`, { method: 'get' })
    expect(list.status).toBe(401)
    expect(list.ok).toBe(false)
    expect(network).not.toHaveBeenCalled()

    // Once each: the next read of it is the network's, as is any other path, method or origin.
    expect(await (await fetch(`${origin}/api/me`)).text()).toBe(`network ${origin}/api/me`)
    await fetch(`${origin}/api/list`)
    await fetch(`${origin}/api/list?limit=20`)
    expect(network).toHaveBeenCalledTimes(3)
  })

  it('never answers a write, another origin’s read or an aborted one from the page', async () => {
    const network = vi.fn(async () => new Response('network'))
    const fetch = answeringFirstReads(network, reads(), origin)
    await fetch(`${origin}/api/me`, { method: 'POST', body: '{}' })
    await fetch('https://elsewhere.example/api/me')
    expect(network).toHaveBeenCalledTimes(2)
    const controller = new AbortController()
    controller.abort()
    await expect(fetch(`${origin}/api/me`, { signal: controller.signal })).rejects.toThrow()
  })

  it('is the network fetch itself when the page answered nothing', () => {
    const network = async () => new Response('')
    expect(answeringFirstReads(network, new Map(), origin)).toBe(network)
  })
})
