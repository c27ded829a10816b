import { z } from 'zod/mini'
import { slotNames } from './plugin.ts'
import { plainText } from './text.ts'

export const remoteNameSchema = z
  .string()
  .check(z.regex(/^[a-z][a-z0-9-]{1,31}$/, 'must be lowercase letters, digits and dashes'))

export const semverSchema = z
  .string()
  .check(z.regex(/^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?$/, 'must be a semantic version like 1.2.3'))

export const basePathSchema = z
  .string()
  .check(z.regex(/^\/[a-z0-9-]+$/, 'must be one path segment like /billing'))

/**
 * Pages of a remote that visitors may open without signing in, as paths under its base path
 * (`/plans` for `/billing/plans`, `/` for the base path itself). Every other page needs a session.
 */
export const publicPathsSchema = z
  .array(z.string().check(z.regex(/^\/[a-z0-9/-]*$/, 'must be a path like /plans')))
  .check(z.maxLength(20))

/**
 * The API reads a remote's pages make as soon as they show, for a signed-in visitor: paths on the
 * app's own origin, under `/api/`, with their query, exactly as the page asks for them
 * (`/api/assistant/conversations?limit=20`). A host page hints them, so they download alongside
 * the remote's code instead of after it has run. A read the page does not make is a wasted request.
 */
export const firstReadsSchema = z
  .array(
    z.string().check(
      z.maxLength(200),
      z.regex(
        /^\/api\/[A-Za-z0-9\-._~/]+(\?[A-Za-z0-9\-._~=&%]*)?$/,
        'must be an API path on this site, like /api/assistant/usage',
      ),
      z.refine((path) => !path.includes('//') && !path.includes('/../'), 'must be a plain path'),
    ),
  )
  .check(z.maxLength(10))

export const navSchema = z.object({
  label: z.string().check(z.minLength(1), z.maxLength(40), plainText()),
  order: z.int(),
})

export const remoteFileSchema = z.object({
  path: z.string().check(z.minLength(1), plainText()),
  sha256: z.string().check(z.regex(/^[0-9a-f]{64}$/)),
  bytes: z.int().check(z.nonnegative()),
})

/** The path every plugin API is served at through the BFF: `/api/plugins/<name>`. */
export function pluginApiPath(name: string): string {
  return `/api/plugins/${name}`
}

/**
 * A remote's own backend, reached through the BFF at `/api/plugins/<name>/*`; the operator maps
 * its upstream origin (`PLUGIN_UPSTREAMS`). The path is fixed by the name (checked below).
 */
export const pluginApiSchema = z.strictObject({
  path: z
    .string()
    .check(z.regex(/^\/api\/plugins\/[a-z][a-z0-9-]{1,31}$/, 'must be /api/plugins/<name>')),
})
export type PluginApi = z.infer<typeof pluginApiSchema>

/** The fields of `tessera-remote.json`; the schema below adds the checks across fields. */
const descriptorFieldsSchema = z.object({
  name: remoteNameSchema,
  version: semverSchema,
  contract: z.int().check(z.positive()),
  basePath: basePathSchema,
  nav: z.nullable(navSchema),
  slots: z.array(z.enum(slotNames)),
  /**
   * The slots (of `slots`) the remote fills for signed-in visitors only, because it has nothing
   * to show anyone else there (a usage meter, a plan badge): a host leaves them out while nobody
   * is signed in, and loads none of the remote's code for them. Optional (absent: every slot is
   * filled for everyone). Contract minor 3.
   */
  signedInSlots: z.optional(z.array(z.enum(slotNames))),
  /** Pages visitors may open signed out; optional (absent: every page needs a session). */
  publicPaths: z.optional(publicPathsSchema),
  /** What its pages read first for a signed-in visitor (a hint, optional: `firstReadsSchema`). */
  firstReads: z.optional(firstReadsSchema),
  /**
   * Who the remote is for: `everyone` (the default) or `operators`, whose remote is left out of
   * everyone else's registry snapshot (contract minor 2, docs/decisions/023).
   */
  audience: z.optional(z.enum(['everyone', 'operators'])),
  /** Path of the federation entry relative to the descriptor. */
  entry: z.string().check(z.minLength(1), plainText()),
  /** Versions of the shared singletons the build was made against. */
  shared: z.record(z.string().check(plainText()), semverSchema),
  files: z.array(remoteFileSchema),
  /**
   * What the exposed module needs as soon as it loads (its static import closure: JS chunks and
   * CSS), relative to the descriptor. A host fetches them alongside the entry instead of one
   * import after another. Optional: descriptors written before it existed stay valid.
   */
  preload: z.optional(
    z.array(z.string().check(z.minLength(1), plainText())).check(z.maxLength(100)),
  ),
  /**
   * What a page of the remote loads at once on top of `preload`: the chunks the exposed module
   * imports lazily (its route pages, its slots' parts), with their static imports and CSS. Only
   * a visit to one of the remote's pages fetches them ahead; a slot-only load does not. Optional.
   */
  routePreload: z.optional(
    z.array(z.string().check(z.minLength(1), plainText())).check(z.maxLength(100)),
  ),
  builtAt: z.string().check(z.maxLength(100), plainText()),
  /** The remote's own API, served through the BFF; optional (absent: the remote has none). */
  api: z.optional(pluginApiSchema),
})

/** `tessera-remote.json`: the static facts of one remote build, written beside `remoteEntry.js`. */
export const remoteDescriptorSchema = descriptorFieldsSchema.check(
  z.superRefine((descriptor, ctx) => {
    for (const [index, slot] of (descriptor.signedInSlots ?? []).entries())
      if (!descriptor.slots.includes(slot))
        ctx.addIssue({
          code: 'custom',
          path: ['signedInSlots', index],
          message: `"${slot}" is not one of the slots the remote fills (slots)`,
        })
    const expected = pluginApiPath(descriptor.name)
    if (descriptor.api !== undefined && descriptor.api.path !== expected) {
      ctx.addIssue({
        code: 'custom',
        path: ['api', 'path'],
        message: `must be ${expected}: a remote's API is served under its own name`,
      })
    }
  }),
)
export type RemoteDescriptor = z.infer<typeof remoteDescriptorSchema>

export const DESCRIPTOR_FILE = 'tessera-remote.json'
