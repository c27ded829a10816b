/**
 * `/api/assistant/attachments`: uploads (the raw file as the body, its name in
 * `X-Attachment-Name`) and reads of the user's own files. Files are served so that a browser can
 * never run them: a declared type, `nosniff`, a sandboxing CSP, and only raster images inline.
 */
import { ATTACHMENT_NAME_HEADER, ApiError } from '@tessera/contracts'
import type { AttachmentResponse } from '@tessera/contracts'
import { Hono } from 'hono'
import type { Context } from 'hono'
import type { AppEnv } from '../../http/app-env.ts'
import type { Sender } from '../assistant/send.ts'
import type { Attachments } from './attachments.ts'

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** An upload, which the plan caps while it is read (platform/read-capped.ts), not the app's body limit. */
export const isAttachmentUpload = (c: Context): boolean =>
  c.req.method === 'POST' && c.req.path === '/api/assistant/attachments'

async function senderOf(c: Context<AppEnv>): Promise<Sender> {
  const session = await c.var.auth.require()
  return { userId: session.userId, claims: session.claims, sessionId: session.id }
}

/** `filename*` (RFC 6266/5987) for any name, and an ASCII `filename` for old clients. */
function dispositionOf(kind: 'inline' | 'attachment', name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]|["\\%]/g, '_')
  return `${kind}; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`
}

/** The uploaded file's length as declared, or null when the body is chunked or it is not a number. */
function declaredLength(c: Context): number | null {
  if (c.req.header('transfer-encoding') !== undefined) return null
  const declared = Number(c.req.header('content-length'))
  return Number.isSafeInteger(declared) && declared >= 0 ? declared : null
}

export function attachmentRoutes(deps: { attachments: Attachments }) {
  const { attachments } = deps
  return new Hono<AppEnv>()
    .post('/', async (c) => {
      const sender = await senderOf(c)
      const attachment = await attachments.upload(sender, {
        name: c.req.header(ATTACHMENT_NAME_HEADER),
        declaredBytes: declaredLength(c),
        body: c.req.raw.body,
      })
      const body: AttachmentResponse = { attachment }
      c.header('Cache-Control', 'no-store')
      return c.json(body, 201)
    })
    .get('/:id', async (c) => {
      const sender = await senderOf(c)
      const id = c.req.param('id')
      if (!uuidPattern.test(id)) throw new ApiError('not_found')
      const { row, bytes } = await attachments.read(sender, id.toLowerCase())
      const image = row.kind === 'image'
      return c.body(bytes as Uint8Array<ArrayBuffer>, 200, {
        'Content-Type': row.kind === 'text' ? 'text/plain; charset=utf-8' : row.content_type,
        'Content-Length': String(bytes.byteLength),
        'Content-Disposition': dispositionOf(image ? 'inline' : 'attachment', row.name),
        'X-Content-Type-Options': 'nosniff',
        'Content-Security-Policy': "default-src 'none'; sandbox",
        // The bytes of an attachment never change; only its owner may read them.
        'Cache-Control': 'private, max-age=3600',
      })
    })
}
