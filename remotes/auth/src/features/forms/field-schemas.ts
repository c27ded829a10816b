// The contracts' field schemas, in a chunk of their own: with them comes zod, most of this
// remote's code by size, which no page needs for its first paint (validation.ts loads it).
export {
  displayNameSchema,
  emailSchema,
  newPasswordSchema,
  passwordSchema,
} from '@tessera/contracts/auth'
export { workspaceNameSchema } from '@tessera/contracts/workspaces'
