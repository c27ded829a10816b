import { describe, expect, it } from 'vitest'
import { noStore } from './no-store.ts'
import { bareApp } from '../../testing/middleware-app.ts'

describe('noStore', () => {
  it('marks answers and errors alike as not to be stored', async () => {
    const app = bareApp()
      .use(noStore())
      .get('/ok', (c) => c.json({ ok: true }))
      .get('/fails', () => {
        throw new Error('boom')
      })
    for (const path of ['/ok', '/fails'])
      expect((await app.request(path)).headers.get('cache-control')).toBe('no-store')
  })
})
