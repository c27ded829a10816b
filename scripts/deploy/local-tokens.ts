import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { z } from 'zod/mini'

/** The local stack's deploy tokens, one per remote, for the deploy commands to pick up. */
export const LOCAL_TOKENS_FILE = 'deploy-tokens.json'

const tokensFileSchema = z.object({ tokens: z.record(z.string(), z.string()) })

/** What the local stack needs to issue and check tokens (the BFF's `deployTokens`). */
export interface TokenIssuer {
  issue(remote: string, label: string): Promise<{ token: string }>
  authenticate(token: string): Promise<{ remote: string } | null>
}

/** The tokens in `<dataDir>/deploy-tokens.json`; empty when there is no such file. */
export async function readLocalTokens(dataDir: string): Promise<Record<string, string>> {
  const file = path.join(dataDir, LOCAL_TOKENS_FILE)
  let text: string
  try {
    text = await readFile(file, 'utf8')
  } catch (error) {
    if (error instanceof Error && 'code' in error && error.code === 'ENOENT') return {}
    throw error
  }
  const parsed = tokensFileSchema.safeParse(JSON.parse(text))
  if (!parsed.success)
    throw new Error(`${file} is not a deploy tokens file; delete it and restart.`)
  return parsed.data.tokens
}

/**
 * Makes sure `<dataDir>/deploy-tokens.json` holds a working token for each remote: tokens that
 * still authenticate for their remote are kept (so an exported TESSERA_DEPLOY_TOKEN survives a
 * restart), others are issued afresh. The file is readable by its owner only (mode 600).
 */
export async function ensureLocalTokens(options: {
  dataDir: string
  remotes: readonly string[]
  issuer: TokenIssuer
}): Promise<Record<string, string>> {
  const existing = await readLocalTokens(options.dataDir)
  const tokens: Record<string, string> = {}
  for (const remote of options.remotes) {
    const current = existing[remote]
    const valid = current !== undefined && (await options.issuer.authenticate(current))
    tokens[remote] =
      valid && valid.remote === remote
        ? current
        : (await options.issuer.issue(remote, `${remote} (local stack)`)).token
  }
  const file = path.join(options.dataDir, LOCAL_TOKENS_FILE)
  await mkdir(options.dataDir, { recursive: true })
  await writeFile(file, `${JSON.stringify({ tokens }, null, 2)}\n`, { mode: 0o600 })
  // `mode` applies only when the file is created: an older file is narrowed too.
  await chmod(file, 0o600)
  return tokens
}

/** The token for `remote`: TESSERA_DEPLOY_TOKEN, or the local stack's file when talking to it. */
export async function tokenFor(
  remote: string,
  config: { token: string | undefined; local: boolean; dataDir: string; waitMs?: number },
): Promise<string> {
  if (config.token !== undefined) return config.token
  if (config.local) {
    // A running stack issues a token for a remote folder as soon as it appears
    // (scripts/lib/remote-tokens.ts): a publish right after `remote new` waits a moment for it.
    const deadline = Date.now() + (config.waitMs ?? 0)
    for (;;) {
      const token = (await readLocalTokens(config.dataDir))[remote]
      if (token !== undefined) return token
      if (Date.now() >= deadline) break
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
  }
  throw new Error(
    `No deploy token for ${remote}: set TESSERA_DEPLOY_TOKEN to ${remote}'s token${
      config.local
        ? ` (the local stack writes one to ${path.join(config.dataDir, LOCAL_TOKENS_FILE)} when it starts: is it running with this TESSERA_DATA_DIR?)`
        : ''
    }.`,
  )
}
