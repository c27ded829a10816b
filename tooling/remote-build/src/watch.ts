import { spawn, type ChildProcess } from 'node:child_process'
import { watch } from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { pathToFileURL } from 'node:url'

/**
 * Rebuilds a remote whenever its sources change, each time in a fresh `vite build` process.
 *
 * Why not `vite build --watch`: originjs keeps state between builds of one process, so every
 * rebuild after the first emits a remoteEntry.js that imports an exposed module which was never
 * written (originjs issue #253; the federation-output check fails those builds). A new process per
 * build costs a few seconds and always produces the same output as `npm run build`.
 */
export interface WatchRemoteOptions {
  /** The remote's folder, holding package.json, vite.config.ts and src/. */
  root: string
  /** Quiet period after the last change before a rebuild starts. */
  debounceMs?: number
  log?: (entry: Record<string, unknown>) => void
}

export interface RemoteWatcher {
  /** Resolves when the current build (if any) has finished; rejects nothing, builds log their failures. */
  idle(): Promise<void>
  close(): void
}

function startBuild(root: string): { child: ChildProcess; done: Promise<number> } {
  const require = createRequire(path.join(root, 'package.json'))
  const viteBin = path.join(path.dirname(require.resolve('vite/package.json')), 'bin/vite.js')
  const child = spawn(process.execPath, [viteBin, 'build', '--configLoader', 'runner'], {
    cwd: root,
    stdio: 'inherit',
  })
  const done = new Promise<number>((resolve, reject) => {
    child.once('error', reject)
    child.once('exit', (code) => resolve(code ?? 1))
  })
  return { child, done }
}

/** Builds once, then again after every change under `src/` or to package.json. */
export function watchRemote(options: WatchRemoteOptions): RemoteWatcher {
  const { root } = options
  const debounceMs = options.debounceMs ?? 150
  const log = options.log ?? ((entry) => console.log(JSON.stringify(entry)))
  let building: Promise<void> | null = null
  let child: ChildProcess | null = null
  let pending = false
  let closed = false
  let timer: NodeJS.Timeout | undefined

  const build = (): Promise<void> => {
    if (building !== null) {
      // A change during a build needs one more build after it, not one per change.
      pending = true
      return building
    }
    const started = Date.now()
    const run = startBuild(root)
    child = run.child
    building = run.done
      .then(
        (code) =>
          log({
            level: code === 0 ? 'info' : 'error',
            msg: code === 0 ? 'remote built' : 'remote build failed',
            root,
            ms: Date.now() - started,
          }),
        (error: unknown) =>
          log({ level: 'error', msg: 'remote build could not start', root, error: String(error) }),
      )
      .finally(() => {
        building = null
        child = null
        if (pending && !closed) {
          pending = false
          void build()
        }
      })
    return building
  }

  const schedule = () => {
    clearTimeout(timer)
    timer = setTimeout(() => void build(), debounceMs)
  }

  const watchers = [
    watch(path.join(root, 'src'), { recursive: true }, schedule),
    watch(path.join(root, 'package.json'), schedule),
  ]
  void build()

  return {
    async idle() {
      while (building !== null) await building
    },
    close() {
      closed = true
      clearTimeout(timer)
      for (const watcher of watchers) watcher.close()
      child?.kill('SIGTERM')
    },
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const watcher = watchRemote({ root: process.cwd() })
  const stop = () => {
    watcher.close()
    process.exit(0)
  }
  process.once('SIGINT', stop)
  process.once('SIGTERM', stop)
}
