import { useEffect, useMemo, useRef, useState } from 'react'
import type { ShareLink } from '@tessera/contracts/assistant-share'
import { asApiError } from '@tessera/plugin-react/api-error'
import { usePlatform } from '@tessera/plugin-react/platform'
import { copyShareUrl, createShareApi, shareUrl } from '../share-api.ts'
import '../share.css'

type LinkState =
  | { status: 'loading' }
  | { status: 'none' }
  | { status: 'shared'; link: ShareLink }
  | { status: 'failed'; message: string }

/**
 * The share panel under "Share link": makes a read-only public link, copies it, or stops sharing
 * it. What the link shows is the conversation as it is when
 * opened, so later messages appear there too; it never shows an email.
 */
export function SharePanel({
  conversationId,
  panelId,
  onClose,
}: {
  conversationId: string
  panelId: string
  /** Escape: the panel closes and focus returns to its button. */
  onClose: () => void
}) {
  const platform = usePlatform()
  const api = useMemo(() => createShareApi(platform), [platform])
  const [state, setState] = useState<LinkState>({ status: 'loading' })
  const [busy, setBusy] = useState(false)
  const [note, setNote] = useState('')
  const panelRef = useRef<HTMLDivElement>(null)
  // The latest `onClose`, so a new one each render does not reload the link.
  const closeRef = useRef(onClose)
  useEffect(() => {
    closeRef.current = onClose
  }, [onClose])

  const fail = (error: unknown, fallback: string) =>
    setState({ status: 'failed', message: asApiError(error)?.message ?? fallback })

  useEffect(() => {
    setNote('')
    setState({ status: 'loading' })
    let current = true
    api.list().then(
      (links) => {
        if (!current) return
        const link = links.find((candidate) => candidate.conversationId === conversationId)
        setState(link === undefined ? { status: 'none' } : { status: 'shared', link })
      },
      (error: unknown) => {
        if (current) fail(error, 'Your shared links could not be loaded. Try again.')
      },
    )
    panelRef.current?.focus()
    const onKey = (event: KeyboardEvent) => {
      if (event.key === 'Escape') closeRef.current()
    }
    document.addEventListener('keydown', onKey)
    return () => {
      current = false
      document.removeEventListener('keydown', onKey)
    }
  }, [api, conversationId])

  const create = async () => {
    setBusy(true)
    try {
      const link = await api.share(conversationId)
      setState({ status: 'shared', link })
      setNote((await copyShareUrl(link)) ? 'Link made and copied.' : 'Link made. Copy it below.')
    } catch (error) {
      fail(error, 'The link could not be made. Try again.')
    } finally {
      setBusy(false)
    }
  }

  const revoke = async () => {
    setBusy(true)
    try {
      await api.revoke(conversationId)
      setState({ status: 'none' })
      setNote('The link no longer works.')
    } catch (error) {
      fail(error, 'The link could not be stopped. Try again.')
    } finally {
      setBusy(false)
    }
  }

  return (
    <div
      ref={panelRef}
      id={panelId}
      className="share-link__panel"
      role="group"
      aria-label="Public link"
      tabIndex={-1}
    >
      <p className="share-link__about">
        Anyone with the link can read this conversation, as it is when they open it, without signing
        in. Your email is never shown.
      </p>
      {state.status === 'loading' && (
        <p className="muted" role="status">
          <span className="spinner" aria-hidden="true" /> Checking for a link…
        </p>
      )}
      {state.status === 'failed' && <p role="alert">{state.message}</p>}
      {state.status === 'none' && (
        <button
          type="button"
          className="button button--primary button--small"
          onClick={() => void create()}
          disabled={busy}
          aria-busy={busy}
        >
          {busy ? 'Making the link…' : 'Create link'}
        </button>
      )}
      {state.status === 'shared' && (
        <>
          <label className="share-link__field">
            <span>Link</span>
            <input
              type="text"
              readOnly
              value={shareUrl(state.link)}
              onFocus={(e) => e.target.select()}
            />
          </label>
          <div className="share-link__buttons">
            <button
              type="button"
              className="button button--primary button--small"
              onClick={() =>
                void copyShareUrl(state.link).then((copied) =>
                  setNote(
                    copied ? 'Link copied.' : 'Copying was refused: select the link and copy it.',
                  ),
                )
              }
            >
              Copy link
            </button>
            <button
              type="button"
              className="button button--secondary button--small"
              onClick={() => void revoke()}
              disabled={busy}
            >
              Stop sharing
            </button>
          </div>
        </>
      )}
      <p className="share-link__note" role="status">
        {note}
      </p>
    </div>
  )
}
