/**
 * `/v1/moderations` results: deterministic, flagging only input that contains the documented test
 * phrase, so tests and demos can trigger the "flagged" path on purpose.
 */
import { hashText } from './answer.ts'

/** Input containing this phrase (any case) is flagged, in MODERATION_FLAGGED_CATEGORIES. */
export const MODERATION_TEST_PHRASE = 'tessera-flag-me'

export const MODERATION_CATEGORIES = [
  'harassment',
  'harassment/threatening',
  'hate',
  'hate/threatening',
  'illicit',
  'illicit/violent',
  'self-harm',
  'self-harm/instructions',
  'self-harm/intent',
  'sexual',
  'sexual/minors',
  'violence',
  'violence/graphic',
] as const

export type ModerationCategory = (typeof MODERATION_CATEGORIES)[number]

/** The categories set when the test phrase appears. */
export const MODERATION_FLAGGED_CATEGORIES: readonly ModerationCategory[] = [
  'harassment',
  'violence',
]

export const MODERATION_MODELS = [
  'omni-moderation-latest',
  'omni-moderation-2024-09-26',
  'text-moderation-latest',
  'text-moderation-stable',
] as const

export interface ModerationResult {
  flagged: boolean
  categories: Record<ModerationCategory, boolean>
  category_scores: Record<ModerationCategory, number>
  category_applied_input_types: Record<ModerationCategory, Array<'text'>>
}

/** Classify one text input (several text parts of one multimodal input are joined first). */
export function moderateText(text: string): ModerationResult {
  const flagged = text.toLowerCase().includes(MODERATION_TEST_PHRASE)
  const seed = hashText(text)
  const categories = {} as Record<ModerationCategory, boolean>
  const scores = {} as Record<ModerationCategory, number>
  const applied = {} as Record<ModerationCategory, Array<'text'>>
  MODERATION_CATEGORIES.forEach((category, index) => {
    const hit = flagged && MODERATION_FLAGGED_CATEGORIES.includes(category)
    categories[category] = hit
    // Small, stable, varied scores for the unflagged categories, like a real classifier's noise.
    scores[category] = hit ? 0.97 - index * 0.005 : (((seed >>> index) % 97) + 1) / 1_000_000
    applied[category] = ['text']
  })
  return { flagged, categories, category_scores: scores, category_applied_input_types: applied }
}
