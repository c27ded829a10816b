// Node-only: node.ts reads the local stack's plugin signing key with it.
import { link, mkdir, readFile, rm, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { EnvError } from '../../platform/env.ts'
import type { Env } from '../../platform/env.ts'
import { generatePrivateJwk, loadPluginSigningKeys, PluginKeyError } from './signing-keys.ts'
import type { PluginSigningKeys } from './signing-keys.ts'

/**
 * The private key kept in `file` (a JWK, readable by its owner only), made on first use, so the
 * local stack's tokens stay verifiable across restarts and by every BFF process sharing the data
 * folder. Two processes starting at once agree: only one can link the file in place, the
 * other reads it.
 */
export async function readOrCreateKeyFile(file: string): Promise<string> {
  try {
    return await readFile(file, 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
  }
  await mkdir(path.dirname(file), { recursive: true })
  const text = `${JSON.stringify(await generatePrivateJwk())}\n`
  // Written whole under another name, then linked in place: a reader never sees half a key.
  const draft = `${file}.${crypto.randomUUID()}.tmp`
  await writeFile(draft, text, { mode: 0o600 })
  try {
    await link(draft, file)
    return text
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
    return await readFile(file, 'utf8')
  } finally {
    await rm(draft, { force: true })
  }
}

/**
 * The plugin signing key of a Node BFF: `PLUGIN_JWT_PRIVATE_KEY`, or else (with plugins mapped:
 * the local stack, as env.ts allows it nowhere else) the key file's; a BFF without plugins signs
 * nothing and makes a key for the process. A bad key fails start-up with its setting's name.
 */
export async function loadNodePluginKeys(
  env: Pick<
    Env,
    | 'PLUGIN_UPSTREAMS'
    | 'PLUGIN_JWT_PRIVATE_KEY'
    | 'PLUGIN_JWT_PREVIOUS_PUBLIC_KEY'
    | 'PLUGIN_JWT_KEY_FILE'
  >,
): Promise<PluginSigningKeys> {
  const fromFile =
    env.PLUGIN_JWT_PRIVATE_KEY === undefined && Object.keys(env.PLUGIN_UPSTREAMS).length > 0
  const privateKey = fromFile
    ? await readOrCreateKeyFile(env.PLUGIN_JWT_KEY_FILE)
    : env.PLUGIN_JWT_PRIVATE_KEY
  try {
    return await loadPluginSigningKeys({
      privateKey,
      previousPublicKey: env.PLUGIN_JWT_PREVIOUS_PUBLIC_KEY,
    })
  } catch (error) {
    if (!(error instanceof PluginKeyError)) throw error
    const key =
      error.key === 'previous'
        ? 'PLUGIN_JWT_PREVIOUS_PUBLIC_KEY'
        : fromFile
          ? 'PLUGIN_JWT_KEY_FILE'
          : 'PLUGIN_JWT_PRIVATE_KEY'
    throw new EnvError([{ key, message: error.message }])
  }
}
