/**
 * Part 4 of the cluster bench (cluster.ts), the failover: the throughput load again while one
 * replica is stopped (SIGTERM: it drains) and then another is killed (SIGKILL), 2 s into each
 * run. Every request must still succeed.
 */
import type { RunningCluster } from '../../scripts/lib/cluster.ts'
import { load } from './cluster-throughput.ts'
import { report, sleep } from './lib.ts'

export async function failover(
  cluster: RunningCluster,
  lbUrl: string,
  cookie: string,
): Promise<void> {
  // Failover under load: a drain, then a crash, each 2 s into a run.
  const underLoad = async (name: string, signal: NodeJS.Signals) => {
    const stopped = sleep(2000).then(() => cluster.kill(name, signal))
    const result = await load(`${lbUrl}/api/me`, cookie, 6)
    await stopped
    return result
  }
  const drained = await underLoad('bff2', 'SIGTERM')
  const killed = await underLoad('bff3', 'SIGKILL')
  const after = await cluster.backends()
  report(
    'cluster-failover',
    ['GET /api/me through HAProxy, 6 s', 'requests/s', 'p99', 'errors', 'retried elsewhere'],
    [
      [
        'bff2 stopped (SIGTERM, drains) after 2 s',
        String(drained.rps),
        `${drained.p99} ms`,
        String(drained.errors),
        String(after.find((state) => state.name === 'bff2')?.redispatched ?? 0),
      ],
      [
        'bff3 killed (SIGKILL) after 2 s',
        String(killed.rps),
        `${killed.p99} ms`,
        String(killed.errors),
        String(after.find((state) => state.name === 'bff3')?.redispatched ?? 0),
      ],
    ],
    { drained, killed, after },
  )
}
