import { useId, useRef } from 'react'
import { formatBytes } from '@tessera/contracts/attachment-values'
import { Icon } from '../../../lib/icon.tsx'
import type { AttachmentDraft, DraftFile } from '../use-attachment-draft.ts'
import '../attachments.css'

/** What the file picker offers; anything else is still checked (and refused) by the BFF. */
const ACCEPT =
  'image/png,image/jpeg,image/webp,image/gif,application/pdf,text/*,.md,.csv,.json,.ts,.tsx,.js,.py,.go,.rs,.java,.c,.cpp,.sql,.yaml,.yml,.toml'

/** The paper-clip button that opens the file picker. */
export function AttachButton({ draft, disabled }: { draft: AttachmentDraft; disabled: boolean }) {
  const input = useRef<HTMLInputElement>(null)
  const id = useId()
  return (
    <>
      <input
        ref={input}
        id={id}
        type="file"
        multiple
        accept={ACCEPT}
        className="visually-hidden"
        tabIndex={-1}
        aria-hidden="true"
        onChange={(event) => {
          if (event.target.files !== null) draft.add(event.target.files)
          event.target.value = ''
        }}
      />
      <button
        type="button"
        className="composer__attach"
        aria-label="Attach files"
        title="Attach files (images, PDFs, text)"
        disabled={disabled}
        onClick={() => input.current?.click()}
      >
        <Icon d="M21 12.5l-8.5 8.5a5.5 5.5 0 01-7.8-7.8l9-9a3.7 3.7 0 015.2 5.2l-9 9a1.8 1.8 0 01-2.6-2.6l8.3-8.3" />
      </button>
    </>
  )
}

function chipStatus(file: DraftFile): string {
  if (file.status === 'uploading') return `Uploading, ${Math.round(file.progress * 100)}%`
  if (file.status === 'failed') return 'Not attached'
  return 'Attached'
}

/** The files of the message being written: a chip each, with its progress or its refusal. */
export function AttachmentTray({ draft }: { draft: AttachmentDraft }) {
  if (draft.files.length === 0) return null
  return (
    <ul className="attachment-tray" aria-label="Attached files">
      {draft.files.map((file) => (
        <li
          key={file.key}
          className={`attachment-chip attachment-chip--${file.status}`}
          aria-busy={file.status === 'uploading' || undefined}
        >
          {file.preview !== null ? (
            <img className="attachment-chip__thumb" src={file.preview} alt="" />
          ) : (
            <span className="attachment-chip__icon" aria-hidden="true">
              <Icon d="M14 3H6a2 2 0 00-2 2v14a2 2 0 002 2h12a2 2 0 002-2V9zM14 3v6h6" />
            </span>
          )}
          <span className="attachment-chip__text">
            <span className="attachment-chip__name">{file.name}</span>
            <span className="attachment-chip__meta">
              {formatBytes(file.size)} · {chipStatus(file)}
            </span>
            {file.status === 'uploading' && (
              <progress
                className="attachment-chip__progress"
                value={file.progress}
                max={1}
                aria-label={`Uploading ${file.name}`}
              />
            )}
            {file.error !== null && (
              <span className="attachment-chip__error" role="alert">
                {file.name}: {file.error}
              </span>
            )}
          </span>
          <button
            type="button"
            className="attachment-chip__remove"
            aria-label={`Remove ${file.name}`}
            onClick={() => draft.remove(file.key)}
          >
            <Icon d="M6 6l12 12M18 6L6 18" />
          </button>
        </li>
      ))}
    </ul>
  )
}
