import { z } from 'zod/mini'
import { plainText } from './text.ts'

/** Longest search a person can type (characters). */
export const SEARCH_QUERY_MAX_LENGTH = 200
/** Results a search returns by default, and at most (`limit`). */
export const SEARCH_RESULTS_DEFAULT = 20
export const SEARCH_RESULTS_MAX = 50

/** The query of `GET /api/assistant/search?q=&limit=`. */
export const searchQuerySchema = z.object({
  q: z
    .string({ error: 'Type what to search for.' })
    .check(
      z.trim(),
      z.minLength(1, 'Type what to search for.'),
      z.maxLength(
        SEARCH_QUERY_MAX_LENGTH,
        `A search can have at most ${SEARCH_QUERY_MAX_LENGTH} characters.`,
      ),
      plainText('A search cannot contain control characters.'),
    ),
  limit: z._default(
    z.coerce
      .number({ error: 'The number of results must be a number.' })
      .check(
        z.int('The number of results must be a whole number.'),
        z.gte(1, 'Ask for at least 1 result.'),
        z.lte(SEARCH_RESULTS_MAX, `Ask for at most ${SEARCH_RESULTS_MAX} results.`),
      ),
    SEARCH_RESULTS_DEFAULT,
  ),
})
export type SearchQuery = z.infer<typeof searchQuerySchema>

/**
 * Highlighted text as plain pieces: `match` pieces are the searched words. Never HTML: the page
 * draws each piece as text (a matched one inside `<mark>`), so a message cannot inject markup.
 */
export const highlightSchema = z.array(z.object({ text: z.string(), match: z.boolean() }))
export type Highlight = z.infer<typeof highlightSchema>

/** One hit: a message of a conversation, or a conversation whose title alone matched. */
export const searchHitSchema = z.object({
  conversationId: z.string(),
  /** The conversation's title, its matched words marked. */
  title: highlightSchema,
  /** Another member's shared conversation: their name (as in the list). */
  sharedBy: z.nullable(z.string()),
  /** The best-matching message, or null when only the title matched. */
  message: z.nullable(
    z.object({
      id: z.string(),
      role: z.enum(['user', 'assistant']),
      createdAt: z.string(),
      /** A few words around the matches. */
      snippet: highlightSchema,
    }),
  ),
  updatedAt: z.string(),
})
export type SearchHit = z.infer<typeof searchHitSchema>

/**
 * `GET /api/assistant/search`: the conversations the list shows (the session's workspace: the
 * caller's own, and those shared with it), best match first.
 */
export const searchResultsSchema = z.object({ results: z.array(searchHitSchema) })
export type SearchResults = z.infer<typeof searchResultsSchema>
