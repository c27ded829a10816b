import type { SearchResults } from '@tessera/contracts/assistant-search'
import type { Platform } from '@tessera/contracts/platform'

/** `GET /api/assistant/search`: the conversations the list shows, best match first. */
export async function searchConversations(
  platform: Platform,
  q: string,
  signal: AbortSignal,
): Promise<SearchResults> {
  const query = new URLSearchParams({ q, limit: '20' })
  const response = await platform.api.fetch(`/api/assistant/search?${query.toString()}`, {
    signal,
  })
  return (await response.json()) as SearchResults
}
