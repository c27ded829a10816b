import { useCallback, useEffect, useMemo, useRef, useState } from 'react'
import type { Attachment } from '@tessera/contracts/attachments'
import { UploadError, attachmentUrl, uploadAttachment } from './upload-attachment.ts'

/** One file on its way into the next message. */
export interface DraftFile {
  key: string
  name: string
  size: number
  /** The uploaded image, read back through the BFF, for the chip (the CSP allows no blob: URLs). */
  preview: string | null
  status: 'uploading' | 'ready' | 'failed'
  /** 0–1 while uploading. */
  progress: number
  attachment: Attachment | null
  error: string | null
}

let keys = 0

/**
 * The files attached to the message being written: each uploads as soon as it is added (its chip
 * shows progress), and a refusal stays on its chip with the BFF's sentence until removed.
 */
export function useAttachmentDraft(baseUrl: string) {
  const [files, setFiles] = useState<DraftFile[]>([])
  const uploads = useRef(new Map<string, AbortController>())

  const update = useCallback(
    (key: string, change: Partial<DraftFile>) =>
      setFiles((current) =>
        current.map((file) => (file.key === key ? { ...file, ...change } : file)),
      ),
    [],
  )

  const add = useCallback(
    (list: Iterable<File>) => {
      for (const file of list) {
        const key = `draft-${++keys}`
        const controller = new AbortController()
        uploads.current.set(key, controller)
        setFiles((current) => [
          ...current,
          {
            key,
            name: file.name,
            size: file.size,
            preview: null,
            status: 'uploading',
            progress: 0,
            attachment: null,
            error: null,
          },
        ])
        uploadAttachment(baseUrl, file, (progress) => update(key, { progress }), controller.signal)
          .then((attachment) =>
            update(key, {
              status: 'ready',
              progress: 1,
              attachment,
              preview: attachment.kind === 'image' ? attachmentUrl(baseUrl, attachment.id) : null,
            }),
          )
          .catch((error: unknown) => {
            if (controller.signal.aborted) return
            update(key, {
              status: 'failed',
              error:
                error instanceof UploadError
                  ? error.message
                  : 'The file could not be sent. Try again.',
            })
          })
          .finally(() => uploads.current.delete(key))
      }
    },
    [baseUrl, update],
  )

  const remove = useCallback((key: string) => {
    uploads.current.get(key)?.abort()
    setFiles((current) => current.filter((file) => file.key !== key))
  }, [])

  /** Empties the draft once its files went with a message. */
  const clear = useCallback(() => setFiles([]), [])

  useEffect(() => {
    const pending = uploads.current
    return () => {
      for (const controller of pending.values()) controller.abort()
    }
  }, [])

  return useMemo(() => {
    const ready = files.flatMap((file) => (file.attachment === null ? [] : [file.attachment]))
    return {
      files,
      add,
      remove,
      clear,
      ready,
      /** The attached files, for a send; the draft starts empty again. */
      take: () => {
        clear()
        return ready
      },
      uploading: files.some((file) => file.status === 'uploading'),
      failed: files.some((file) => file.status === 'failed'),
    }
  }, [files, add, remove, clear])
}

export type AttachmentDraft = ReturnType<typeof useAttachmentDraft>
