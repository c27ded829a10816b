import '@tessera/contracts/zod-messages'
import path from 'node:path'
import { defaultApiKeys } from '@tessera/emulators/supabase/config'
import { z } from 'zod/mini'
import { repoRoot } from '../lib/paths.ts'

/**
 * The settings of the deploy commands (`npm run publish -w remotes/<name>`, `npm run remote`),
 * parsed once from the environment. Defaults talk to the local stack (`npm start`).
 */
const schema = z.object({
  PORT: z._default(z.coerce.number().check(z.int(), z.gte(1), z.lte(65535)), 8787),
  CDN_PORT: z._default(z.coerce.number().check(z.int(), z.gte(1), z.lte(65535)), 8788),
  SUPABASE_PORT: z._default(z.coerce.number().check(z.int(), z.gte(1), z.lte(65535)), 54321),
  TESSERA_DATA_DIR: z._default(z.string().check(z.minLength(1)), '.tessera'),
  /** The BFF the deploy API is on. */
  TESSERA_API_URL: z.optional(z.url({ protocol: /^https?$/ })),
  /** The remote team's deploy token; the local stack's `<dataDir>/deploy-tokens.json` otherwise. */
  TESSERA_DEPLOY_TOKEN: z.optional(z.string().check(z.minLength(1))),
  /** Where builds are uploaded: a folder the cdn serves, or Supabase Storage. */
  TESSERA_STORAGE: z._default(z.enum(['directory', 'supabase']), 'directory'),
  /** directory: the folder (default `<dataDir>/cdn`) and the URL it is served at. */
  TESSERA_STORAGE_DIR: z.optional(z.string().check(z.minLength(1))),
  TESSERA_STORAGE_URL: z.optional(z.url({ protocol: /^https?$/ })),
  /** supabase: the project, its service role key and the public bucket. */
  SUPABASE_URL: z.optional(z.url({ protocol: /^https?$/ })),
  SUPABASE_SERVICE_ROLE_KEY: z.optional(z.string().check(z.minLength(1))),
  TESSERA_STORAGE_BUCKET: z._default(z.string().check(z.minLength(1)), 'remotes'),
})

const loopback = /^https?:\/\/(127\.0\.0\.1|localhost|\[::1\])(:\d+)?(\/|$)/

export type StorageConfig =
  | { driver: 'directory'; root: string; baseUrl: string }
  | { driver: 'supabase'; url: string; serviceRoleKey: string; bucket: string }

export interface DeployConfig {
  apiUrl: string
  /** Absolute path of the local stack's data folder. */
  dataDir: string
  /** The token from the environment, if one was given. */
  token: string | undefined
  /** Whether the API is the local stack, whose tokens file may stand in for TESSERA_DEPLOY_TOKEN. */
  local: boolean
  storage: StorageConfig
}

const trimSlash = (url: string) => url.replace(/\/+$/, '')

/** Reads the deploy commands' settings; throws one error naming every bad variable. */
export function readDeployConfig(
  source: Record<string, string | undefined> = process.env,
): DeployConfig {
  const present = Object.fromEntries(
    Object.keys(schema.shape).map((key) => [key, source[key] === '' ? undefined : source[key]]),
  )
  const parsed = schema.safeParse(present)
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join(', ')
    throw new Error(`Invalid deploy environment: ${problems}`)
  }
  const env = parsed.data
  const dataDir = path.resolve(repoRoot, env.TESSERA_DATA_DIR)
  const apiUrl = trimSlash(env.TESSERA_API_URL ?? `http://localhost:${env.PORT}`)
  let storage: StorageConfig
  if (env.TESSERA_STORAGE === 'directory') {
    storage = {
      driver: 'directory',
      root: path.resolve(repoRoot, env.TESSERA_STORAGE_DIR ?? path.join(dataDir, 'cdn')),
      baseUrl: trimSlash(env.TESSERA_STORAGE_URL ?? `http://localhost:${env.CDN_PORT}`),
    }
  } else {
    const url = trimSlash(env.SUPABASE_URL ?? `http://127.0.0.1:${env.SUPABASE_PORT}`)
    // The stand-in's well-known key only makes sense with the stand-in.
    const serviceRoleKey =
      env.SUPABASE_SERVICE_ROLE_KEY ?? (loopback.test(url) ? defaultApiKeys.serviceRole : undefined)
    if (serviceRoleKey === undefined) {
      throw new Error(
        'Invalid deploy environment: SUPABASE_SERVICE_ROLE_KEY must be set when SUPABASE_URL is not the local stand-in',
      )
    }
    storage = { driver: 'supabase', url, serviceRoleKey, bucket: env.TESSERA_STORAGE_BUCKET }
  }
  return { apiUrl, dataDir, token: env.TESSERA_DEPLOY_TOKEN, local: loopback.test(apiUrl), storage }
}
