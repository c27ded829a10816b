import { describe, expect, it } from 'vitest'
import {
  auditKinds as contractKinds,
  auditSources as contractSources,
} from '@tessera/contracts/console'
import { healthCheckSchema } from '@tessera/contracts/console'
import { auditKinds, auditSources, healthCheckLabels } from './vocabulary.ts'

describe('the console’s vocabulary', () => {
  it('names every audit kind and source the contracts define, and no other', () => {
    expect([...auditKinds].sort()).toEqual([...contractKinds].sort())
    expect([...auditSources].sort()).toEqual([...contractSources].sort())
  })

  it('names every dependency the health check reports', () => {
    expect(Object.keys(healthCheckLabels).sort()).toEqual(
      [...healthCheckSchema.shape.name.options].sort(),
    )
  })
})
