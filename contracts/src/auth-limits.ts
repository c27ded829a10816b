// The limits of the auth fields, apart from their schemas so that a page can show them (a
// password hint) without loading zod; auth.ts re-exports them.

/** Passwords shorter than this are refused before they reach Supabase Auth. */
export const PASSWORD_MIN_LENGTH = 8
/** bcrypt reads 72 bytes; longer passwords are refused rather than silently cut. */
export const PASSWORD_MAX_BYTES = 72
export const DISPLAY_NAME_MAX_LENGTH = 80
