import { useRef, useState } from 'react'
import type { ChatMessage } from '@tessera/contracts/assistant'
import { CopyButton } from '../../markdown/components/markdown.tsx'
import type { MessageActions } from '../branch-actions.ts'
import '../message-actions.css'

/** A message's row of actions: Edit or Regenerate and Copy, and the pager through its versions. */
export function MessageToolbar({
  message,
  actions,
  last,
  onEdit,
}: {
  message: ChatMessage
  actions: MessageActions | undefined
  /** The thread's last message: an answer there can be regenerated. */
  last: boolean
  /** Opens the editor (the person's own messages). */
  onEdit?: (() => void) | undefined
}) {
  const copyable = message.role === 'assistant' && message.status === 'complete'
  const regenerable = actions !== undefined && message.role === 'assistant' && last
  if (!copyable && !regenerable && !onEdit && !(actions && message.versions)) return null
  return (
    <div className="message__actions">
      {actions && message.versions && message.versions.length > 1 && (
        <VersionPager message={message} versions={message.versions} actions={actions} />
      )}
      {onEdit && (
        <button type="button" className="message__action" onClick={onEdit}>
          Edit
        </button>
      )}
      {copyable && (
        <CopyButton
          text={message.content}
          className="message__action"
          failed="Copy failed — select the text to copy it"
        />
      )}
      {regenerable && (
        <button
          type="button"
          className="message__action"
          onClick={() => actions.regenerate(message.id)}
        >
          Regenerate
        </button>
      )}
    </div>
  )
}

function VersionPager({
  message,
  versions,
  actions,
}: {
  message: ChatMessage
  versions: string[]
  actions: MessageActions
}) {
  const at = versions.indexOf(message.id)
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<string | null>(null)
  const ref = useRef<HTMLDivElement>(null)
  const go = async (step: -1 | 1) => {
    const target = versions[at + step]
    if (target === undefined || busy) return
    setBusy(true)
    setError(null)
    const failure = await actions.showVersion(target)
    // The shown version is a new message in the thread: focus moves to its pager.
    const pager = document.querySelector(`[data-message-id="${CSS.escape(target)}"] .pager`)
    const buttons = [...(pager?.querySelectorAll('button:not(:disabled)') ?? [])]
    const next = buttons.find((b) => b.getAttribute('data-step') === String(step)) ?? buttons[0]
    if (next instanceof HTMLElement) next.focus()
    if (ref.current === null) return
    setBusy(false)
    setError(failure?.message ?? null)
  }
  return (
    <div ref={ref} className="pager" role="group" aria-label="Versions">
      <button
        type="button"
        className="message__action"
        aria-label="Previous version"
        data-step="-1"
        disabled={at <= 0 || busy}
        onClick={() => void go(-1)}
      >
        ‹
      </button>
      <span aria-hidden="true">
        {at + 1} / {versions.length}
      </span>
      <span className="visually-hidden">
        Version {at + 1} of {versions.length}
      </span>
      <button
        type="button"
        className="message__action"
        aria-label="Next version"
        data-step="1"
        disabled={at >= versions.length - 1 || busy}
        onClick={() => void go(1)}
      >
        ›
      </button>
      {error && (
        <p className="message__status message__status--danger" role="alert">
          {error}
        </p>
      )}
    </div>
  )
}

/** Edits a sent question in place: Save sends it as a new version; Escape or Cancel closes. */
export function MessageEditor({
  initial,
  onSave,
  onClose,
}: {
  initial: string
  onSave: (content: string) => void
  onClose: () => void
}) {
  const [text, setText] = useState(initial)
  const content = text.trim()
  return (
    <form
      className="message__editor"
      onSubmit={(event) => {
        event.preventDefault()
        if (content !== '') onSave(content)
      }}
    >
      <textarea
        aria-label="Edit your message"
        value={text}
        rows={3}
        // The editor opens on the person's request, so focus goes to it.
        autoFocus
        onChange={(event) => setText(event.target.value)}
        onKeyDown={(event) => {
          if (event.key === 'Escape') {
            event.preventDefault()
            onClose()
          }
        }}
      />
      <div className="message__editor-buttons">
        <button type="button" className="button button--secondary button--small" onClick={onClose}>
          Cancel
        </button>
        <button
          type="submit"
          className="button button--primary button--small"
          disabled={content === ''}
        >
          Save
        </button>
      </div>
    </form>
  )
}
