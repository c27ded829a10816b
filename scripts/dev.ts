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
import { readLocalTokens } from './deploy/local-tokens.ts'
import { publishLocalBuilds } from './lib/publish-local.ts'
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

// Publish a remote again shortly after its watcher writes a descriptor (the last file of a
// build): through the deploy API, as a new version when the bytes changed, then promoted.
const timers = new Map<string, NodeJS.Timeout>()
for (const name of remoteNames) {
  watch(remoteDir(name), { recursive: true }, (_event, file) => {
    if (file !== path.join('dist', 'tessera-remote.json')) return
    clearTimeout(timers.get(name))
    timers.set(
      name,
      setTimeout(() => {
        readLocalTokens(dataDir)
          .then((tokens) =>
            publishLocalBuilds({
              apiUrl: `http://127.0.0.1:${config.PORT}`,
              cdnRoot: path.join(dataDir, 'cdn'),
              cdnUrl,
              tokens,
              remotes: [name],
              log: (line) => console.log(line),
            }),
          )
          .then(
            () => console.log(`published ${name} after a change`),
            // The BFF may be restarting (tsx watch); the next build publishes again.
            (error: unknown) =>
              console.warn(`${name} not published yet: ${(error as Error).message}`),
          )
      }, 400),
    )
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
