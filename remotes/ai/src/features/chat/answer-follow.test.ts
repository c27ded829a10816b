import type { ChatMessage } from '@tessera/contracts/assistant'
import type { AnswerDelta } from '@tessera/contracts/assistant-live'
import { describe, expect, it } from 'vitest'
import {
  AnswerFollower,
  asAnswerDelta,
  asAnswerDone,
  extendAnswer,
  extendWith,
  type FollowTarget,
} from './answer-follow.ts'

const answer = 'The tide rises twice a day because the moon pulls the sea.'
/** The answer cut into batches at `cuts`, each with its offset. */
function batches(cuts: number[], messageId = 'a1'): AnswerDelta[] {
  const ends = [...cuts, answer.length]
  return ends.map((end, index) => {
    const offset = index === 0 ? 0 : ends[index - 1]!
    return { conversationId: 'c1', messageId, offset, text: answer.slice(offset, end) }
  })
}

describe('extendAnswer', () => {
  it('extends the text with a batch that starts at its end', () => {
    expect(extendAnswer('The tide', { offset: 8, text: ' rises' })).toBe('The tide rises')
  })
  it('keeps the text when a batch holds nothing new (a repeat, or text read from the row)', () => {
    expect(extendAnswer('The tide rises', { offset: 8, text: ' rises' })).toBe('The tide rises')
    expect(extendAnswer('The tide rises', { offset: 0, text: 'The' })).toBe('The tide rises')
  })
  it('applies only the part of an overlapping batch past the end, so no word shows twice', () => {
    expect(extendAnswer('The tide ri', { offset: 8, text: ' rises twice' })).toBe(
      'The tide rises twice',
    )
  })
  it('refuses a batch that starts past the end: the one before it is missing', () => {
    expect(extendAnswer('The', { offset: 8, text: ' rises' })).toBeNull()
  })
})

describe('extendWith', () => {
  it('gives the whole answer from batches in any order, repeated, with no duplicate and no gap', () => {
    const all = batches([5, 13, 20, 31, 44])
    const shuffled = [all[3]!, all[0]!, all[5]!, all[1]!, all[1]!, all[4]!, all[2]!, all[0]!]
    expect(extendWith('', shuffled)).toEqual({ text: answer, waiting: [] })
  })
  it('starts from the text read from the row, and keeps what lies past a gap waiting', () => {
    const all = batches([5, 13, 20, 31, 44])
    const { text, waiting } = extendWith(answer.slice(0, 16), [all[0]!, all[2]!, all[4]!])
    expect(text).toBe(answer.slice(0, 20))
    expect(waiting).toEqual([all[4]])
    expect(extendWith(text, [...waiting, all[3]!, all[5]!]).text).toBe(answer)
  })
})

describe('the live event data', () => {
  it('accepts a well-formed batch and end, and refuses anything else', () => {
    expect(asAnswerDelta({ conversationId: 'c', messageId: 'm', offset: 3, text: 'x' })).toEqual({
      conversationId: 'c',
      messageId: 'm',
      offset: 3,
      text: 'x',
    })
    expect(asAnswerDelta({ conversationId: 'c', messageId: 'm', offset: -1, text: 'x' })).toBeNull()
    expect(
      asAnswerDelta({ conversationId: 'c', messageId: 'm', offset: 1.5, text: 'x' }),
    ).toBeNull()
    expect(asAnswerDelta('text')).toBeNull()
    expect(asAnswerDone({ conversationId: 'c', message: { id: 'm', role: 'user' } })).toBeNull()
  })
})

/** A store of one conversation, as the follower sees it. */
function storeOf(messages: ChatMessage[], options: { own?: string; ready?: boolean } = {}) {
  const state = { messages, ready: options.ready ?? true, rereads: 0, renders: 0 }
  let stored: ChatMessage[] = messages
  const target: FollowTarget = {
    messages: (id) => (id === 'c1' && state.ready ? state.messages : null),
    isOwn: (id) => id === options.own,
    setContent: (_id, messageId, content) => {
      state.renders += 1
      state.messages = state.messages.map((m) => (m.id === messageId ? { ...m, content } : m))
    },
    replace: (_id, message) => {
      state.renders += 1
      state.messages = state.messages.map((m) => (m.id === message.id ? message : m))
    },
    reread: () => {
      state.rereads += 1
      state.messages = stored
      state.ready = true
      return Promise.resolve()
    },
  }
  return {
    state,
    follower: new AnswerFollower(target),
    /** What a read of the conversation would give now. */
    store: (next: ChatMessage[]) => {
      stored = next
    },
  }
}

const streaming = (content: string, id = 'a1'): ChatMessage => ({
  id,
  role: 'assistant',
  content,
  status: 'streaming',
  model: 'gpt-4o-mini',
  usage: null,
  error: null,
  createdAt: '2026-11-26T14:00:00.000Z',
})
const question: ChatMessage = { ...streaming('Why tides?', 'u1'), role: 'user', status: 'complete' }

describe('AnswerFollower', () => {
  it('extends an answer read from the row with the batches past it, applying each once', () => {
    const { state, follower } = storeOf([question, streaming(answer.slice(0, 16))])
    for (const delta of batches([5, 13, 20, 31, 44])) follower.delta(delta)
    // A batch delivered twice (a reconnect that replays it) changes nothing.
    follower.delta(batches([5, 13, 20, 31, 44])[3]!)
    expect(state.messages[1]?.content).toBe(answer)
    expect(state.rereads).toBe(0)
  })

  it('keeps batches that come while the conversation loads, and applies them once it is shown', () => {
    const { state, follower } = storeOf([], { ready: false })
    const all = batches([5, 13, 20, 31, 44])
    for (const delta of all.slice(2)) follower.delta(delta)
    // The read took place before the last batches were stored.
    state.messages = [question, streaming(answer.slice(0, 13))]
    state.ready = true
    follower.settle('c1')
    expect(state.messages[1]?.content).toBe(answer)
  })

  it('never shortens what it heard when an older read is shown again', () => {
    const { state, follower } = storeOf([question, streaming('')])
    for (const delta of batches([5, 13, 20])) if (delta.offset < 20) follower.delta(delta)
    expect(state.messages[1]?.content).toBe(answer.slice(0, 20))
    state.messages = [question, streaming(answer.slice(0, 5))]
    follower.settle('c1')
    expect(state.messages[1]?.content).toBe(answer.slice(0, 20))
  })

  it('reads the conversation again for an answer begun after it was read, then follows it', async () => {
    const { state, follower, store } = storeOf([question])
    store([question, streaming(answer.slice(0, 13), 'a2')])
    for (const delta of batches([13, 31], 'a2').slice(1)) follower.delta(delta)
    await Promise.resolve()
    await Promise.resolve()
    expect(state.rereads).toBe(1)
    expect(state.messages[1]?.content).toBe(answer)
  })

  it('shows the stored end once, and ignores batches that come after it', () => {
    const { state, follower } = storeOf([question, streaming(answer.slice(0, 5))])
    const end = { ...streaming(answer), status: 'complete' as const }
    follower.done({ conversationId: 'c1', message: end })
    follower.done({ conversationId: 'c1', message: end })
    follower.delta(batches([5, 13])[1]!)
    expect(state.messages).toEqual([question, end])
  })

  it('shows the end to a read that was older than it', () => {
    const { state, follower } = storeOf([], { ready: false })
    const end = { ...streaming(answer), status: 'partial' as const }
    follower.done({ conversationId: 'c1', message: end })
    state.messages = [question, streaming(answer.slice(0, 5))]
    state.ready = true
    follower.settle('c1')
    expect(state.messages[1]).toEqual(end)
  })

  it('leaves the answer this tab streams itself to its own stream', () => {
    const { state, follower } = storeOf([question, streaming('The')], { own: 'a1' })
    follower.delta(batches([5, 13])[0]!)
    follower.done({ conversationId: 'c1', message: { ...streaming(answer), status: 'complete' } })
    expect(state.messages[1]?.content).toBe('The')
    expect(state.renders).toBe(0)
  })
})
