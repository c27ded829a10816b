import type { Env } from '../platform/env.ts'

/** Whether a BFF answers at `origin` (refused or silent: no stack of ours there). */
export async function isServing(origin: string): Promise<boolean> {
  try {
    await fetch(`${origin}/api/health`, { signal: AbortSignal.timeout(2000) })
    return true
  } catch {
    return false
  }
}

/**
 * An operator command on the embedded database (no `DATABASE_URL`) cannot run while the local
 * stack holds it: PGlite is one process's. The sentence to print then (`advice` says what to do
 * instead), or null when the command may go on.
 */
export async function localStackHoldsDatabase(
  env: Env,
  advice: string,
  serving: (origin: string) => Promise<boolean> = isServing,
): Promise<string | null> {
  if (env.DATABASE_URL !== undefined) return null
  const origin = `http://127.0.0.1:${env.PORT}`
  if (!(await serving(origin))) return null
  return `The local stack is running (its BFF answers at ${origin}) and holds the database at ${env.PGLITE_DATA_DIR}. ${advice}`
}
