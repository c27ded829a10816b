import { memo, useRef, useState } from 'react'
import type { ChatMessage } from '@tessera/contracts/assistant'
import { deferred } from '@tessera/plugin-react/deferred'
import { formatCount } from '@tessera/plugin-react/format'
import { MessageAttachments } from '../../attachments/components/message-attachments.tsx'
import type { MessageActions } from '../branch-actions.ts'

// The Markdown renderer is two thirds of the page's JS and a new conversation shows none: it loads
// after the first route (its JS budget), and an answer shows as written until it has come.
const MarkdownView = deferred(() =>
  import('../../markdown/components/markdown.tsx').then((m) => m.MarkdownView),
)

// Loaded after the first route (its JS budget): the actions appear a moment after the thread.
const MessageToolbar = deferred(() => import('./message-actions.tsx').then((m) => m.MessageToolbar))
const MessageEditor = deferred(() => import('./message-actions.tsx').then((m) => m.MessageEditor))

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
  actions,
  last = false,
}: {
  message: ChatMessage
  /** This answer is streaming now. */
  live: boolean
  /** The failure panel below says what went wrong with this answer: the badge alone is enough. */
  failureShown?: boolean
  /** Edit, regenerate and page versions; absent while an answer streams or when read-only. */
  actions?: MessageActions | undefined
  /** The thread's last message. */
  last?: boolean
}) {
  const note = statusNote(message, live)
  const [editing, setEditing] = useState(false)
  const editButton = useRef<HTMLDivElement>(null)
  const closeEditor = () => {
    setEditing(false)
    // Focus goes back to the Edit button once it is shown again.
    requestAnimationFrame(() => editButton.current?.querySelector('button')?.focus())
  }
  if (message.role === 'user') {
    const editable =
      actions !== undefined && message.status === 'complete' && !message.id.startsWith('local-')
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
        {editing && actions ? (
          <MessageEditor
            initial={message.content}
            onClose={closeEditor}
            onSave={(content) => {
              setEditing(false)
              actions.edit(message.id, content)
            }}
          />
        ) : (
          <article className="message__bubble" aria-label="You wrote">
            <p className="message__text">{message.content}</p>
          </article>
        )}
        {note && <p className="message__status message__status--danger">{note.label}</p>}
        {!editing && (
          <div ref={editButton} className="message__toolbar">
            <MessageToolbar
              message={message}
              actions={actions}
              last={last}
              onEdit={editable ? () => setEditing(true) : undefined}
            />
          </div>
        )}
      </li>
    )
  }
  const thinking = live && message.content === ''
  return (
    <li className="message message--assistant" data-message-id={message.id}>
      <span className="message__avatar" aria-hidden="true" />
      <div className="message__body">
        <article aria-label="The assistant answered" aria-busy={live || undefined}>
          {thinking ? (
            <Typing />
          ) : (
            <MarkdownView
              text={message.content}
              live={live}
              fallback={<p className="message__text">{message.content}</p>}
            />
          )}
          {note && (
            <p className={`message__status message__status--${message.status}`}>
              <span className="message__badge">{note.label}</span>
              {note.detail && !failureShown && (
                <span className="message__detail">{note.detail}</span>
              )}
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
        {/* Beside the answer, not in it: the answer's text is the answer alone. */}
        {!live && <MessageToolbar message={message} actions={actions} last={last} />}
      </div>
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
