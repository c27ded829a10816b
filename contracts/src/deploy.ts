import { z } from 'zod/mini'
import {
  remoteDescriptorSchema,
  remoteFileSchema,
  remoteNameSchema,
  semverSchema,
} from './descriptor.ts'
import type { RemoteDescriptor } from './descriptor.ts'
import { plainText } from './text.ts'

/**
 * The majors of the singletons the host shares with every remote (`react`, `react-dom`). They are
 * part of the platform contract as much as `CONTRACT_MAJOR`: a remote built against another React
 * major would run on the host's copy and break. Publishing refuses such a build; a test in the BFF
 * keeps these in step with the React the host installs.
 */
export const HOST_SHARED_MAJORS = { react: 19, 'react-dom': 19 } as const satisfies Record<
  string,
  number
>

/** Channels a remote's users are served from: everyone, or a sticky share of them. */
export const deployChannels = ['stable', 'canary'] as const
export type DeployChannel = (typeof deployChannels)[number]

/**
 * A file path inside a build as the descriptor names it: relative, forward slashes, no `.` or `..`
 * segment, nothing a URL would read as query or fragment. Storage keys and URLs are made from it.
 */
export const buildFilePathSchema = z
  .string()
  .check(
    z.minLength(1),
    z.maxLength(200),
    z.regex(
      /^(?!.*(?:^|\/)\.{1,2}(?:\/|$))[A-Za-z0-9._-]+(?:\/[A-Za-z0-9._-]+)*$/,
      'must be a relative path of letters, digits, dots, dashes and underscores',
    ),
  )

/**
 * A descriptor as the deploy API takes it: the build's own, with every path checked (`safeExtend`
 * keeps the descriptor's checks across fields, such as its API path).
 */
export const deployDescriptorSchema = z.safeExtend(remoteDescriptorSchema, {
  entry: buildFilePathSchema,
  files: z
    .array(z.extend(remoteFileSchema, { path: buildFilePathSchema }))
    .check(z.minLength(1), z.maxLength(500)),
  preload: z.optional(z.array(buildFilePathSchema).check(z.maxLength(100))),
  routePreload: z.optional(z.array(buildFilePathSchema).check(z.maxLength(100))),
})

/** `POST /api/deploy/remotes/:name/versions`: a build already uploaded to storage. */
export const registerVersionBodySchema = z.strictObject({
  descriptor: deployDescriptorSchema,
  /**
   * Public URL of the folder holding the uploaded build; must end in `/<name>/<version>`, the
   * immutable path (`remoteEntry.js` has no content hash, so its URL must never serve new bytes).
   */
  baseUrl: z.url({ protocol: /^https?$/ }).check(z.maxLength(500), plainText()),
})
export type RegisterVersionBody = z.infer<typeof registerVersionBodySchema>

/** An expected channel revision: the move happens only if nobody moved the channel meanwhile. */
const expectedRevision = z.optional(z.int().check(z.nonnegative()))

export const promoteBodySchema = z.strictObject({ version: semverSchema, expectedRevision })
export const canaryBodySchema = z.strictObject({
  version: semverSchema,
  /** The share of users (sticky per user) served the canary. */
  percentage: z.int().check(z.gte(1), z.lte(100)),
  expectedRevision,
})
export const channelMoveBodySchema = z.strictObject({ expectedRevision })

/** Where a channel points. `percentage` is null for `stable` and for a stopped canary. */
export const channelStateSchema = z.object({
  channel: z.enum(deployChannels),
  version: z.nullable(semverSchema),
  percentage: z.nullable(z.int()),
  revision: z.int().check(z.nonnegative()),
  updatedAt: z.string(),
})
export type ChannelState = z.infer<typeof channelStateSchema>

/** The answer to every channel move: what it was, what it is, and whether this call changed it. */
export const channelChangeSchema = z.object({
  remote: remoteNameSchema,
  channel: z.enum(deployChannels),
  changed: z.boolean(),
  before: channelStateSchema,
  after: channelStateSchema,
})
export type ChannelChange = z.infer<typeof channelChangeSchema>

export const registerOutcomes = ['registered', 'unchanged', 'relocated'] as const

export const registerVersionResponseSchema = z.object({
  remote: remoteNameSchema,
  version: semverSchema,
  /** `unchanged`: the same build was registered before; `relocated`: it now lives at `baseUrl`. */
  outcome: z.enum(registerOutcomes),
  baseUrl: z.string(),
  entryUrl: z.string(),
  contentSha256: z.string(),
})
export type RegisterVersionResponse = z.infer<typeof registerVersionResponseSchema>

export const deployEventKinds = [
  'published',
  'relocated',
  'promoted',
  'rolled_back',
  'canary_started',
  'canary_stopped',
  'canary_auto_rolled_back',
] as const
export type DeployEventKind = (typeof deployEventKinds)[number]

export const deployEventSchema = z.object({
  id: z.int(),
  kind: z.enum(deployEventKinds),
  version: z.nullable(z.string()),
  fromVersion: z.nullable(z.string()),
  percentage: z.nullable(z.int()),
  /** Who did it: a deploy token's label, or `canary monitor`. */
  actor: z.string(),
  details: z.record(z.string(), z.unknown()),
  at: z.string(),
})
export type DeployEvent = z.infer<typeof deployEventSchema>

export const versionSummarySchema = z.object({
  version: semverSchema,
  contentSha256: z.string(),
  baseUrl: z.string(),
  registeredAt: z.string(),
  /** When it last became stable; null if it never was. */
  lastStableAt: z.nullable(z.string()),
  /** Set when it was rolled back (or its canary failed): never chosen as previous good again. */
  withdrawnAt: z.nullable(z.string()),
  withdrawnReason: z.nullable(z.string()),
})
export type VersionSummary = z.infer<typeof versionSummarySchema>

/** `GET /api/deploy/remotes/:name`: channels, versions (newest first) and recent events. */
export const remoteDeployStateSchema = z.object({
  remote: remoteNameSchema,
  stable: channelStateSchema,
  canary: channelStateSchema,
  /** What `rollback` would move stable to. */
  previousGood: z.nullable(semverSchema),
  versions: z.array(versionSummarySchema),
  events: z.array(deployEventSchema),
})
export type RemoteDeployState = z.infer<typeof remoteDeployStateSchema>

/** The major of a semantic version (`19.3.1` → 19). */
export function majorOf(version: string): number {
  return Number(version.split('.')[0])
}

/**
 * Why the host cannot run this build, one sentence per problem (empty when it can): another
 * contract major, or a shared singleton of another major than the host's.
 */
export function compatibilityProblems(
  descriptor: Pick<RemoteDescriptor, 'name' | 'version' | 'contract' | 'shared'>,
  host: { contract: number; shared: Readonly<Record<string, number>> },
): { path: string; message: string }[] {
  const problems: { path: string; message: string }[] = []
  const what = `${descriptor.name} ${descriptor.version}`
  if (descriptor.contract !== host.contract) {
    problems.push({
      path: 'descriptor.contract',
      message: `${what} is built for platform contract ${descriptor.contract}, but the host runs contract ${host.contract}. Rebuild it against @tessera/contracts with CONTRACT_MAJOR ${host.contract}.`,
    })
  }
  for (const [name, major] of Object.entries(host.shared)) {
    const version = descriptor.shared[name]
    if (version === undefined) {
      problems.push({
        path: `descriptor.shared.${name}`,
        message: `${what} does not say which ${name} it was built against; the host shares ${name} ${major}.`,
      })
    } else if (majorOf(version) !== major) {
      problems.push({
        path: `descriptor.shared.${name}`,
        message: `${what} is built against ${name} ${version}, but the host shares ${name} ${major}. Build it with ${name} ${major}.x.`,
      })
    }
  }
  return problems
}

/** Sorts object keys at every depth, so equal content always serialises to the same text. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical)
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((key) => [key, canonical((value as Record<string, unknown>)[key])]),
    )
  }
  return value
}

/**
 * The sha256 (hex) of what makes a build this build: every fact of its descriptor and every file's
 * hash, but not its version label or build time. Two builds with the same digest are the same
 * bytes, so re-publishing one is a no-op and a version re-used for other bytes can be refused.
 */
export async function descriptorDigest(descriptor: RemoteDescriptor): Promise<string> {
  const { version: _version, builtAt: _builtAt, ...content } = descriptor
  const files = [...content.files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
  const text = JSON.stringify(canonical({ ...content, files, preload: content.preload ?? [] }))
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text))
  return [...new Uint8Array(digest)].map((byte) => byte.toString(16).padStart(2, '0')).join('')
}
