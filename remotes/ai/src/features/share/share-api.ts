import type { ShareLink } from '@tessera/contracts/assistant-share'
import type { Platform } from '@tessera/contracts/platform'

const sharePath = (conversationId: string) =>
  `/api/assistant/conversations/${encodeURIComponent(conversationId)}/share`

/** The author's public links (contracts/src/assistant-share.ts), through the platform's fetch. */
export function createShareApi(platform: Platform) {
  return {
    async list(): Promise<ShareLink[]> {
      const response = await platform.api.fetch('/api/assistant/shares')
      return ((await response.json()) as { shares: ShareLink[] }).shares
    },
    /** The conversation's link: made now, or the one it has. */
    async share(conversationId: string): Promise<ShareLink> {
      const response = await platform.api.fetch(sharePath(conversationId), { method: 'POST' })
      return ((await response.json()) as { share: ShareLink }).share
    },
    async revoke(conversationId: string): Promise<void> {
      await platform.api.fetch(sharePath(conversationId), { method: 'DELETE' })
    },
  }
}

/** The address to give people: the page on this app's own origin. */
export const shareUrl = (link: ShareLink) => new URL(link.path, window.location.origin).href

/** Copies the address; false when the browser refused (the field stays there to copy by hand). */
export async function copyShareUrl(link: ShareLink): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(shareUrl(link))
    return true
  } catch (error) {
    // No permission, or no clipboard (an http page): the caller says to copy by hand.
    if (error instanceof Error || error instanceof DOMException) return false
    throw error
  }
}
