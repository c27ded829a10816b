import { useId, useRef, useState } from 'react'
import { Icon } from '../../../lib/icon.tsx'
import { SharePanel } from './share-panel.tsx'

/**
 * The author's "Share link" in the conversation's header: opens the panel (share-panel.tsx) that
 * makes a read-only public link, copies it, or stops sharing it.
 */
export function ShareLinkButton({ conversationId }: { conversationId: string }) {
  const [open, setOpen] = useState(false)
  const panelId = useId()
  const buttonRef = useRef<HTMLButtonElement>(null)
  return (
    <div style={{ position: 'relative' }}>
      <button
        ref={buttonRef}
        type="button"
        className="button button--quiet button--small"
        aria-expanded={open}
        aria-controls={open ? panelId : undefined}
        onClick={() => setOpen((value) => !value)}
      >
        <Icon d="M10 14a4 4 0 0 0 5.7 0l3-3a4 4 0 0 0-5.7-5.7l-1 1M14 10a4 4 0 0 0-5.7 0l-3 3a4 4 0 0 0 5.7 5.7l1-1" />
        <span className="chat-header__label">Share link</span>
      </button>
      {open && (
        <SharePanel
          conversationId={conversationId}
          panelId={panelId}
          onClose={() => {
            setOpen(false)
            buttonRef.current?.focus()
          }}
        />
      )}
    </div>
  )
}
