import { z } from 'zod/mini'
import {
  basePathSchema,
  navSchema,
  publicPathsSchema,
  firstReadsSchema,
  remoteNameSchema,
  semverSchema,
} from './descriptor.ts'
import { slotNames } from './plugin.ts'

/** The channels a snapshot entry can come from (see `deployChannels` in deploy.ts). */
export const snapshotChannels = ['stable', 'canary'] as const
export type SnapshotChannel = (typeof snapshotChannels)[number]

export const remoteVersionRefSchema = z.object({
  version: semverSchema,
  entryUrl: z.url(),
})

/** One remote as the host sees it: enough to draw navigation and to load it on demand. */
export const snapshotRemoteSchema = z.object({
  name: remoteNameSchema,
  version: semverSchema,
  entryUrl: z.url(),
  contract: z.int().check(z.positive()),
  basePath: basePathSchema,
  nav: z.nullable(navSchema),
  slots: z.array(z.enum(slotNames)),
  /** The slots filled for signed-in visitors only (the descriptor's `signedInSlots`). */
  signedInSlots: z.optional(z.array(z.enum(slotNames))),
  /** Pages visitors may open without signing in (the descriptor's `publicPaths`). */
  publicPaths: z.optional(publicPathsSchema),
  /** What its pages read first for a signed-in visitor (the descriptor's `firstReads`). */
  firstReads: z.optional(firstReadsSchema),
  /** The last version known good, for the host's fallback when this one fails to load. */
  previous: z.nullable(remoteVersionRefSchema),
  /**
   * Absolute URLs of the files the exposed module needs at once (the descriptor's `preload`), so
   * the host can request them together with `entryUrl`. Optional: a hint, never required to load.
   */
  preload: z.optional(z.array(z.url()).check(z.maxLength(100))),
  /**
   * Absolute URLs of what one of the remote's pages loads next (the descriptor's `routePreload`):
   * hinted with `preload` only for a visit to its pages, never for a slot. Optional.
   */
  routePreload: z.optional(z.array(z.url()).check(z.maxLength(100))),
  /**
   * Which channel this user is served from: `stable`, or `canary` for the sticky share of users
   * a canary is rolled out to (then `previous` is the stable version). Optional: a registry
   * without channels (or an older BFF) leaves it out.
   */
  channel: z.optional(z.enum(snapshotChannels)),
  /**
   * Set when this browser overrides the remote (a dev server or a preview build, where the BFF's
   * config allows it): `entryUrl` is the override's, and the host shows a banner with a way out.
   */
  override: z.optional(z.object({ label: z.string().check(z.minLength(1), z.maxLength(40)) })),
})
export type SnapshotRemote = z.infer<typeof snapshotRemoteSchema>

export const snapshotDiagnosticSchema = z.object({
  remote: z.nullable(z.string()),
  message: z.string(),
})

/** `GET /api/remotes`: the registry snapshot for this user. */
export const registrySnapshotSchema = z.object({
  generatedAt: z.string(),
  remotes: z.array(snapshotRemoteSchema),
  /**
   * Remotes that exist but are not for this user (a descriptor's `audience: 'operators'` for
   * anyone who is not one): no URL, so their files are never fetched; the host answers their
   * pages with "not allowed" instead of "not found". Optional: older BFFs leave it out.
   */
  restricted: z.optional(z.array(z.object({ name: remoteNameSchema, basePath: basePathSchema }))),
  /** Entries left out because they were malformed or unreachable, each with a sentence. */
  diagnostics: z.array(snapshotDiagnosticSchema),
})
export type RegistrySnapshot = z.infer<typeof registrySnapshotSchema>
