/**
 * `npm run dev`: the host on Vite's dev server with HMR (5173), each remote rebuilt by
 * `vite build --watch` and re-published to the cdn stand-in as it changes, and the BFF restarted
 * by `tsx watch` when its code changes.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { watch } from 'node:fs'
import path from 'node:path'
import { buildWhatIsNeeded } from './lib/build.ts'
import { hostDir, remoteDir, remoteNames, repoRoot } from './lib/paths.ts'
import { publishLocal } from './lib/publish-local.ts'
import { readStackConfig } from './lib/stack-config.ts'

const config = readStackConfig()
const dataDir = path.resolve(repoRoot, config.TESSERA_DATA_DIR)
const cdnUrl = `http://localhost:${config.CDN_PORT}`
const devUrl = `http://localhost:${config.DEV_PORT}`

await buildWhatIsNeeded()
const children: ChildProcess[] = []
const start = (
  command: string,
  args: string[],
  env: Record<string, string> = {},
  cwd = repoRoot,
) => {
  const child = spawn(command, args, { cwd, stdio: 'inherit', env: { ...process.env, ...env } })
  children.push(child)
  return child
}

start('npx', [
  'tsx',
  'watch',
  '--clear-screen=false',
  '--include',
  'contracts/src',
  'scripts/dev-stack.ts',
])
// Each remote's watcher rebuilds in a fresh process (originjs keeps state between builds).
for (const name of remoteNames) start('npm', ['run', 'dev', '-w', `remotes/${name}`])
start(
  'npx',
  ['vite', '--configLoader', 'runner', '--port', String(config.DEV_PORT), '--strictPort'],
  { TESSERA_BFF_URL: `http://localhost:${config.PORT}` },
  hostDir,
)

// Re-publish the remotes shortly after a watcher writes a descriptor (the last file of a build).
let timer: NodeJS.Timeout | undefined
for (const name of remoteNames) {
  watch(remoteDir(name), { recursive: true }, (_event, file) => {
    if (file !== path.join('dist', 'tessera-remote.json')) return
    clearTimeout(timer)
    timer = setTimeout(() => {
      try {
        publishLocal({
          cdnRoot: path.join(dataDir, 'cdn'),
          cdnUrl,
          registryFile: path.join(dataDir, 'registry.json'),
        })
        console.log(`republished remotes after a change in ${name}`)
      } catch (error) {
        // Another remote may be mid-build; its own descriptor write publishes again.
        console.warn(`not republished yet: ${(error as Error).message}`)
      }
    }, 400)
  })
}

console.log(
  `\n  Tessera dev: open ${devUrl} (HMR); the BFF is on http://localhost:${config.PORT}\n`,
)
const stop = () => {
  for (const child of children) child.kill('SIGTERM')
  process.exit(0)
}
process.once('SIGINT', stop)
process.once('SIGTERM', stop)
