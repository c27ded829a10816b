import { readdirSync, watch } from 'node:fs'
import { ensureLocalTokens, type TokenIssuer } from '../deploy/local-tokens.ts'
import { discoverRemotes, remotesDir } from './paths.ts'

/**
 * Keeps the local stack's deploy tokens in step with the remote folders while it runs: a remote
 * scaffolded after the stack started (`npm run remote -- new <name>`) gets its token in
 * `<dataDir>/deploy-tokens.json` as soon as its folder appears, so its first
 * `npm run publish -w remotes/<name>` needs no restart. `tokens` is updated in place.
 */
export function followRemoteFolders(options: {
  dataDir: string
  issuer: TokenIssuer
  tokens: Record<string, string>
  log: (line: string) => void
}): { close(): void } {
  let queue = Promise.resolve()
  let timer: NodeJS.Timeout | undefined
  let retries = 0
  const refresh = () => {
    const remotes = discoverRemotes()
    // A folder made a moment ago may not have its package.json yet: look again shortly.
    const folders = readdirSync(remotesDir, { withFileTypes: true }).filter((e) => e.isDirectory())
    if (folders.length > remotes.length && retries++ < 20) timer = setTimeout(refresh, 250)
    if (remotes.every((name) => options.tokens[name] !== undefined)) return
    queue = queue
      .then(async () => {
        const tokens = await ensureLocalTokens({
          dataDir: options.dataDir,
          remotes: discoverRemotes(),
          issuer: options.issuer,
        })
        for (const name of Object.keys(tokens)) {
          if (options.tokens[name] === undefined) options.log(`issued a deploy token for ${name}`)
        }
        Object.assign(options.tokens, tokens)
      })
      .catch((error: unknown) =>
        options.log(
          `could not issue deploy tokens for new remotes: ${error instanceof Error ? error.message : String(error)}`,
        ),
      )
  }
  // Only the remotes folder itself: a new remote is a new entry there.
  const watcher = watch(remotesDir, () => {
    clearTimeout(timer)
    retries = 0
    timer = setTimeout(refresh, 100)
  })
  return {
    close() {
      clearTimeout(timer)
      watcher.close()
    },
  }
}
