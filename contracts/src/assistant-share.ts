import { z } from 'zod/mini'

/** A share id: 24 random bytes as base64url (192 bits). Anything else names no link. */
export const shareIdPattern = /^[A-Za-z0-9_-]{32}$/

/** Where a share link opens (on the app's own origin). */
export const sharedPath = (id: string) => `/shared/${id}`

/** One of the author's public links (`POST …/conversations/:id/share`, `GET /api/assistant/shares`). */
export const shareLinkSchema = z.object({
  id: z.string(),
  conversationId: z.string(),
  /** The conversation's title now. */
  title: z.string(),
  /** The page's path, `/shared/<id>`, on the app's origin. */
  path: z.string(),
  createdAt: z.string(),
})
export type ShareLink = z.infer<typeof shareLinkSchema>

/**
 * `POST /api/assistant/conversations/:id/share`: 201 with a new link, or 200 with the one the
 * conversation already has. `DELETE` on the same address revokes it (204); the id never works
 * again.
 */
export const shareLinkResponseSchema = z.object({ share: shareLinkSchema })
/** `GET /api/assistant/shares`: the caller's live links, newest first. */
export const shareLinkListSchema = z.object({ shares: z.array(shareLinkSchema) })

/**
 * `GET /api/shared/:id`, public: the conversation as it is when read (not a copy made when it was
 * shared). No email: the author's display name if they set one, else null. A guessed, revoked or
 * deleted link answers 404 `share_not_found`.
 */
export const sharedConversationSchema = z.object({
  title: z.string(),
  author: z.nullable(z.string()),
  sharedAt: z.string(),
  messages: z.array(
    z.object({
      id: z.string(),
      role: z.enum(['user', 'assistant']),
      content: z.string(),
      /** `partial`: the answer was stopped or cut off. */
      status: z.enum(['complete', 'partial']),
      createdAt: z.string(),
    }),
  ),
})
export type SharedConversation = z.infer<typeof sharedConversationSchema>
