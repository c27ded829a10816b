/**
 * Cold loads of the federated host against a monolith build of the same host with the same
 * plugins imported statically, measured in the same run, in headless Chromium.
 *
 * Fairness: both builds are served by identical stacks in a process of their own (logs at warn,
 * so request logging adds no work, and the browser driver never delays a response); each load
 * starts a fresh browser with an empty profile (nothing cached); one warm-up load per build is
 * discarded (it warms the servers and the OS file cache, never the browser); and the order of the
 * two builds alternates from one round to the next so neither always goes first.
 * The mount time is taken inside the page, when the heading is inserted, so polling from the
 * test driver neither delays nor adds to it; bodies are read after the load, not during it.
 *
 * `BENCH_RUNS` (default 9, at least 9 for the table) sets the rounds; `BENCH_WATERFALL=1` also
 * prints when each file of one federated and one monolith load was requested and arrived.
 */
import { gzipSync } from 'node:zlib'
import { mkdtempSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { chromium, type Response } from 'playwright-core'
import { buildWhatIsNeeded, run } from '../../scripts/lib/build.ts'
import { chromiumArgs, chromiumPath, median, repoRoot, report } from './lib.ts'
import { startStacksProcess, type BenchTarget } from './stacks-process.ts'

const runs = Number(process.env.BENCH_RUNS ?? 9)
const showWaterfall = process.env.BENCH_WATERFALL === '1'
if (!Number.isInteger(runs) || runs < 1) throw new Error(`BENCH_RUNS must be a positive integer`)

/** The first remote page: the assistant's heading inside its outlet in <main>. */
const MOUNTED_SELECTOR = 'main [data-tessera-remote="ai"] h1'

interface Sample {
  jsRaw: number
  jsGzip: number
  jsFiles: number
  /** ms from navigation start until the first remote page's heading was in the DOM. */
  mountedMs: number
  /** ms from navigation start until the three navigation links were in the DOM. */
  navMs: number
}

interface WaterfallRow {
  file: string
  startMs: number
  endMs: number
}

/**
 * Records, inside the page, when the navigation and then the remote page first appear. A string,
 * not a function: tsx compiles functions with name helpers that do not exist in the page.
 */
const markMilestones = `(() => {
  const observer = new MutationObserver(() => {
    if (window.__benchNav === undefined && document.querySelectorAll('nav a').length >= 3)
      window.__benchNav = performance.now()
    if (window.__benchMounted === undefined && document.querySelector(${JSON.stringify(MOUNTED_SELECTOR)}))
      window.__benchMounted = performance.now()
    if (window.__benchNav !== undefined && window.__benchMounted !== undefined) observer.disconnect()
  })
  observer.observe(document, { subtree: true, childList: true })
})()`

async function coldLoad(
  target: BenchTarget,
): Promise<{ sample: Sample; waterfall: WaterfallRow[] }> {
  const userDataDir = mkdtempSync(path.join(os.tmpdir(), 'tessera-bench-'))
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: chromiumPath,
    args: chromiumArgs,
  })
  try {
    if (target.cookie) await context.addCookies([{ ...target.cookie, url: target.url }])
    const page = await context.newPage()
    await page.addInitScript(markMilestones)
    const scripts: Response[] = []
    page.on('response', (response) => {
      const type = response.request().resourceType()
      if (type === 'script' || response.url().endsWith('.js')) scripts.push(response)
    })
    await page.goto(`${target.url}/assistant`)
    const milestones = await page
      .waitForFunction(
        () => {
          const marks = window as unknown as { __benchNav?: number; __benchMounted?: number }
          return marks.__benchMounted === undefined
            ? null
            : { mountedMs: marks.__benchMounted, navMs: marks.__benchNav ?? Number.NaN }
        },
        undefined,
        { polling: 100, timeout: 30_000 },
      )
      .then((handle) => handle.jsonValue() as Promise<{ mountedMs: number; navMs: number }>)
    // The slots load after the page; everything the page loads counts.
    await page.waitForLoadState('networkidle')
    const waterfall = showWaterfall
      ? await page.evaluate(() =>
          performance.getEntriesByType('resource').map((entry) => ({
            file: entry.name,
            startMs: Math.round(entry.startTime),
            endMs: Math.round((entry as PerformanceResourceTiming).responseEnd),
          })),
        )
      : []
    // Preloads and imports of one URL are one response; count each file once.
    const unique = new Map(scripts.map((response) => [response.url(), response]))
    const bodies = await Promise.all(
      [...unique.values()].map((response) => response.body().catch(() => null)),
    )
    const js = bodies.filter((b): b is Buffer => b !== null)
    return {
      sample: {
        jsFiles: js.length,
        jsRaw: js.reduce((sum, b) => sum + b.length, 0),
        jsGzip: js.reduce((sum, b) => sum + gzipSync(b).length, 0),
        ...milestones,
      },
      waterfall,
    }
  } finally {
    await context.close()
    rmSync(userDataDir, { recursive: true, force: true })
  }
}

function printWaterfall(build: string, rows: WaterfallRow[], sample: Sample): void {
  console.log(
    `\n${build}: nav drawn ${sample.navMs.toFixed(0)} ms, page mounted ${sample.mountedMs.toFixed(0)} ms`,
  )
  for (const row of rows) {
    const file = new URL(row.file).pathname
    console.log(`${String(row.startMs).padStart(6)} → ${String(row.endMs).padStart(5)}  ${file}`)
  }
}

await buildWhatIsNeeded()
await run('npm', ['run', 'build', '-w', 'host'], { env: { TESSERA_MONOLITH: '1' } })

const stacks = await startStacksProcess()
const builds = [
  { name: 'federated', target: stacks.federated },
  { name: 'monolith', target: stacks.monolith },
] as const
const samples: Record<(typeof builds)[number]['name'], Sample[]> = { federated: [], monolith: [] }
try {
  // Warm the OS file cache and the servers, not the browser: these loads are discarded.
  for (const build of builds) await coldLoad(build.target)
  for (let round = 0; round < runs; round++) {
    const order = round % 2 === 0 ? builds : [...builds].reverse()
    for (const build of order) {
      const { sample, waterfall } = await coldLoad(build.target)
      samples[build.name].push(sample)
      if (round === 0 && showWaterfall) printWaterfall(build.name, waterfall, sample)
    }
    process.stdout.write(`round ${round + 1}/${runs}\r`)
  }
} finally {
  await stacks.close()
}

const m = (list: Sample[], key: keyof Sample): number => median(list.map((s) => s[key]))
const kb = (bytes: number): string => `${(bytes / 1024).toFixed(1)} KB`
const ratio = (key: keyof Sample): number => m(samples.federated, key) / m(samples.monolith, key)
const row = (name: keyof typeof samples): string[] => [
  name,
  String(m(samples[name], 'jsFiles')),
  kb(m(samples[name], 'jsRaw')),
  kb(m(samples[name], 'jsGzip')),
  `${m(samples[name], 'navMs').toFixed(0)} ms`,
  `${m(samples[name], 'mountedMs').toFixed(0)} ms`,
]
console.log(
  `\nCold load of /assistant, ${runs} alternating runs per build in headless Chromium, medians` +
    (runs < 9 ? ' (fewer than 9 runs: not for the README)' : ''),
)
report(
  'cold-load',
  ['build', 'JS files', 'JS raw', 'JS gzip', 'navigation drawn', 'first remote page mounted'],
  [
    row('federated'),
    row('monolith'),
    [
      'federated ÷ monolith (goal ≤ 1.15 gzip, ≤ 1.2 mounted)',
      '',
      ratio('jsRaw').toFixed(2),
      ratio('jsGzip').toFixed(2),
      ratio('navMs').toFixed(2),
      ratio('mountedMs').toFixed(2),
    ],
  ],
  { runs, samples, repoRoot },
)
