import { useEffect, useId, useRef, useState } from 'react'
import type { FormEvent, ReactNode, RefObject } from 'react'
import { CONVERSATION_TITLE_MAX_LENGTH } from '@tessera/contracts/assistant-values'
import type { ChatError } from '../../../lib/chat-errors.ts'
import { Icon } from '../../../lib/icon.tsx'
import { ShareLinkButton } from '../../share/components/share-link-button.tsx'

interface ConversationHeaderProps {
  title: string
  headingRef: RefObject<HTMLHeadingElement | null>
  /** Before the title: the phone layout's "Conversations" button. */
  start?: ReactNode
  /** Rename and Delete, for a conversation that exists; absent on the new-conversation page. */
  actions?: {
    /** The conversation's id: its author may share a public link to it. */
    id?: string
    rename: (title: string) => Promise<ChatError | null>
    remove: () => Promise<ChatError | null>
  }
  /** In a team workspace, the author's switch to share the conversation with its members. */
  share?: { shared: boolean; set: (shared: boolean) => Promise<ChatError | null> }
  /** Another member's shared conversation: who shared it (it is read-only here). */
  sharedBy?: string
}

type Step = 'idle' | 'renaming' | 'saving' | 'confirming' | 'deleting'

/**
 * The conversation's title (the page's h1) with Rename (inline, Enter saves, Escape cancels) and
 * Delete (asks first; Escape or Cancel goes back), returning focus where it came from.
 */
export function ConversationHeader({
  title,
  headingRef,
  start,
  actions,
  share,
  sharedBy,
}: ConversationHeaderProps) {
  const [step, setStep] = useState<Step>('idle')
  const [draft, setDraft] = useState(title)
  const [error, setError] = useState<string | null>(null)
  const inputId = useId()
  const errorId = `${inputId}-error`
  const inputRef = useRef<HTMLInputElement>(null)
  const confirmRef = useRef<HTMLButtonElement>(null)
  const renameRef = useRef<HTMLButtonElement>(null)
  const deleteRef = useRef<HTMLButtonElement>(null)
  const returnTo = useRef<'rename' | 'delete' | null>(null)

  useEffect(() => {
    if (step === 'renaming') inputRef.current?.select()
    if (step === 'confirming') confirmRef.current?.focus()
    if (step === 'idle' && returnTo.current !== null) {
      ;(returnTo.current === 'rename' ? renameRef : deleteRef).current?.focus()
      returnTo.current = null
    }
  }, [step])

  const back = (to: 'rename' | 'delete') => {
    returnTo.current = to
    setError(null)
    setStep('idle')
  }

  const save = async (event: FormEvent) => {
    event.preventDefault()
    if (actions === undefined || step === 'saving') return
    const next = draft.trim()
    if (next === '') {
      setError('Enter a title.')
      return
    }
    if (next === title) {
      back('rename')
      return
    }
    setStep('saving')
    const failure = await actions.rename(next)
    if (failure === null) back('rename')
    else {
      setError(failure.message)
      setStep('renaming')
    }
  }

  const remove = async () => {
    if (actions === undefined || step === 'deleting') return
    setStep('deleting')
    const failure = await actions.remove()
    // On success this header is gone with its conversation.
    if (failure !== null) {
      setError(failure.message)
      setStep('confirming')
    }
  }

  if (step === 'renaming' || step === 'saving') {
    return (
      <header className="chat-header">
        {start}
        <form
          className="rename"
          onSubmit={(event) => void save(event)}
          onKeyDown={(event) => {
            if (event.key === 'Escape') {
              event.preventDefault()
              back('rename')
            }
          }}
        >
          <label htmlFor={inputId} className="visually-hidden">
            Conversation title
          </label>
          <input
            ref={inputRef}
            id={inputId}
            className="rename__input"
            value={draft}
            maxLength={CONVERSATION_TITLE_MAX_LENGTH}
            onChange={(event) => setDraft(event.target.value)}
            aria-invalid={error ? true : undefined}
            aria-describedby={error ? errorId : undefined}
            readOnly={step === 'saving'}
          />
          <button
            type="submit"
            className="button button--primary button--small"
            disabled={step === 'saving'}
            aria-busy={step === 'saving'}
          >
            {step === 'saving' ? 'Saving…' : 'Save'}
          </button>
          <button
            type="button"
            className="button button--quiet button--small"
            onClick={() => back('rename')}
            disabled={step === 'saving'}
          >
            Cancel
          </button>
          {error && (
            <p id={errorId} className="rename__error" role="alert">
              {error}
            </p>
          )}
        </form>
      </header>
    )
  }

  return (
    <header className="chat-header">
      {start}
      <h1 ref={headingRef} tabIndex={-1} className="chat-header__title" title={title}>
        {title}
      </h1>
      {sharedBy !== undefined && (
        <p className="chat-header__note">Shared by {sharedBy} · read-only</p>
      )}
      {error && step === 'idle' && (
        <p className="rename__error" role="alert">
          {error}
        </p>
      )}
      {actions && step === 'idle' && (
        <div className="chat-header__actions">
          {share && (
            <label className="chat-header__share">
              <input
                type="checkbox"
                role="switch"
                checked={share.shared}
                onChange={(event) => {
                  setError(null)
                  void share.set(event.target.checked).then((failure) => {
                    if (failure !== null) setError(failure.message)
                  })
                }}
              />
              <span>Shared with team</span>
            </label>
          )}
          {actions.id !== undefined && <ShareLinkButton conversationId={actions.id} />}
          <button
            ref={renameRef}
            type="button"
            className="button button--quiet button--small"
            onClick={() => {
              setDraft(title)
              setError(null)
              setStep('renaming')
            }}
          >
            <Icon d="M4 20h4L19 9l-4-4L4 16v4ZM13.5 6.5l4 4" />
            <span className="chat-header__label">Rename</span>
          </button>
          <button
            ref={deleteRef}
            type="button"
            className="button button--quiet button--small button--danger-text"
            onClick={() => setStep('confirming')}
          >
            <Icon d="M4 7h16M10 11v6M14 11v6M6 7l1 13h10l1-13M9 7V4h6v3" />
            <span className="chat-header__label">Delete</span>
          </button>
        </div>
      )}
      {actions && (step === 'confirming' || step === 'deleting') && (
        <div
          className="confirm"
          role="group"
          aria-label="Delete this conversation?"
          onKeyDown={(event) => {
            if (event.key === 'Escape' && step === 'confirming') {
              event.preventDefault()
              back('delete')
            }
          }}
        >
          <p className="confirm__question">
            Delete this conversation? Its messages are deleted too; this cannot be undone.
          </p>
          {error && (
            <p className="confirm__error" role="alert">
              {error}
            </p>
          )}
          <div className="confirm__buttons">
            <button
              ref={confirmRef}
              type="button"
              className="button button--danger button--small"
              onClick={() => void remove()}
              disabled={step === 'deleting'}
              aria-busy={step === 'deleting'}
            >
              {step === 'deleting' && <span className="spinner" aria-hidden="true" />}
              {step === 'deleting' ? 'Deleting…' : 'Yes, delete'}
            </button>
            <button
              type="button"
              className="button button--quiet button--small"
              onClick={() => back('delete')}
              disabled={step === 'deleting'}
            >
              Cancel
            </button>
          </div>
        </div>
      )}
    </header>
  )
}
