/**
 * Wires the assistant page's store to the user's live events so that answers streaming in
 * another tab, or started here before a reload, are followed (answer-follow.ts).
 */
import {
  ANSWER_DELTA_EVENT_TYPE,
  ANSWER_DONE_EVENT_TYPE,
} from '@tessera/contracts/assistant-live-values'
import type { Platform } from '@tessera/contracts/platform'
import { AnswerFollower, asAnswerDelta, asAnswerDone, type FollowTarget } from './answer-follow.ts'
import type { AssistantState, ThreadState } from './chat-state.ts'

/** The live events the store listens to: the platform's, or a test's. */
export type LiveEvents = Pick<Platform['events'], 'subscribe' | 'status' | 'onStatus'>

/** The follower over the store's state: `reread` reads a conversation again and shows it. */
export function createAnswerFollower(store: {
  state(): AssistantState
  setThread(id: string, change: (thread: ThreadState) => ThreadState): void
  reread(id: string): Promise<void>
}): AnswerFollower {
  const target: FollowTarget = {
    messages: (id) => {
      const thread = store.state().threads[id]
      return thread?.status === 'ready' ? thread.messages : null
    },
    // This tab streams an answer of a conversation it is sending in: its own stream has it all.
    isOwn: (messageId) =>
      Object.values(store.state().threads).some(
        (thread) => thread.sending !== null && thread.messages.some((m) => m.id === messageId),
      ),
    setContent: (id, messageId, content) =>
      store.setThread(id, (thread) => ({
        ...thread,
        messages: thread.messages.map((m) => (m.id === messageId ? { ...m, content } : m)),
      })),
    replace: (id, message) =>
      store.setThread(id, (thread) => ({
        ...thread,
        messages: thread.messages.map((m) => (m.id === message.id ? message : m)),
      })),
    reread: store.reread,
  }
  return new AnswerFollower(target)
}

/** Whether a conversation shows an answer that is still streaming. */
export const hasStreamingAnswer = (thread: ThreadState): boolean =>
  thread.messages.some((m) => m.role === 'assistant' && m.status === 'streaming')

/** Whether a conversation shows an answer streaming that this tab follows (not its own send). */
export const isFollowing = (thread: ThreadState | undefined): boolean =>
  thread !== undefined && thread.sending === null && hasStreamingAnswer(thread)

/**
 * Listens to the answers' live events; after a reconnection (replayed from `Last-Event-ID`, or
 * not: `resync`), reads again the conversations whose answer was streaming, in case its end was
 * missed. Returns the function that stops listening.
 */
export function followLiveAnswers(
  events: LiveEvents,
  follower: AnswerFollower,
  store: { state(): AssistantState; reread(id: string): Promise<void> },
): () => void {
  const rereadStreaming = () => {
    for (const thread of Object.values(store.state().threads))
      if (thread.status === 'ready' && thread.sending === null && hasStreamingAnswer(thread))
        void store.reread(thread.id).then(() => follower.settle(thread.id))
  }
  let previous = events.status()
  const offs = [
    events.subscribe(ANSWER_DELTA_EVENT_TYPE, (event) => {
      const delta = asAnswerDelta(event.data)
      if (delta !== null) follower.delta(delta)
    }),
    events.subscribe(ANSWER_DONE_EVENT_TYPE, (event) => {
      const done = asAnswerDone(event.data)
      if (done !== null) follower.done(done)
    }),
    events.onStatus((status) => {
      if (status === 'open' && previous === 'reconnecting') rereadStreaming()
      previous = status
    }),
  ]
  return () => {
    for (const off of offs) off()
  }
}
