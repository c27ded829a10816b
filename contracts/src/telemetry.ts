import { z } from 'zod'
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
  message: z.string().max(2000).check(plainText()),
  /** True when the host fell back to the previous version or the fallback card. */
  fellBack: z.boolean().optional(),
})
export type RemoteErrorReport = z.infer<typeof remoteErrorReportSchema>
