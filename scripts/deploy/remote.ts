/**
 * `npm run remote -- <list|promote|canary|rollback> …`: moves a remote's channels through the
 * deploy API and prints what changed (before → after). See `usage` in operations.ts.
 */
import { consoleOutput, isMain, reportFailure } from './cli.ts'
import type { CliOutput } from './cli.ts'
import { createDeployApi } from './deploy-api.ts'
import { readDeployConfig } from './deploy-config.ts'
import { tokenFor } from './local-tokens.ts'
import { UsageError, parseOperation, runOperation } from './operations.ts'
import { newRemoteCommand } from './remote-new.ts'

/** Runs the command; resolves to the process exit code. */
export async function remoteCommand(
  argv: readonly string[],
  env: Record<string, string | undefined> = process.env,
  output: CliOutput = consoleOutput,
): Promise<number> {
  if (argv[0] === 'new') return newRemoteCommand(argv.slice(1), output)
  try {
    const operation = parseOperation(argv)
    const config = readDeployConfig(env)
    const api = createDeployApi({
      apiUrl: config.apiUrl,
      token: await tokenFor(operation.remote, config),
    })
    await runOperation(api, operation, output.log)
    return 0
  } catch (error) {
    reportFailure(error, output)
    return error instanceof UsageError ? 2 : 1
  }
}

if (isMain(import.meta.url)) process.exitCode = await remoteCommand(process.argv.slice(2))
