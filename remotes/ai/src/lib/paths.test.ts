import { describe, expect, it } from 'vitest'
import { assistantRoutes, conversationIdOf } from './paths.ts'

describe('conversationIdOf', () => {
  it('reads the new-conversation page, a conversation, and anything else as not found', () => {
    expect(conversationIdOf('/')).toBeNull()
    const id = '49e8ae5b-20cc-4375-93c6-96c30057c75c'
    expect(conversationIdOf(assistantRoutes.conversation(id))).toBe(id)
    expect(conversationIdOf(`/conversations/${id}/`)).toBe(id)
    expect(conversationIdOf('/usage')).toBeUndefined()
    expect(conversationIdOf('/conversations/')).toBeUndefined()
    expect(conversationIdOf('/conversations/%E0%A4%A')).toBeUndefined()
  })
})
