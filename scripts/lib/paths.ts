import { fileURLToPath } from 'node:url'
import path from 'node:path'

/** The repository root, wherever a script is started from. */
export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..')

export const remoteNames = ['auth', 'billing', 'ai'] as const
export type RemoteName = (typeof remoteNames)[number]

export const remoteDir = (name: RemoteName): string => path.join(repoRoot, 'remotes', name)
export const hostDir = path.join(repoRoot, 'host')
