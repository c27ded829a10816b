/**
 * The cluster: 3 BFF replicas behind HAProxy on one PostgreSQL server (scripts/lib/cluster.ts),
 * on this machine's cores, loopback only. This file starts it, signs the bench account in and runs
 * the parts, each in a file of its own that prints its table:
 *
 * 1. Throughput (cluster-throughput.ts): `GET /api/me` (signed in) with autocannon through HAProxy
 *    with 1, 2 and 3 replicas in service (the others set to `maint` on HAProxy's admin socket),
 *    against one replica straight, without HAProxy, measured in the same run. Errors must be 0.
 * 2. Fan-out (cluster-fanout.ts): 600 event streams (`GET /api/events`, one signed-in user) spread
 *    by HAProxy over the 3 replicas and held by 3 processes of their own (cluster-streams.ts: one
 *    process parsing 15,000 events a second was part of what it measured; each reports how busy
 *    its event loop was); then, after 50 not counted, 3 rounds of 200 profile updates sent to
 *    replicas chosen at random, each publishing a live event to every stream of the user. For
 *    each event: how many streams got it (lost), how many twice (duplicates), and the time from
 *    its outbox row's insert (PostgreSQL's clock, the same machine; the commit follows at once,
 *    publishing being the transaction's last statement) to the last stream that got it; and the
 *    replicas' CPU time per delivery (publishing included). This measures whatever the BFF does:
 *    with an in-process hub an event reaches only the streams on the replica that published it.
 * 3. The cost of sharing (cluster-sharing.ts, docs/decisions/019): on the cluster's PostgreSQL,
 *    one BFF counting its limits there and one counting them in memory (`SHARED_LIMITS=false`),
 *    in a process of their own (cluster-sharing-servers.ts), in turn: `GET /api/me` against a bare
 *    Hono route, and a chat send's time to first token against the OpenAI stand-in asked directly.
 *    The cluster's replicas are stopped meanwhile (one replica's path is measured; on these two
 *    cores the others would wake on each of its events) and started again after.
 * 4. Failover (cluster-failover.ts): the throughput load again while one replica is stopped
 *    (SIGTERM: it drains) and then another is killed (SIGKILL), 2 s into each run. Every request
 *    must still succeed.
 *
 * `BENCH_CLUSTER_PARTS` (throughput, fan-out, sharing, failover; comma-separated) runs some only.
 */
import { rmSync } from 'node:fs'
import path from 'node:path'
import { startCluster } from '../../scripts/lib/cluster.ts'
import { signInBenchAccount } from './bench-account.ts'
import { failover } from './cluster-failover.ts'
import { fanOut } from './cluster-fanout.ts'
import { sharing } from './cluster-sharing.ts'
import { throughput } from './cluster-throughput.ts'
import { repoRoot } from './lib.ts'

/** Which parts to run (comma-separated): throughput, fan-out, sharing, failover; all by default. */
const parts = new Set(
  (process.env.BENCH_CLUSTER_PARTS ?? 'throughput,fan-out,sharing,failover').split(','),
)
const dataDir = '.tessera/bench-cluster'

rmSync(path.join(repoRoot, dataDir), { recursive: true, force: true })
const cluster = await startCluster({
  replicas: 3,
  port: 0,
  cdnPort: 0,
  dataDir,
  // As deployed: every replica writes its access log (to a file here).
  logLevel: 'info',
  skipPublish: true,
  drainTimeoutSeconds: 5,
  replicaEnv: { EMAIL_SEND_RATE_LIMIT: '10000' },
})
try {
  const account = await signInBenchAccount(cluster)
  if (!account) throw new Error('the cluster offers no sign-up')
  const cookie = `${account.name}=${account.value}`
  const lbUrl = cluster.appUrl.replace('localhost', '127.0.0.1')

  if (parts.has('throughput')) await throughput(cluster, lbUrl, cookie)
  if (parts.has('fan-out')) await fanOut(cluster, lbUrl, cookie, dataDir)
  if (parts.has('sharing')) {
    // One replica's path is measured: the cluster's replicas are stopped meanwhile, so they do not
    // wake on its events on the same two cores (on separate hosts they would not share them).
    for (const replica of cluster.replicas) await cluster.kill(replica.name, 'SIGTERM')
    await sharing(cluster.databaseUrl, dataDir)
    for (const replica of cluster.replicas) await cluster.restart(replica.name)
    await cluster.waitForBackends('UP')
  }
  if (parts.has('failover')) await failover(cluster, lbUrl, cookie)
} finally {
  await cluster.close()
}
