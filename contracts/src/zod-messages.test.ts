import { describe, expect, it } from 'vitest'
import { z } from 'zod/mini'

describe('zod messages', () => {
  it('are zod’s English sentences once the module is imported', async () => {
    const schema = z.object({ a: z.string(), b: z.int().check(z.lte(3)) })
    await import('./zod-messages.ts')
    const issues = z.safeParse(schema, { a: 1, b: 5 }).error?.issues.map((i) => i.message)
    expect(issues).toEqual([
      'Invalid input: expected string, received number',
      'Too big: expected number to be <=3',
    ])
  })
})
