// The contracts' field schemas, in a chunk of their own: with them comes zod, most of this
// remote's code by size, which no page needs for its first paint (validation.ts loads it). The
// parse is here too, so that no page's own chunk imports any of zod.
import { z } from 'zod/mini'

/** The first message `schema` gives for `value`, or null when it passes. */
export function firstMessage(schema: z.core.$ZodType, value: string): string | null {
  const parsed = z.safeParse(schema, value)
  return parsed.success ? null : (parsed.error.issues[0]?.message ?? 'This is not valid.')
}

export {
  displayNameSchema,
  emailSchema,
  newPasswordSchema,
  passwordSchema,
} from '@tessera/contracts/auth'
export { workspaceNameSchema } from '@tessera/contracts/workspaces'
