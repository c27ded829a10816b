import { useEffect, useRef, useState } from 'react'

export interface SupportReferenceProps {
  /** The request id the BFF answered with: what support looks the failure up by. */
  requestId: string
  /** The remote's own hook for placing it (`form-alert__reference`), beside the shared look. */
  className?: string | undefined
}

type CopyState = 'idle' | 'copied' | 'selected'

/** Selects the text of `element`, so the keyboard's copy takes it. */
function selectText(element: HTMLElement | null): boolean {
  const selection = typeof window === 'undefined' ? null : window.getSelection()
  if (element === null || selection === null) return false
  const range = document.createRange()
  range.selectNodeContents(element)
  selection.removeAllRanges()
  selection.addRange(range)
  return true
}

/**
 * The small print under a failure: "Reference c957…" and a Copy button, for quoting to support.
 * It is not part of the sentence, so the sentence reads (and is read out) as one for people.
 * Where the clipboard is not allowed (an http page, a refusal) the reference is selected instead.
 */
export function SupportReference({ requestId, className }: SupportReferenceProps) {
  const [copy, setCopy] = useState<CopyState>('idle')
  const idRef = useRef<HTMLElement>(null)
  useEffect(() => {
    if (copy === 'idle') return
    const timer = setTimeout(() => setCopy('idle'), 4000)
    return () => clearTimeout(timer)
  }, [copy])

  const onCopy = async () => {
    try {
      await navigator.clipboard.writeText(requestId)
      setCopy('copied')
    } catch (error) {
      console.warn('The reference could not be copied; it is selected instead', error)
      setCopy(selectText(idRef.current) ? 'selected' : 'idle')
    }
  }

  return (
    <p className={className ? `support-reference ${className}` : 'support-reference'}>
      Reference{' '}
      <code ref={idRef} className="support-reference__id">
        {requestId}
      </code>{' '}
      <button
        type="button"
        className="support-reference__copy"
        aria-label="Copy reference"
        onClick={() => void onCopy()}
      >
        Copy
      </button>{' '}
      <span className="support-reference__status" role="status">
        {copy === 'copied'
          ? 'Copied'
          : copy === 'selected'
            ? 'Selected: press Ctrl+C (⌘C) to copy'
            : ''}
      </span>
    </p>
  )
}
