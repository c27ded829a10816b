import { memo } from 'react'
import type { ChatMessage } from '@tessera/contracts/assistant'
import { formatCount } from '@tessera/plugin-react/format'
import { MarkdownView } from '../../markdown/components/markdown.tsx'
import { MessageAttachments } from '../../attachments/components/message-attachments.tsx'

/** What a message's status means to the reader, when it is not simply complete. */
function statusNote(
  message: ChatMessage,
  live: boolean,
): { label: string; detail: string | null } | null {
  if (message.role === 'user') {
    return message.status === 'failed' ? { label: 'Not sent', detail: null } : null
  }
  switch (message.status) {
    case 'partial':
      return message.error === null
        ? { label: 'Stopped', detail: 'The answer was stopped here; what arrived is kept.' }
        : { label: 'Cut off', detail: message.error.message }
    case 'failed':
      return { label: 'No answer', detail: message.error?.message ?? null }
    case 'streaming':
      return live
        ? null
        : {
            label: 'Still being written',
            detail: 'This answer was being written when the page loaded. Reload to see the rest.',
          }
    default:
      return null
  }
}

/** One message: the person's as plain text, the assistant's as safe Markdown. */
export const MessageItem = memo(function MessageItem({
  message,
  live,
  failureShown = false,
}: {
  message: ChatMessage
  /** This answer is streaming now. */
  live: boolean
  /** The failure panel below says what went wrong with this answer: the badge alone is enough. */
  failureShown?: boolean
}) {
  const note = statusNote(message, live)
  if (message.role === 'user') {
    return (
      <li
        className={
          message.status === 'failed'
            ? 'message message--user message--unsent'
            : 'message message--user'
        }
        data-message-id={message.id}
      >
        {message.attachments && message.attachments.length > 0 && (
          <MessageAttachments attachments={message.attachments} />
        )}
        <article className="message__bubble" aria-label="You wrote">
          <p className="message__text">{message.content}</p>
        </article>
        {note && <p className="message__status message__status--danger">{note.label}</p>}
      </li>
    )
  }
  const thinking = live && message.content === ''
  return (
    <li className="message message--assistant" data-message-id={message.id}>
      <span className="message__avatar" aria-hidden="true" />
      <article
        className="message__body"
        aria-label="The assistant answered"
        aria-busy={live || undefined}
      >
        {thinking ? <Typing /> : <MarkdownView text={message.content} live={live} />}
        {note && (
          <p className={`message__status message__status--${message.status}`}>
            <span className="message__badge">{note.label}</span>
            {note.detail && !failureShown && <span className="message__detail">{note.detail}</span>}
          </p>
        )}
        {!live && message.status === 'complete' && message.usage && (
          <p className="message__meta">
            {message.model && <span>{message.model}</span>}
            <span>
              {formatCount(message.usage.totalTokens)} tokens
              {message.usage.estimated ? ' (estimated)' : ''}
            </span>
          </p>
        )}
      </article>
    </li>
  )
})

function Typing() {
  return (
    <p className="typing">
      <span className="typing__dots" aria-hidden="true">
        <span />
        <span />
        <span />
      </span>
      <span className="typing__text">Thinking…</span>
    </p>
  )
}

/** The answer's place while the server has not started it yet. */
export function ThinkingItem() {
  return (
    <li className="message message--assistant">
      <span className="message__avatar" aria-hidden="true" />
      <div className="message__body" aria-busy="true">
        <Typing />
      </div>
    </li>
  )
}
