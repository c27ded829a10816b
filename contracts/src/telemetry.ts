import { z } from 'zod/mini'
import { remoteNameSchema, semverSchema } from './descriptor.ts'
import { plainText } from './text.ts'

/** Where in loading or running a remote a failure happened. */
export const remoteErrorStages = ['entry', 'plugin', 'contract', 'mount', 'runtime'] as const
export type RemoteErrorStage = (typeof remoteErrorStages)[number]

/** `POST /api/telemetry/remote-errors`: one failure of one remote in one browser. */
export const remoteErrorReportSchema = z.strictObject({
  remote: remoteNameSchema,
  version: semverSchema,
  stage: z.enum(remoteErrorStages),
  message: z.string().check(z.maxLength(2000), plainText()),
  /** True when the host fell back to the previous version or the fallback card. */
  fellBack: z.optional(z.boolean()),
})
export type RemoteErrorReport = z.infer<typeof remoteErrorReportSchema>

/** Where a remote was shown when it loaded: the page's route, or a slot such as `header.end`. */
export const remoteLoadTargets = ['route', 'slot'] as const

/**
 * One remote's first load in one page, in milliseconds: `entry` is its `remoteEntry.js` until the
 * federation container is ready, `expose` the exposed module and its chunks, `mount` from the
 * mount call until its content is painted; `ready` is from the page's navigation start until then
 * (what a person waits for). `preloaded`: the page's HTML carried hints for its files.
 */
export const remoteLoadTimingSchema = z.strictObject({
  remote: remoteNameSchema,
  version: semverSchema,
  target: z.enum(remoteLoadTargets),
  entryMs: z.number().check(z.nonnegative(), z.lte(600_000)),
  exposeMs: z.number().check(z.nonnegative(), z.lte(600_000)),
  mountMs: z.number().check(z.nonnegative(), z.lte(600_000)),
  readyMs: z.number().check(z.nonnegative(), z.lte(3_600_000)),
  preloaded: z.boolean(),
})
export type RemoteLoadTiming = z.infer<typeof remoteLoadTimingSchema>

/** `POST /api/telemetry/remote-loads`: the remotes one page loaded (one entry each). */
export const remoteLoadReportSchema = z.strictObject({
  loads: z.array(remoteLoadTimingSchema).check(z.minLength(1), z.maxLength(20)),
})
export type RemoteLoadReport = z.infer<typeof remoteLoadReportSchema>
