import { spawn } from 'node:child_process'
import type { ChildProcess, StdioOptions } from 'node:child_process'
import { mkdirSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..')

/** Spawns the repository's tsx script `file` (from its root) with this process's loader flags. */
export function spawnBench(
  file: string,
  args: string[],
  stdio: StdioOptions,
  env: NodeJS.ProcessEnv = {},
): ChildProcess {
  return spawn(process.execPath, [...process.execArgv, path.join(repoRoot, file), ...args], {
    cwd: repoRoot,
    stdio,
    env: { ...process.env, ...env },
  })
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!
}

/** Prints a Markdown table and saves it with the raw numbers under bench/results/. */
export function report(name: string, header: string[], rows: string[][], raw: unknown): string {
  const lines = [
    `| ${header.join(' | ')} |`,
    `| ${header.map(() => '---').join(' | ')} |`,
    ...rows.map((row) => `| ${row.join(' | ')} |`),
  ]
  const table = lines.join('\n')
  const dir = path.join(repoRoot, 'bench/results')
  mkdirSync(dir, { recursive: true })
  writeFileSync(path.join(dir, `${name}.md`), table + '\n')
  writeFileSync(path.join(dir, `${name}.json`), JSON.stringify(raw, null, 2) + '\n')
  console.log(`\n${name}\n${table}\n`)
  return table
}

/**
 * A `data` listener for a response read as UTF-8 text/event-stream: calls `onEvent` with each
 * frame's event name (`message` by default) and its data lines joined.
 */
export function sseEvents(onEvent: (event: string, data: string) => void): (chunk: string) => void {
  let buffer = ''
  return (chunk) => {
    buffer += chunk
    let split = buffer.indexOf('\n\n')
    while (split !== -1) {
      const frame = buffer.slice(0, split)
      buffer = buffer.slice(split + 2)
      split = buffer.indexOf('\n\n')
      let event = 'message'
      let data = ''
      for (const line of frame.split('\n')) {
        if (line.startsWith('event: ')) event = line.slice(7)
        else if (line.startsWith('data: ')) data += line.slice(6)
      }
      onEvent(event, data)
    }
  }
}

export { chromiumArgs, chromiumPath } from '../../scripts/lib/chromium.ts'
