/**
 * Part 1 of the cluster bench (cluster.ts), the throughput: `GET /api/me` (signed in) with
 * autocannon through HAProxy with 1, 2 and 3 replicas in service (the others set to `maint` on
 * HAProxy's admin socket), against one replica straight, without HAProxy, measured in the same
 * run. Errors must be 0. Its load (`load`) is also the other parts'.
 */
import autocannon from 'autocannon'
import type { RunningCluster } from '../../scripts/lib/cluster.ts'
import { haproxyCommand } from '../../scripts/lib/haproxy.ts'
import { report } from './lib.ts'

export const connections = 50
export const seconds = Number(process.env.BENCH_SECONDS ?? 8)

export interface Load {
  rps: number
  p99: number
  errors: number
}

export async function load(url: string, cookie: string, duration = seconds): Promise<Load> {
  const result = await autocannon({ url, connections, duration, headers: { cookie } })
  return {
    rps: Math.round(result.requests.average),
    p99: result.latency.p99,
    errors: result.errors + result.non2xx + result.timeouts,
  }
}

export async function throughput(
  cluster: RunningCluster,
  lbUrl: string,
  cookie: string,
): Promise<void> {
  const names = cluster.replicas.map((replica) => replica.name)
  const inService = async (count: number) => {
    for (const [index, name] of names.entries()) {
      await haproxyCommand(
        cluster.statsSocket,
        `set server bff/${name} state ${index < count ? 'ready' : 'maint'}`,
      )
    }
    await cluster.waitForBackends('UP', names.slice(0, count))
  }

  // Throughput. Warm-up on every replica (JIT, caches), discarded.
  await load(`${lbUrl}/api/me`, cookie, 3)
  const direct = await load(`http://127.0.0.1:${cluster.replicas[0]!.port}/api/me`, cookie)
  const behind: Load[] = []
  for (const count of [1, 2, 3]) {
    await inService(count)
    behind.push(await load(`${lbUrl}/api/me`, cookie))
  }
  const throughputRows = [
    [
      '1 replica, straight (reference)',
      String(direct.rps),
      `${direct.p99} ms`,
      String(direct.errors),
    ],
    ...behind.map((result, index) => [
      `${index + 1} behind HAProxy`,
      String(result.rps),
      `${result.p99} ms`,
      String(result.errors),
    ]),
    ['3 behind HAProxy ÷ 1 straight', (behind[2]!.rps / direct.rps).toFixed(2), '', ''],
  ]
  report(
    'cluster-throughput',
    [`GET /api/me, ${connections} connections, ${seconds} s`, 'requests/s', 'p99', 'errors'],
    throughputRows,
    { direct, behind, seconds, connections },
  )
}
