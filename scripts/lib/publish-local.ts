import { existsSync } from 'node:fs'
import path from 'node:path'
import { DESCRIPTOR_FILE, type ChannelChange } from '@tessera/contracts'
import { createDeployApi } from '../deploy/deploy-api.ts'
import { describeChange } from '../deploy/operations.ts'
import { publishBuild } from '../deploy/publish-build.ts'
import { discoverRemotes, remoteDir, type RemoteName } from './paths.ts'
import { createDirectoryDriver } from './storage/directory-driver.ts'

export interface LocalPublishResult {
  remote: RemoteName
  version: string
  stable: ChannelChange
}

/**
 * The local stack's publish: each remote's local build (`remotes/<name>/dist`) goes through the
 * same path as `npm run publish` — uploaded to the folder the cdn stand-in serves, registered with
 * that remote's deploy token — and is promoted to stable. A canary left running by an earlier run
 * is stopped, so a stack always starts from the local builds. A rebuild after a code change that
 * kept the version is published as `<version>-local.<digest>`: published versions never change.
 */
export async function publishLocalBuilds(options: {
  /** The BFF's URL. */
  apiUrl: string
  /** The folder the cdn serves, and the URL it serves it at. */
  cdnRoot: string
  cdnUrl: string
  /** Each remote's deploy token (see scripts/deploy/local-tokens.ts). */
  tokens: Readonly<Record<string, string>>
  remotes?: readonly RemoteName[]
  log?: (line: string) => void
}): Promise<LocalPublishResult[]> {
  const log = options.log ?? (() => undefined)
  const storage = createDirectoryDriver({ root: options.cdnRoot, baseUrl: options.cdnUrl })
  const results: LocalPublishResult[] = []
  for (const remote of options.remotes ?? discoverRemotes()) {
    const dist = path.join(remoteDir(remote), 'dist')
    // A folder that was never built (a remote scaffolded while the stack runs) has nothing to
    // publish yet: its team publishes it with `npm run publish -w remotes/<name>`.
    if (options.remotes === undefined && !existsSync(path.join(dist, DESCRIPTOR_FILE))) {
      log(`${remote} has no build in ${dist}: not published`)
      continue
    }
    const token = options.tokens[remote]
    if (token === undefined) throw new Error(`The local stack has no deploy token for ${remote}.`)
    const api = createDeployApi({ apiUrl: options.apiUrl, token })
    const published = await publishBuild({
      dist,
      storage,
      api,
      suffixWhenTaken: true,
    })
    const version = published.result.version
    const stable = await api.promote(remote, version)
    if (stable.changed) log(describeChange(stable))
    const { canary } = await api.state(remote)
    if (canary.version !== null) {
      log(describeChange(await api.stopCanary(remote, canary.revision)))
    }
    results.push({ remote, version, stable })
  }
  return results
}
