import { existsSync, realpathSync } from 'node:fs'
import { pathToFileURL } from 'node:url'
import { DeployApiError } from './deploy-api.ts'

/** Where a command writes: lines for people (stdout) and problems (stderr). */
export interface CliOutput {
  log(line: string): void
  error(line: string): void
}

export const consoleOutput: CliOutput = {
  log: (line) => console.log(line),
  error: (line) => console.error(line),
}

/** Prints a failure as sentences: the API's own, each field issue, or the error's message. */
export function reportFailure(error: unknown, output: CliOutput): void {
  if (error instanceof DeployApiError) {
    output.error(`refused (${error.code}): ${error.message}`)
    for (const issue of error.issues) {
      // The summary already quotes the first issues; the full list helps with many files.
      output.error(`  - ${issue.path}: ${issue.message}`)
    }
    return
  }
  output.error(error instanceof Error ? error.message : String(error))
}

/** Whether this module is the one Node was started with (not imported by a test). */
export function isMain(moduleUrl: string): boolean {
  const entry = process.argv[1]
  return (
    entry !== undefined &&
    existsSync(entry) &&
    moduleUrl === pathToFileURL(realpathSync(entry)).href
  )
}
