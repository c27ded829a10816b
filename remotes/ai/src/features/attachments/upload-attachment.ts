import type { Attachment } from '@tessera/contracts/attachments'
import { ATTACHMENT_NAME_HEADER } from '@tessera/contracts/attachment-values'

/** Why an upload failed, in the catalogue's words (what to do next included). */
export class UploadError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message)
    this.name = 'UploadError'
  }
}

/** Where the BFF serves an attachment back to its owner. */
export const attachmentUrl = (baseUrl: string, id: string): string =>
  new URL(`/api/assistant/attachments/${encodeURIComponent(id)}`, baseUrl).toString()

const unreachable = () =>
  new UploadError(
    'upstream_unavailable',
    'The file could not be sent: the Tessera server could not be reached. Check your connection and try again.',
  )

/**
 * Uploads one file to the BFF (`POST /api/assistant/attachments`, the file as the body), telling
 * `onProgress` the share sent so far. XMLHttpRequest, not fetch: only it reports upload progress.
 */
export function uploadAttachment(
  baseUrl: string,
  file: File,
  onProgress: (sent: number) => void,
  signal: AbortSignal,
): Promise<Attachment> {
  return new Promise((resolve, reject) => {
    const request = new XMLHttpRequest()
    request.open('POST', new URL('/api/assistant/attachments', baseUrl).toString())
    request.withCredentials = true
    request.responseType = 'json'
    request.setRequestHeader('x-tessera-csrf', '1')
    request.setRequestHeader('accept', 'application/json')
    request.setRequestHeader('content-type', 'application/octet-stream')
    request.setRequestHeader(ATTACHMENT_NAME_HEADER, encodeURIComponent(file.name))
    request.upload.onprogress = (event) => {
      if (event.lengthComputable && event.total > 0) onProgress(event.loaded / event.total)
    }
    request.onload = () => {
      const body = request.response as {
        attachment?: Attachment
        error?: { code: string; message: string }
      } | null
      if (request.status === 201 && body?.attachment !== undefined) resolve(body.attachment)
      else if (body?.error !== undefined)
        reject(new UploadError(body.error.code, body.error.message))
      else reject(unreachable())
    }
    request.onerror = () => reject(unreachable())
    request.onabort = () => reject(new DOMException('The upload was cancelled.', 'AbortError'))
    signal.addEventListener('abort', () => request.abort(), { once: true })
    request.send(file)
  })
}
