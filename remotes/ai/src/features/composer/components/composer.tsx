import { useId, useState } from 'react'
import type {
  ClipboardEvent,
  DragEvent,
  FormEvent,
  KeyboardEvent,
  ReactNode,
  RefObject,
} from 'react'
import { MESSAGE_MAX_LENGTH } from '@tessera/contracts/assistant-values'
import { formatCount } from '@tessera/plugin-react/format'
import '../composer.css'
import { Icon } from '../../../lib/icon.tsx'
import { AttachButton, AttachmentTray } from '../../attachments/components/attachment-tray.tsx'
import type { AttachmentDraft } from '../../attachments/use-attachment-draft.ts'

/** The counter appears once a message is this close to the limit. */
const COUNT_FROM = Math.floor(MESSAGE_MAX_LENGTH * 0.85)

interface ComposerProps {
  value: string
  onValue: (value: string) => void
  onSend: (text: string) => void
  onStop: () => void
  /** An answer is on its way: Send becomes Stop. */
  sending: boolean
  /** Why nothing can be sent now (the month's tokens are gone); the text stays editable. */
  blocked?: ReactNode
  textareaRef: RefObject<HTMLTextAreaElement | null>
  /** The model picker, shown under the box (model-picker.tsx). */
  picker?: ReactNode
  /** Files for the next message (attach by button, drag and drop, or paste); none without it. */
  attachments?: AttachmentDraft
}

/**
 * Where a message is written. Enter sends and Shift+Enter starts a new line (except while an IME
 * is composing a character); while an answer streams, Send becomes Stop and Escape stops it.
 */
export function Composer({
  value,
  onValue,
  onSend,
  onStop,
  sending,
  blocked,
  textareaRef,
  picker,
  attachments,
}: ComposerProps) {
  const id = useId()
  const hintId = `${id}-hint`
  const countId = `${id}-count`
  const length = value.length
  const over = length - MESSAGE_MAX_LENGTH
  const empty = value.trim() === ''
  const [dropping, setDropping] = useState(false)
  const filesWait = attachments !== undefined && (attachments.uploading || attachments.failed)
  const canSend = !sending && !empty && over <= 0 && !blocked && !filesWait
  const hasFiles = (event: DragEvent) => event.dataTransfer.types.includes('Files')
  const onDragOver = (event: DragEvent<HTMLFormElement>) => {
    if (attachments === undefined || !hasFiles(event)) return
    event.preventDefault()
    setDropping(true)
  }
  const onDrop = (event: DragEvent<HTMLFormElement>) => {
    setDropping(false)
    if (attachments === undefined || event.dataTransfer.files.length === 0) return
    event.preventDefault()
    attachments.add(event.dataTransfer.files)
  }
  const onPaste = (event: ClipboardEvent<HTMLTextAreaElement>) => {
    // A pasted screenshot or file is attached; pasted text goes in the message as usual.
    if (attachments === undefined || event.clipboardData.files.length === 0) return
    event.preventDefault()
    attachments.add(event.clipboardData.files)
  }

  const submit = (event?: FormEvent) => {
    event?.preventDefault()
    if (canSend) onSend(value)
  }

  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key === 'Escape' && sending) {
      event.preventDefault()
      onStop()
      return
    }
    if (event.key !== 'Enter' || event.shiftKey || event.nativeEvent.isComposing) return
    // Enter never adds a line: it sends, or does nothing while it cannot.
    event.preventDefault()
    submit()
  }

  return (
    <form
      className={dropping ? 'composer composer--dropping' : 'composer'}
      onSubmit={submit}
      aria-label="Write a message"
      onDragOver={onDragOver}
      onDragLeave={() => setDropping(false)}
      onDrop={onDrop}
    >
      {blocked && <div className="composer__blocked">{blocked}</div>}
      {attachments && <AttachmentTray draft={attachments} />}
      <div className={over > 0 ? 'composer__box composer__box--invalid' : 'composer__box'}>
        {attachments && <AttachButton draft={attachments} disabled={sending} />}
        <label htmlFor={id} className="visually-hidden">
          Message to the assistant
        </label>
        <textarea
          ref={textareaRef}
          id={id}
          className="composer__input"
          rows={1}
          value={value}
          placeholder="Message the assistant…"
          onChange={(event) => onValue(event.target.value)}
          onKeyDown={onKeyDown}
          onPaste={onPaste}
          aria-describedby={length >= COUNT_FROM ? `${hintId} ${countId}` : hintId}
          aria-invalid={over > 0 ? true : undefined}
          enterKeyHint="send"
        />
        <div className="composer__actions">
          {sending ? (
            <button
              type="button"
              className="composer__button composer__button--stop"
              onClick={onStop}
            >
              <svg viewBox="0 0 16 16" width="12" height="12" aria-hidden="true">
                <rect x="2" y="2" width="12" height="12" rx="2" fill="currentColor" />
              </svg>
              Stop
            </button>
          ) : (
            <button type="submit" className="composer__button" disabled={!canSend}>
              <Icon d="M12 19V5M5 12l7-7 7 7" strokeWidth={2.2} />
              Send
            </button>
          )}
        </div>
      </div>
      <div className="composer__footer">
        {picker}
        <p id={hintId} className="composer__hint">
          {sending
            ? 'Answering… Press Stop or Escape to stop; what arrived is kept.'
            : attachments?.failed
              ? 'Remove the files that were not attached to send.'
              : attachments?.uploading
                ? 'Sending your files… you can send once they are attached.'
                : 'Enter to send, Shift+Enter for a new line.'}
        </p>
        {length >= COUNT_FROM && (
          <p
            id={countId}
            className={over > 0 ? 'composer__count composer__count--over' : 'composer__count'}
            aria-live="polite"
          >
            {over > 0
              ? `${formatCount(over)} ${over === 1 ? 'character' : 'characters'} over the ${formatCount(MESSAGE_MAX_LENGTH)} limit: shorten the message to send it.`
              : `${formatCount(length)} of ${formatCount(MESSAGE_MAX_LENGTH)} characters`}
          </p>
        )}
      </div>
    </form>
  )
}
