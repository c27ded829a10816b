import { describe, expect, it } from 'vitest'
import * as contract from '@tessera/contracts/assistant'
import * as local from './contract-values.ts'

describe('contract values', () => {
  it('match the contract they copy', () => {
    expect(local.MESSAGE_MAX_LENGTH).toBe(contract.MESSAGE_MAX_LENGTH)
    expect(local.CONVERSATION_TITLE_MAX_LENGTH).toBe(contract.CONVERSATION_TITLE_MAX_LENGTH)
    expect(local.USAGE_EVENT_TYPE).toBe(contract.USAGE_EVENT_TYPE)
  })
})
