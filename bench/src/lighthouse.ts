/**
 * Lighthouse (its npm package, mobile defaults: simulated slow 4G and 4× CPU) on the pages a
 * visitor judges first, in Debian's Chromium: the landing page `/`, `/auth/sign-in` signed out,
 * and `/assistant` signed in. The monolith build of the same host and plugins is measured on the
 * same pages in the same run, for the federated ÷ monolith LCP ratio.
 *
 * Each run launches a fresh Chromium (chrome-launcher's fresh temporary profile), so every load
 * is cold; the federated and the monolith build alternate, and one discarded warm-up run per
 * build warms the servers and the OS file cache. The signed-in page gets the bench account's
 * session cookie through Lighthouse's `extraHeaders`. `BENCH_RUNS` (default 3) sets the runs per
 * page and build; the figures are medians. `BENCH_LHR_DIR=<dir>` also keeps each run's full report
 * (JSON) there, for the audits' details. Beside the simulated LCP, the table gives Chromium's own
 * LCP in the unthrottled load the simulation starts from ("observed"): the simulation models
 * requests and CPU, not a wait on a timer, so a page that waits shows only in the observed one.
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import * as chromeLauncher from 'chrome-launcher'
import lighthouse from 'lighthouse'
import { buildWhatIsNeeded, run } from '../../scripts/lib/build.ts'
import { chromiumPath, median, report } from './lib.ts'
import { startStacksProcess, type BenchTarget } from './stacks-process.ts'

const runs = Number(process.env.BENCH_RUNS ?? 3)
if (!Number.isInteger(runs) || runs < 1) throw new Error('BENCH_RUNS must be a positive integer')
const reportDir = process.env.BENCH_LHR_DIR
if (reportDir) mkdirSync(reportDir, { recursive: true })
let reportCount = 0

/** The flags this project's Chromium runs Lighthouse with (chrome-launcher adds its defaults). */
const CHROME_FLAGS = ['--headless', '--no-sandbox', '--disable-gpu']

const CATEGORIES = ['performance', 'accessibility', 'best-practices', 'seo'] as const

interface PageUnderTest {
  path: string
  signedIn: boolean
}

const pages: PageUnderTest[] = [
  { path: '/', signedIn: false },
  { path: '/auth/sign-in', signedIn: false },
  { path: '/assistant', signedIn: true },
]

interface Sample {
  performance: number
  accessibility: number
  bestPractices: number
  seo: number
  fcpMs: number
  lcpMs: number
  /** Chromium's own LCP in the unthrottled load the simulation starts from. */
  observedLcpMs: number
  tbtMs: number
  cls: number
  transferBytes: number
  /** The audits of a category that did not pass, for the table's notes. */
  failing: string[]
}

class LighthouseRuntimeError extends Error {}

async function lighthouseRun(target: BenchTarget, page: PageUnderTest): Promise<Sample> {
  if (page.signedIn && !target.cookie) throw new Error(`${page.path} needs a signed-in visitor`)
  const chrome = await chromeLauncher.launch({
    chromePath: chromiumPath,
    chromeFlags: CHROME_FLAGS,
  })
  try {
    const result = await lighthouse(`${target.url}${page.path}`, {
      port: chrome.port,
      output: 'json',
      logLevel: 'error',
      onlyCategories: [...CATEGORIES],
      ...(page.signedIn && target.cookie
        ? { extraHeaders: { Cookie: `${target.cookie.name}=${target.cookie.value}` } }
        : {}),
    })
    if (!result) throw new Error(`Lighthouse returned nothing for ${page.path}`)
    const { lhr } = result
    if (reportDir) {
      const name = `${++reportCount}-${new URL(target.url).port}${page.path.replace(/\//g, '_')}.json`
      writeFileSync(path.join(reportDir, name), JSON.stringify(lhr))
    }
    if (lhr.runtimeError) {
      throw new LighthouseRuntimeError(
        `Lighthouse on ${page.path}: ${lhr.runtimeError.code} ${lhr.runtimeError.message}`,
      )
    }
    const score = (id: (typeof CATEGORIES)[number]): number =>
      Math.round((lhr.categories[id]?.score ?? Number.NaN) * 100)
    const numeric = (id: string): number => lhr.audits[id]?.numericValue ?? Number.NaN
    const observed = (
      lhr.audits.metrics?.details as { items?: Record<string, number>[] } | undefined
    )?.items?.[0]?.observedLargestContentfulPaint
    const failing = CATEGORIES.filter((id) => id !== 'performance').flatMap((id) =>
      (lhr.categories[id]?.auditRefs ?? [])
        .filter((ref) => ref.weight > 0)
        .filter((ref) => {
          const audit = lhr.audits[ref.id]
          return audit !== undefined && audit.score !== null && audit.score < 1
        })
        .map((ref) => `${id}:${ref.id}`),
    )
    return {
      performance: score('performance'),
      accessibility: score('accessibility'),
      bestPractices: score('best-practices'),
      seo: score('seo'),
      fcpMs: numeric('first-contentful-paint'),
      lcpMs: numeric('largest-contentful-paint'),
      observedLcpMs: observed ?? Number.NaN,
      tbtMs: numeric('total-blocking-time'),
      cls: numeric('cumulative-layout-shift'),
      transferBytes: numeric('total-byte-weight'),
      failing,
    }
  } finally {
    chrome.kill()
  }
}

/**
 * A run, tried again (up to twice) when Lighthouse could not record the load (NO_NAVSTART and
 * the like, seen now and then on a busy machine): a recording failure, not a measurement.
 */
async function measure(target: BenchTarget, page: PageUnderTest): Promise<Sample> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await lighthouseRun(target, page)
    } catch (error) {
      if (!(error instanceof LighthouseRuntimeError) || attempt === 3) throw error
      console.warn(`${error.message}; running it again`)
    }
  }
}

function medianOf(samples: Sample[], key: Exclude<keyof Sample, 'failing'>): number {
  return median(samples.map((sample) => sample[key]))
}

await buildWhatIsNeeded()
await run('npm', ['run', 'build', '-w', 'host'], { env: { TESSERA_MONOLITH: '1' } })

const stacks = await startStacksProcess()
const builds = [
  { name: 'federated', target: stacks.federated },
  { name: 'monolith', target: stacks.monolith },
] as const
type BuildName = (typeof builds)[number]['name']
const samples = new Map<string, Sample[]>()
const key = (build: BuildName, page: PageUnderTest) => `${build} ${page.path}`
try {
  for (const build of builds) await measure(build.target, pages[1]!)
  for (let round = 0; round < runs; round++) {
    for (const page of pages) {
      const order = round % 2 === 0 ? builds : [...builds].reverse()
      for (const build of order) {
        const sample = await measure(build.target, page)
        samples.set(key(build.name, page), [...(samples.get(key(build.name, page)) ?? []), sample])
        console.log(
          `round ${round + 1}/${runs} ${build.name.padEnd(9)} ${page.path.padEnd(14)} perf ${sample.performance} FCP ${sample.fcpMs.toFixed(0)} LCP ${sample.lcpMs.toFixed(0)} (observed ${sample.observedLcpMs.toFixed(0)}) TBT ${sample.tbtMs.toFixed(0)} CLS ${sample.cls.toFixed(3)} ${(sample.transferBytes / 1024).toFixed(0)} KiB${sample.failing.length ? ` failing: ${sample.failing.join(', ')}` : ''}`,
        )
      }
    }
  }
} finally {
  await stacks.close()
}

const ms = (value: number): string => `${(value / 1000).toFixed(2)} s`
const rows: string[][] = []
for (const page of pages) {
  for (const build of builds) {
    const list = samples.get(key(build.name, page)) ?? []
    const failing = [...new Set(list.flatMap((sample) => sample.failing))]
    rows.push([
      `${page.path}${page.signedIn ? ' (signed in)' : ''}`,
      build.name,
      String(list.length),
      medianOf(list, 'performance').toFixed(0),
      ms(medianOf(list, 'fcpMs')),
      ms(medianOf(list, 'lcpMs')),
      `${medianOf(list, 'observedLcpMs').toFixed(0)} ms`,
      `${medianOf(list, 'tbtMs').toFixed(0)} ms`,
      medianOf(list, 'cls').toFixed(3),
      medianOf(list, 'accessibility').toFixed(0),
      medianOf(list, 'bestPractices').toFixed(0),
      medianOf(list, 'seo').toFixed(0),
      `${(medianOf(list, 'transferBytes') / 1024).toFixed(0)} KiB`,
      failing.join(', '),
    ])
  }
  const lcp = (build: BuildName) => medianOf(samples.get(key(build, page)) ?? [], 'lcpMs')
  rows.push([
    page.path,
    'federated ÷ monolith LCP (goal ≤ 1.05)',
    '',
    '',
    '',
    (lcp('federated') / lcp('monolith')).toFixed(2),
    '',
    '',
    '',
    '',
    '',
    '',
    '',
    '',
  ])
}

report(
  'lighthouse',
  [
    'page',
    'build',
    'runs',
    'Performance',
    'FCP',
    'LCP',
    'LCP observed',
    'TBT',
    'CLS',
    'A11y',
    'Best practices',
    'SEO',
    'transfer',
    'audits not passed',
  ],
  rows,
  Object.fromEntries(samples),
)
