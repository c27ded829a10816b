import type { ChatMessage } from '@tessera/contracts/assistant'
import { asApiError } from '@tessera/plugin-react/api-error'
import type { ChatStreamEvent } from '../../lib/assistant-api.ts'
import { chatErrorOf, type ChatError } from '../../lib/chat-errors.ts'
import {
  markUnsent,
  shorten,
  type AssistantState,
  type ListState,
  type ThreadState,
} from './chat-state.ts'

/** What applying a send's events may change in the store. */
export interface ThreadWriter {
  state(): AssistantState
  setThread(id: string, change: (thread: ThreadState) => ThreadState): void
  setList(change: Partial<ListState>): void
  announce(text: string): void
  /** Gathers a delta of an answer, rendered with the next flush. */
  addDelta(id: string, messageId: string, text: string): void
  /** Forgets a conversation's gathered deltas. */
  dropDeltas(id: string): void
  /** Renders the gathered deltas now. */
  flush(): void
}

/** A send in flight: the local copy of the message, its text, and the answer once named. */
export interface SendInFlight {
  localUserId: string
  content: string
  assistantId: string | null
}

function replaceMessage(
  writer: ThreadWriter,
  id: string,
  messageId: string,
  change: (message: ChatMessage) => ChatMessage,
) {
  writer.setThread(id, (t) => ({
    ...t,
    messages: t.messages.map((m) => (m.id === messageId ? change(m) : m)),
  }))
}

/** Applies one stream event of a send in conversation `id`; returns the id of the answer being written. */
export function applyStreamEvent(
  writer: ThreadWriter,
  id: string,
  send: SendInFlight,
  event: ChatStreamEvent,
): string | null {
  const { localUserId, content, assistantId } = send
  switch (event.type) {
    case 'message': {
      const { user, assistant, conversation } = event.data
      writer.setThread(id, (t) => ({
        ...t,
        conversation,
        messages: [...t.messages.filter((m) => m.id !== localUserId), user, assistant],
      }))
      // The first message names the conversation: the list shows the name at once.
      writer.setList({
        conversations: writer
          .state()
          .list.conversations.map((c) => (c.id === conversation.id ? conversation : c)),
      })
      return assistant.id
    }
    case 'delta': {
      if (assistantId === null) return null
      writer.addDelta(id, assistantId, event.data.text)
      return assistantId
    }
    case 'usage': {
      if (assistantId === null) return null
      writer.flush()
      replaceMessage(writer, id, assistantId, (m) => ({ ...m, usage: event.data }))
      return assistantId
    }
    case 'done': {
      writer.dropDeltas(id)
      const { message } = event.data
      replaceMessage(writer, id, assistantId ?? message.id, () => message)
      writer.announce(`The assistant answered: ${shorten(message.content)}`)
      return message.id
    }
    case 'error': {
      writer.flush()
      const { code, message, requestId, assistant, retryAfterSeconds } = event.data
      const error = chatErrorOf(
        code,
        message,
        requestId,
        retryAfterSeconds === undefined ? undefined : { retryAfterSeconds },
      )
      writer.setThread(id, (t) => {
        const messages =
          assistant === null
            ? t.messages.filter((m) => m.id !== assistantId)
            : t.messages.map((m) => (m.id === (assistantId ?? assistant.id) ? assistant : m))
        return {
          ...t,
          messages: markUnsent(messages, localUserId),
          failure: { error, content },
        }
      })
      writer.announce(error.message)
      return assistant?.id ?? assistantId
    }
  }
}

/** A send that failed outside the stream's own `error` event (refused, or the connection dropped). */
export function failSend(
  writer: ThreadWriter,
  id: string,
  send: SendInFlight,
  error: ChatError,
  cause?: unknown,
) {
  const { localUserId, content, assistantId } = send
  writer.flush()
  // A connection that dropped mid-answer leaves the answer partial, as the BFF stores it.
  const interrupted = asApiError(cause) === null
  writer.setThread(id, (t) => ({
    ...t,
    messages: markUnsent(t.messages, localUserId).map((m) =>
      m.id === assistantId && m.status === 'streaming'
        ? {
            ...m,
            status: m.content === '' ? 'failed' : 'partial',
            error: interrupted ? { code: 'answer_interrupted', message: error.message } : null,
          }
        : m,
    ),
    failure: { error, content },
  }))
  writer.announce(error.message)
}

/** A send the person stopped: the answer so far is kept as partial. */
export function markStopped(writer: ThreadWriter, id: string, assistantId: string | null) {
  writer.setThread(id, (t) => ({
    ...t,
    messages: t.messages.map((m) =>
      m.id === assistantId && m.status === 'streaming'
        ? { ...m, status: 'partial', error: null }
        : m,
    ),
    failure: null,
  }))
  writer.announce('Stopped. The answer so far is kept.')
}
