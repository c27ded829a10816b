import { fileURLToPath } from 'node:url'

/** The repository root; default locations below resolve against it, whatever the cwd. */
export const repoRoot = fileURLToPath(new URL('../../../', import.meta.url))

/** Where PGlite keeps its data between runs. */
export const defaultDataDir = fileURLToPath(new URL('../../../.tessera/pglite', import.meta.url))

/** The schema's single source of truth (DESIGN §2). */
export const defaultMigrationsDir = fileURLToPath(
  new URL('../../../supabase/migrations', import.meta.url),
)
