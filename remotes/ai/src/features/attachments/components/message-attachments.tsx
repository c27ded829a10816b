import type { Attachment } from '@tessera/contracts/attachments'
import { formatBytes } from '@tessera/contracts/attachment-values'
import { usePlatform } from '@tessera/plugin-react/platform'
import { Icon } from '../../../lib/icon.tsx'
import { attachmentUrl } from '../upload-attachment.ts'
import '../attachments.css'

const kindLabel = { image: 'Image', pdf: 'PDF', text: 'Text' } as const

/** The files sent with a message: thumbnails for images, chips for the rest; each opens its file. */
export function MessageAttachments({ attachments }: { attachments: readonly Attachment[] }) {
  const platform = usePlatform()
  const href = (attachment: Attachment) => attachmentUrl(platform.api.baseUrl, attachment.id)
  return (
    <ul className="message-attachments" aria-label="Files sent">
      {attachments.map((attachment) => (
        <li key={attachment.id}>
          <a
            className={`message-attachment message-attachment--${attachment.kind}`}
            href={href(attachment)}
            target="_blank"
            rel="noopener"
          >
            {attachment.kind === 'image' ? (
              <img
                className="message-attachment__thumb"
                src={href(attachment)}
                alt=""
                width={attachment.width ?? undefined}
                height={attachment.height ?? undefined}
                loading="lazy"
              />
            ) : (
              <span className="message-attachment__icon" aria-hidden="true">
                <Icon d="M14 3H6a2 2 0 00-2 2v14a2 2 0 002 2h12a2 2 0 002-2V9zM14 3v6h6" />
              </span>
            )}
            <span className="message-attachment__text">
              <span className="message-attachment__name">{attachment.name}</span>
              <span className="message-attachment__meta">
                {kindLabel[attachment.kind]}, {formatBytes(attachment.sizeBytes)}
                {attachment.width !== null &&
                  attachment.height !== null &&
                  `, ${attachment.width}×${attachment.height}`}
              </span>
            </span>
          </a>
        </li>
      ))}
    </ul>
  )
}
