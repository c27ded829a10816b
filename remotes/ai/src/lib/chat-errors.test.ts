import { describe, expect, it, vi } from 'vitest'
import { ApiError } from '@tessera/contracts'
import { chatErrorOf, describeChatError, waitSentence } from './chat-errors.ts'

describe('describeChatError', () => {
  it('gives each model failure a sentence that says what to do next', () => {
    expect(describeChatError(new ApiError('model_busy'))).toMatchObject({
      message: 'The assistant is busy right now. Wait a moment, then try again.',
      actions: ['retry'],
    })
    expect(describeChatError(new ApiError('upstream_timeout')).message).toMatch(/Try again/)
    expect(describeChatError(new ApiError('answer_interrupted')).message).toMatch(
      /What arrived is kept; try again/,
    )
    expect(describeChatError(new ApiError('content_flagged')).actions).toEqual(['edit'])
    expect(describeChatError(new ApiError('quota_exceeded')).actions).toEqual(['plans'])
    expect(describeChatError(new ApiError('session_revoked')).actions).toEqual(['sign-in'])
    expect(describeChatError(new ApiError('not_found')).actions).toEqual(['new-conversation'])
  })

  it('says what a quota refusal’s own numbers say, counting the holds of answers in flight', () => {
    const usage = {
      used: 30_000,
      reserved: 4_559,
      limit: 50_000,
      periodStart: '2026-11-01T00:00:00.000Z',
      periodEnd: '2026-12-01T00:00:00.000Z',
    }
    const tooBig = describeChatError(
      new ApiError('quota_exceeded', { details: { ...usage, requested: 20_000 } }),
    )
    expect(tooBig.message.replace(/\u00a0/g, ' ')).toMatch(
      /^Only 15,441 of this month’s tokens are left: not enough for this message/,
    )
    expect(tooBig.message).not.toMatch(/used all/)
    expect(tooBig.actions).toEqual(['plans', 'new-conversation'])
    const gone = describeChatError(
      new ApiError('quota_exceeded', { details: { ...usage, used: 49_000, reserved: 0 } }),
    )
    expect(gone.message.replace(/\u00a0/g, ' ')).toMatch(
      /^You have used this month’s 50,000 tokens/,
    )
    expect(gone.actions).toEqual(['plans'])
  })

  it('says how long to wait when rate limited, and keeps the request id', () => {
    const error = describeChatError(
      new ApiError('rate_limited', { requestId: 'req-7', details: { retryAfterSeconds: 4.2 } }),
    )
    expect(error).toMatchObject({
      code: 'rate_limited',
      requestId: 'req-7',
      retryAfterSeconds: 5,
      message: 'You are sending messages faster than your plan allows. Try again in 5 seconds.',
    })
    expect(waitSentence(1)).toBe('Try again in 1 second.')
    expect(waitSentence(0)).toBe('You can try again now.')
  })

  it('puts the field issue of a refused message in its sentence', () => {
    const error = describeChatError(
      new ApiError('validation_failed', {
        details: { issues: [{ path: 'content', message: 'Write a message.' }] },
      }),
    )
    expect(error.message).toBe('Write a message. Edit it and send it again.')
  })

  it('waits as long as a busy model asks before Try again', () => {
    expect(chatErrorOf('model_busy', 'busy', 'r', { retryAfterSeconds: 3 }).retryAfterSeconds).toBe(
      3,
    )
    expect(chatErrorOf('upstream_timeout', 'slow', 'r').retryAfterSeconds).toBeNull()
  })

  it('says a dropped connection plainly, and logs it, when the failure is not in the catalogue', () => {
    const log = vi.spyOn(console, 'error').mockImplementation(() => undefined)
    expect(describeChatError(new TypeError('network error'))).toEqual({
      code: null,
      message:
        'The connection dropped before the answer finished. What arrived is kept; try again.',
      requestId: null,
      retryAfterSeconds: null,
      actions: ['retry'],
    })
    expect(log).toHaveBeenCalledOnce()
    log.mockRestore()
  })
})
