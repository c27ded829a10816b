/** The stand-in's configuration when run on its own; the only place it reads `process.env`. */
import { z } from 'zod'
import { DEFAULT_MODELS } from './app.ts'

const envSchema = z.object({
  OPENAI_EMULATOR_PORT: z.coerce.number().int().min(0).max(65_535).default(8790),
  OPENAI_EMULATOR_HOST: z.string().min(1).default('127.0.0.1'),
  // A pace people can watch; tests start the stand-in in-process with a faster one.
  OPENAI_EMULATOR_TOKENS_PER_SECOND: z.coerce.number().positive().default(40),
  OPENAI_EMULATOR_API_KEY: z.string().min(1).optional(),
  OPENAI_EMULATOR_MODELS: z
    .string()
    .default(DEFAULT_MODELS.join(','))
    .transform((value) =>
      value
        .split(',')
        .map((model) => model.trim())
        .filter((model) => model !== ''),
    )
    .pipe(z.array(z.string()).min(1)),
  OPENAI_EMULATOR_ANSWER_SENTENCES: z.coerce.number().int().min(0).max(50).default(3),
  // Streamed answers generated at once (a server's capacity); 0: no limit.
  OPENAI_EMULATOR_MAX_CONCURRENT_ANSWERS: z.coerce.number().int().min(0).default(0),
  LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error', 'silent']).default('info'),
})

export type OpenAiEmulatorEnv = z.output<typeof envSchema>

/** Parse the environment once; fails with the names of every bad variable. */
export function readOpenAiEmulatorEnv(
  source: Record<string, string | undefined> = process.env,
): OpenAiEmulatorEnv {
  const result = envSchema.safeParse(source)
  if (!result.success) {
    const names = result.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`)
    throw new Error(`Invalid environment for the OpenAI stand-in:\n  ${names.join('\n  ')}`)
  }
  return result.data
}
