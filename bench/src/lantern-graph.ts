/**
 * What Lighthouse's simulated LCP waits for (decision 044): audits the artifacts of a run again
 * (`lighthouse <url> -G=<dir>`, same flags) and prints the simulated LCP and FCP and the node
 * timings of one graph (LCP's optimistic one unless `--graph`/`--metric` say otherwise), requests
 * and main-thread tasks by start time. With `--without <regex>`
 * it first takes the requests whose URL matches out of the devtools log and the trace (in a copy
 * of the folder), to see what each one costs the estimate:
 * `npx tsx bench/src/lantern-graph.ts <artifacts dir> <url> [--cookie "<a=b>"] [--without "<regex>"]
 * [--graph pessimistic] [--metric FirstContentfulPaint]`. Lighthouse's LCP is the mean of its
 * optimistic and pessimistic graphs, and never below its FCP.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import lighthouse from 'lighthouse'
import * as Lantern from 'lighthouse/core/lib/lantern/lantern.js'
import { chromiumPath } from './lib.ts'

interface TraceEvent {
  name?: string
  args?: { data?: { requestId?: string; url?: string } }
}
interface DevtoolsMessage {
  method?: string
  params?: { requestId?: string; request?: { url?: string } }
}

const [dir, url, ...rest] = process.argv.slice(2)
if (!dir || !url)
  throw new Error('usage: lantern-graph.ts <artifacts dir> <url> [--cookie c] [--without regex]')
const option = (name: string): string | undefined => {
  const at = rest.indexOf(name)
  return at === -1 ? undefined : rest[at + 1]
}
const cookie = option('--cookie')
const without = option('--without')
/** Which of the LCP's two graphs to print: `optimistic` (the default) or `pessimistic`. */
const graph = option('--graph') ?? 'optimistic'
/** Whose graph: `LargestContentfulPaint` (the default) or `FirstContentfulPaint` (LCP is never below it). */
const metric = option('--metric') ?? 'LargestContentfulPaint'

/** A copy of the artifacts without the requests whose URL matches `pattern`. */
function withoutRequests(source: string, pattern: RegExp): string {
  const copy = mkdtempSync(path.join(tmpdir(), 'lantern-'))
  cpSync(source, copy, { recursive: true })
  const logFile = path.join(copy, 'defaultPass.devtoolslog.json')
  const log = JSON.parse(readFileSync(logFile, 'utf8')) as DevtoolsMessage[]
  const ids = new Set(
    log
      .filter(
        (m) =>
          m.method === 'Network.requestWillBeSent' && pattern.test(m.params?.request?.url ?? ''),
      )
      .map((m) => m.params?.requestId),
  )
  writeFileSync(logFile, JSON.stringify(log.filter((m) => !ids.has(m.params?.requestId))))
  const traceFile = path.join(copy, 'defaultPass.trace.json')
  const trace = JSON.parse(readFileSync(traceFile, 'utf8')) as { traceEvents: TraceEvent[] }
  const traced = new Set(
    trace.traceEvents
      .filter((e) => e.name === 'ResourceSendRequest' && pattern.test(e.args?.data?.url ?? ''))
      .map((e) => e.args?.data?.requestId),
  )
  trace.traceEvents = trace.traceEvents.filter((e) => !traced.has(e.args?.data?.requestId ?? '\0'))
  writeFileSync(traceFile, JSON.stringify(trace))
  console.log(`without ${ids.size} request(s) matching ${pattern}`)
  return copy
}

const artifacts = without === undefined ? dir : withoutRequests(dir, new RegExp(without))
process.env.CHROME_PATH = chromiumPath
try {
  const result = await lighthouse(url, {
    auditMode: artifacts,
    onlyCategories: ['performance'],
    logLevel: 'error',
    ...(cookie === undefined ? {} : { extraHeaders: { Cookie: cookie } }),
  })
  const lcp = result?.lhr.audits['largest-contentful-paint']?.numericValue ?? Number.NaN
  const fcp = result?.lhr.audits['first-contentful-paint']?.numericValue ?? Number.NaN
  console.log(`simulated LCP ${Math.round(lcp)} ms, FCP ${Math.round(fcp)} ms`)
  for (const [label, timings] of Lantern.Simulation.Simulator.allNodeTimings) {
    if (label !== `${graph}${metric}`) continue
    const rows = [...timings.entries()].map(([node, timing]) => ({
      start: timing.startTime,
      end: timing.endTime,
      what:
        node.type === 'network'
          ? `${node.request.url.replace(/^https?:\/\/[^/]+/, '')} (${node.request.transferSize} B)`
          : 'main thread',
    }))
    for (const row of rows.sort((a, b) => a.start - b.start))
      console.log(
        `${Math.round(row.start).toString().padStart(6)} ${Math.round(row.end).toString().padStart(6)}  ${row.what}`,
      )
  }
} finally {
  if (artifacts !== dir) rmSync(artifacts, { recursive: true, force: true })
}
