/** The stand-in's configuration when run on its own; the only place it reads `process.env`. */
import '@tessera/contracts/zod-messages'
import { z } from 'zod/mini'
import { DEFAULT_MODELS } from './app.ts'

const envSchema = z.object({
  OPENAI_EMULATOR_PORT: z._default(z.coerce.number().check(z.int(), z.gte(0), z.lte(65_535)), 8790),
  OPENAI_EMULATOR_HOST: z._default(z.string().check(z.minLength(1)), '127.0.0.1'),
  // A pace people can watch; tests start the stand-in in-process with a faster one.
  OPENAI_EMULATOR_TOKENS_PER_SECOND: z._default(z.coerce.number().check(z.positive()), 40),
  OPENAI_EMULATOR_API_KEY: z.optional(z.string().check(z.minLength(1))),
  OPENAI_EMULATOR_MODELS: z.pipe(
    z.pipe(
      z._default(z.string(), DEFAULT_MODELS.join(',')),
      z.transform((value) =>
        value
          .split(',')
          .map((model) => model.trim())
          .filter((model) => model !== ''),
      ),
    ),
    z.array(z.string()).check(z.minLength(1)),
  ),
  OPENAI_EMULATOR_ANSWER_SENTENCES: z._default(
    z.coerce.number().check(z.int(), z.gte(0), z.lte(50)),
    3,
  ),
  // Streamed answers generated at once (a server's capacity); 0: no limit.
  OPENAI_EMULATOR_MAX_CONCURRENT_ANSWERS: z._default(z.coerce.number().check(z.int(), z.gte(0)), 0),
  LOG_LEVEL: z._default(z.enum(['debug', 'info', 'warn', 'error', 'silent']), 'info'),
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
