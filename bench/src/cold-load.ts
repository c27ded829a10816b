/**
 * Cold loads of the federated host against a monolith build of the same host with the same
 * plugins imported statically, measured in the same run, alternating, in headless Chromium.
 * Reports JS bytes (raw and gzip) and the time until the first remote page is mounted.
 */
import { gzipSync } from 'node:zlib'
import { mkdtempSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { chromium } from 'playwright-core'
import { startStack } from '../../scripts/lib/stack.ts'
import { buildWhatIsNeeded, run } from '../../scripts/lib/build.ts'
import { chromiumArgs, median, repoRoot, report } from './lib.ts'

const runs = Number(process.env.BENCH_RUNS ?? 9)

interface Sample {
  jsRaw: number
  jsGzip: number
  jsFiles: number
  mountedMs: number
}

async function coldLoad(appUrl: string): Promise<Sample> {
  const userDataDir = mkdtempSync(path.join(os.tmpdir(), 'tessera-bench-'))
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: '/usr/bin/chromium',
    args: chromiumArgs,
  })
  try {
    const page = await context.newPage()
    const bodies: Promise<Buffer | null>[] = []
    page.on('response', (response) => {
      const type = response.request().resourceType()
      if (type === 'script' || response.url().endsWith('.js'))
        bodies.push(response.body().catch(() => null))
    })
    await page.goto(`${appUrl}/assistant`)
    // The first remote page counts as mounted when its heading is in the DOM.
    const mountedMs = await page
      .waitForFunction(
        () =>
          document.querySelector('main [data-tessera-remote="ai"] h1') ? performance.now() : 0,
        undefined,
        { polling: 'raf', timeout: 30_000 },
      )
      .then((handle) => handle.jsonValue() as Promise<number>)
    await page.waitForLoadState('networkidle')
    const scripts = (await Promise.all(bodies)).filter((b): b is Buffer => b !== null)
    return {
      jsFiles: scripts.length,
      jsRaw: scripts.reduce((sum, b) => sum + b.length, 0),
      jsGzip: scripts.reduce((sum, b) => sum + gzipSync(b).length, 0),
      mountedMs,
    }
  } finally {
    await context.close()
    rmSync(userDataDir, { recursive: true, force: true })
  }
}

await buildWhatIsNeeded()
await run('npm', ['run', 'build', '-w', 'host'], { env: { TESSERA_MONOLITH: '1' } })

const federated = await startStack({
  bffPort: 0,
  cdnPort: 0,
  dataDir: '.tessera/bench',
  hostDist: 'host/dist',
})
const monolith = await startStack({
  bffPort: 0,
  cdnPort: 0,
  dataDir: '.tessera/bench-monolith',
  hostDist: 'host/dist-monolith',
})
const samples = { federated: [] as Sample[], monolith: [] as Sample[] }
try {
  await coldLoad(federated.appUrl) // warm the OS file cache and the servers, not the browser
  await coldLoad(monolith.appUrl)
  for (let i = 0; i < runs; i++) {
    samples.federated.push(await coldLoad(federated.appUrl))
    samples.monolith.push(await coldLoad(monolith.appUrl))
  }
} finally {
  await federated.close()
  await monolith.close()
}

const m = (list: Sample[], key: keyof Sample): number => median(list.map((s) => s[key]))
const kb = (bytes: number): string => `${(bytes / 1024).toFixed(1)} KB`
const ratio = (key: keyof Sample): number => m(samples.federated, key) / m(samples.monolith, key)
report(
  'cold-load',
  ['build', 'JS files', 'JS raw', 'JS gzip', 'first remote page mounted (median)'],
  [
    [
      'federated',
      String(m(samples.federated, 'jsFiles')),
      kb(m(samples.federated, 'jsRaw')),
      kb(m(samples.federated, 'jsGzip')),
      `${m(samples.federated, 'mountedMs').toFixed(0)} ms`,
    ],
    [
      'monolith',
      String(m(samples.monolith, 'jsFiles')),
      kb(m(samples.monolith, 'jsRaw')),
      kb(m(samples.monolith, 'jsGzip')),
      `${m(samples.monolith, 'mountedMs').toFixed(0)} ms`,
    ],
    [
      'federated ÷ monolith (goal ≤ 1.15 gzip, ≤ 1.2 time)',
      '',
      ratio('jsRaw').toFixed(2),
      ratio('jsGzip').toFixed(2),
      ratio('mountedMs').toFixed(2),
    ],
  ],
  { runs, samples, repoRoot },
)
