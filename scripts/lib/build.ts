import { spawn } from 'node:child_process'
import { existsSync, readdirSync, statSync } from 'node:fs'
import path from 'node:path'
import { discoverRemotes, hostDir, remoteDir, repoRoot } from './paths.ts'

/** Newest modification time of the files under `dir` (node_modules and dist excluded). */
function newestMtime(dir: string): number {
  let newest = 0
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name.startsWith('dist')) continue
    const full = path.join(dir, entry.name)
    const mtime = entry.isDirectory() ? newestMtime(full) : statSync(full).mtimeMs
    if (mtime > newest) newest = mtime
  }
  return newest
}

/** A workspace needs a build when its output is missing or older than its sources or shared code. */
export function isStale(workspace: string, outDir: string, marker: string): boolean {
  const output = path.join(outDir, marker)
  if (!existsSync(output)) return true
  const built = statSync(output).mtimeMs
  // The shared code the browser builds take in (packages/db is the BFF's alone).
  const shared = ['contracts/src', 'packages/plugin-react', 'tooling']
  const inputs = [workspace, ...shared.map((dir) => path.join(repoRoot, dir))]
  return inputs.some((dir) => newestMtime(dir) > built)
}

export function run(
  command: string,
  args: string[],
  options: { env?: NodeJS.ProcessEnv; cwd?: string } = {},
): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd ?? repoRoot,
      env: { ...process.env, ...options.env },
      stdio: 'inherit',
    })
    child.on('error', reject)
    child.on('exit', (code) =>
      code === 0
        ? resolve()
        : reject(new Error(`${command} ${args.join(' ')} exited with ${code}`)),
    )
  })
}

/** Builds every remote and the host whose output is stale; returns the names it built. */
export async function buildWhatIsNeeded(options: { force?: boolean } = {}): Promise<string[]> {
  const built: string[] = []
  for (const name of discoverRemotes()) {
    const dir = remoteDir(name)
    if (options.force || isStale(dir, path.join(dir, 'dist'), 'tessera-remote.json')) {
      await run('npm', ['run', 'build', '-w', `remotes/${name}`])
      built.push(name)
    }
  }
  if (options.force || isStale(hostDir, path.join(hostDir, 'dist'), 'index.html')) {
    await run('npm', ['run', 'build', '-w', 'host'])
    built.push('host')
  }
  return built
}
