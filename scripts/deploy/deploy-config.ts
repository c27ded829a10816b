import path from 'node:path'
import { defaultApiKeys } from '@tessera/emulators/supabase/config'
import { z } from 'zod'
import { repoRoot } from '../lib/paths.ts'

/**
 * The settings of the deploy commands (`npm run publish -w remotes/<name>`, `npm run remote`),
 * parsed once from the environment. Defaults talk to the local stack (`npm start`).
 */
const schema = z.object({
  PORT: z.coerce.number().int().min(1).max(65535).default(8787),
  CDN_PORT: z.coerce.number().int().min(1).max(65535).default(8788),
  SUPABASE_PORT: z.coerce.number().int().min(1).max(65535).default(54321),
  TESSERA_DATA_DIR: z.string().min(1).default('.tessera'),
  /** The BFF the deploy API is on. */
  TESSERA_API_URL: z.url({ protocol: /^https?$/ }).optional(),
  /** The remote team's deploy token; the local stack's `<dataDir>/deploy-tokens.json` otherwise. */
  TESSERA_DEPLOY_TOKEN: z.string().min(1).optional(),
  /** Where builds are uploaded: a folder the cdn serves, or Supabase Storage. */
  TESSERA_STORAGE: z.enum(['directory', 'supabase']).default('directory'),
  /** directory: the folder (default `<dataDir>/cdn`) and the URL it is served at. */
  TESSERA_STORAGE_DIR: z.string().min(1).optional(),
  TESSERA_STORAGE_URL: z.url({ protocol: /^https?$/ }).optional(),
  /** supabase: the project, its service role key and the public bucket. */
  SUPABASE_URL: z.url({ protocol: /^https?$/ }).optional(),
  SUPABASE_SERVICE_ROLE_KEY: z.string().min(1).optional(),
  TESSERA_STORAGE_BUCKET: z.string().min(1).default('remotes'),
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
