import { randomUUID } from 'node:crypto'
import {
  clusterAccount,
  clusterDatabase,
  listenerBackends,
  logLines,
  logOffsets,
  openLiveStream,
  stateChanging,
  type ReceivedEvent,
} from '../support/cluster-api.ts'
import { clusterTest as test, expect } from '../support/cluster.ts'

// Should the test end while a replica is paused (a timeout), the worker's cluster gets it back.
test.afterEach(({ cluster }) => {
  for (const replica of cluster.replicas) process.kill(cluster.pidOf(replica.name), 'SIGCONT')
})

test('a replica whose LISTEN connection is cut listens again and delivers the event published meanwhile, once', async ({
  request,
  cluster,
}) => {
  const [listening, publishing, other] = cluster.replicas
  if (listening === undefined || publishing === undefined || other === undefined)
    throw new Error('The cluster has fewer than three replicas')
  const { cookie } = await clusterAccount(request, cluster, 'listen-gap')
  // A profile change publishes USER_UPDATED to the user's streams, through the outbox.
  const rename = async (url: string, displayName: string) => {
    const response = await fetch(`${url}/api/me/profile`, {
      method: 'PATCH',
      headers: stateChanging(cluster, cookie),
      body: JSON.stringify({ displayName }),
    })
    expect(response.status, await response.clone().text()).toBe(200)
  }
  const named = (events: ReceivedEvent[], displayName: string) =>
    events.filter((event) => {
      const user = (event.data as { user?: { displayName?: string } | null }).user
      return event.type === 'auth' && user?.displayName === displayName
    })

  const db = clusterDatabase(cluster)
  const stream = await openLiveStream(listening.url, cookie)
  try {
    const [before] = await listenerBackends(db, cluster, listening)
    expect(before, `${listening.name}'s listener backend`).toBeDefined()
    expect(await listenerBackends(db, cluster, listening)).toHaveLength(1)

    const logStart = logOffsets(cluster)
    // The replica is paused while its listener is cut and the event is published, so it cannot
    // listen again before the event's NOTIFY has come and gone: the event is in the gap.
    const pid = cluster.pidOf(listening.name)
    process.kill(pid, 'SIGSTOP')
    let gap: string
    try {
      const { rows } = await db.query<{ terminated: boolean }>(
        'select pg_terminate_backend($1) as terminated',
        [before!.pid],
      )
      expect(rows[0]?.terminated).toBe(true)
      await expect.poll(async () => (await listenerBackends(db, cluster, listening)).length).toBe(0)
      gap = `Gap ${randomUUID().slice(0, 8)}`
      await rename(publishing.url, gap)
    } finally {
      process.kill(pid, 'SIGCONT')
    }

    // Listening again, on a new backend, and ready.
    await expect
      .poll(() => logLines(cluster, logStart)[listening.name]?.map((line) => line.msg))
      .toEqual(
        expect.arrayContaining([
          'live events listener dropped; reconnecting',
          'live events listener reconnected',
        ]),
      )
    await expect
      .poll(async () => (await listenerBackends(db, cluster, listening)).map((b) => b.pid))
      .toEqual([expect.any(Number)])
    const [after] = await listenerBackends(db, cluster, listening)
    expect(after!.pid).not.toBe(before!.pid)
    await expect
      .poll(async () => (await fetch(`${listening.url}/api/health/ready`)).status)
      .toBe(200)

    // The event of the gap reached the stream that stayed open on the replica.
    await expect.poll(() => named(stream.events, gap).length).toBe(1)
    // One more, published through the third replica after the gap, arrives behind it…
    const later = `Later ${randomUUID().slice(0, 8)}`
    await rename(other.url, later)
    await expect.poll(() => named(stream.events, later).length).toBe(1)
    // …and by then the gap's event has still come exactly once, in outbox order.
    expect(named(stream.events, gap)).toHaveLength(1)
    expect(stream.open()).toBe(true)
    const positions = stream.events
      .filter((event) => event.type !== 'connection.opened')
      .map((event) => Number(event.sseId))
    expect(positions).toEqual([...new Set(positions)].sort((a, b) => a - b))
    expect(Number(named(stream.events, gap)[0]!.sseId)).toBeLessThan(
      Number(named(stream.events, later)[0]!.sseId),
    )
  } finally {
    stream.close()
    await db.close()
  }
})
