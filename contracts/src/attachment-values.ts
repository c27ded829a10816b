// Plain values about attachments, with no zod: the plan catalogue (plan-values.ts) and pages that
// only show plans import them without bundling the schemas. `attachments.ts` re-exports them.

/** The longest file name kept (longer names are refused). */
export const ATTACHMENT_NAME_MAX_LENGTH = 200

/** The request header that names an uploaded file: its name, percent-encoded (UTF-8). */
export const ATTACHMENT_NAME_HEADER = 'X-Attachment-Name'

/** Attachments one send may name at most, whatever the plan (the plan's own count is lower). */
export const ATTACHMENT_IDS_MAX = 20

/** A plan's limits on attachments (`limits.attachments` in the plan catalogue). */
export interface AttachmentLimits {
  /** Files one message may carry. */
  perMessage: number
  /** The largest file, in bytes. */
  fileBytes: number
  /** Bytes uploaded per calendar month (UTC), deleted files included. */
  monthlyBytes: number
}

/** A size in bytes for people: 512 B, 1.5 MB (decimal units, as Storage counts them). */
export function formatBytes(bytes: number): string {
  if (bytes < 1000) return `${bytes} B`
  if (bytes < 1_000_000) return `${Math.round(bytes / 100) / 10} KB`
  if (bytes < 1_000_000_000) return `${Math.round(bytes / 100_000) / 10} MB`
  return `${Math.round(bytes / 100_000_000) / 10} GB`
}

/** The pricing page's line for a plan's attachment allowance, from the catalogue's numbers. */
export function attachmentFeature(limits: AttachmentLimits): string {
  return `Attach ${limits.perMessage} files a message: images, PDFs and text, ${formatBytes(limits.fileBytes)} each, ${formatBytes(limits.monthlyBytes)} a month`
}
