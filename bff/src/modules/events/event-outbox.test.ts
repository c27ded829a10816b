import { LIVE_EVENT_NAME, RESYNC_EVENT_TYPE } from '@tessera/contracts'
import type { LiveEvent } from '@tessera/contracts'
import type { Sql } from '@tessera/db/sql'
import { testDatabaseKind } from '@tessera/db/testing'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { withUser } from '../../platform/db/with-user.ts'
import { createLogger } from '../../platform/logger.ts'
import { createManualClock, createTestApp, sseReader, waitFor } from '../../testing/app.ts'
import { createBffTestDatabase, databaseSetupTimeout } from '../../testing/identity.ts'
import { createEventHub, createLiveEvent } from './event-hub.ts'
import type { EventHub, HubMessage } from './event-hub.ts'
import { createOutboxBus, startEventRelay } from './event-outbox.ts'
import type { EventRelay } from './event-outbox.ts'

const clock = createManualClock()
const logger = createLogger({ level: 'silent' })

let db: Sql
beforeAll(async () => {
  db = await createBffTestDatabase()
}, databaseSetupTimeout)
afterAll(async () => {
  await db.close()
})

/** One BFF replica's part: its hub and its relay over the shared database. */
interface Replica {
  hub: EventHub
  relay: EventRelay
  heard: HubMessage[]
}

const running: EventRelay[] = []
afterEach(async () => {
  await Promise.all(running.splice(0).map((relay) => relay.close()))
})

async function startReplica(options: { retentionMs?: number; pollMs?: number; sql?: Sql } = {}) {
  const hub = createEventHub()
  const heard: HubMessage[] = []
  hub.subscribe({
    topics: ['broadcast', 'internal', 'user:ada'],
    onEvent: (_event, message) => heard.push(message),
  })
  const relay = await startEventRelay({
    sql: options.sql ?? db,
    hub,
    logger,
    retentionMs: options.retentionMs ?? 600_000,
    pollMs: options.pollMs ?? 60_000,
    sweepEveryMs: 60_000,
  })
  running.push(relay)
  return { hub, relay, heard } satisfies Replica
}

const bus = () => createOutboxBus(db)
const event = (type: string, data: unknown = {}): LiveEvent => createLiveEvent(type, data, clock)
const types = (messages: HubMessage[]) => messages.map((message) => message.event.type)

describe('live events through the outbox', () => {
  it('delivers an event published through one replica to the subscribers of another, in order', async () => {
    const a = await startReplica()
    const b = await startReplica()
    await bus().publish({ topic: 'broadcast', event: event('one') })
    await db.transaction(async (tx) => {
      await bus().publish({ topic: 'user:ada', event: event('two') }, tx)
      await bus().publish({ topic: 'broadcast', event: event('three') }, tx)
    })
    for (const replica of [a, b]) {
      await waitFor(() => (replica.heard.length >= 3 ? true : undefined), { what: 'three events' })
      expect(types(replica.heard)).toEqual(['one', 'two', 'three'])
      const ids = replica.heard.map((message) => message.seq ?? 0)
      expect(ids).toEqual([...ids].sort((x, y) => x - y))
    }
    expect(a.relay.position()).toBe(b.relay.position())
  })

  it('delivers nothing of a transaction that rolls back', async () => {
    const a = await startReplica()
    await expect(
      db.transaction(async (tx) => {
        await bus().publish({ topic: 'broadcast', event: event('never') }, tx)
        throw new Error('the change failed')
      }),
    ).rejects.toThrow('the change failed')
    await bus().publish({ topic: 'broadcast', event: event('after') })
    await waitFor(() => (a.heard.length >= 1 ? true : undefined), { what: 'the next event' })
    expect(types(a.heard)).toEqual(['after'])
  })

  it('lets a user’s own transaction publish only that user’s events', async () => {
    const a = await startReplica()
    const userId = crypto.randomUUID()
    const claims = { sub: userId, role: 'authenticated' }
    await withUser(db, claims, (tx) =>
      bus().publish({ topic: `user:${userId}`, event: event('mine') }, tx),
    )
    await expect(
      withUser(db, claims, (tx) => bus().publish({ topic: 'broadcast', event: event('all') }, tx)),
    ).rejects.toThrow(/only publish that user/)
    await expect(
      withUser(db, claims, (tx) => bus().publish({ topic: 'user:ada', event: event('hers') }, tx)),
    ).rejects.toThrow(/only publish that user/)
    await a.relay.catchUp()
    expect(a.heard).toEqual([])
  })

  /** The database, with the relay's reads of new rows counted. */
  function countingReads() {
    const counted = { reads: 0, sql: db }
    counted.sql = {
      ...db,
      query: (text, params) => {
        if (text.includes('where id > $1 order by id')) counted.reads += 1
        return db.query(text, params)
      },
    }
    return counted
  }

  it('reads once for a burst of notifications that one read covers', async () => {
    const counted = countingReads()
    const a = await startReplica({ sql: counted.sql })
    // Five rows, five notifications, all delivered at the commit.
    await db.transaction(async (tx) => {
      for (const name of ['one', 'two', 'three', 'four', 'five'])
        await bus().publish({ topic: 'broadcast', event: event(name) }, tx)
    })
    await waitFor(() => (a.heard.length >= 5 ? true : undefined), { what: 'five events' })
    // A notification that arrives after its row was read costs nothing either.
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(types(a.heard)).toEqual(['one', 'two', 'three', 'four', 'five'])
    expect(counted.reads).toBe(1)
  })

  it('reads no row for a topic nobody on the replica hears, and still delivers the next it does', async () => {
    const counted = countingReads()
    const a = await startReplica({ sql: counted.sql })
    const heardBefore = a.relay.position()
    // Three events for a user with no stream on this replica, each in its own transaction.
    for (const name of ['bob-1', 'bob-2', 'bob-3'])
      await bus().publish({ topic: 'user:bob', event: event(name) })
    await waitFor(() => (a.relay.position() > heardBefore + 2 ? true : undefined), {
      what: 'the relay to move past them',
    })
    expect(counted.reads).toBe(0)
    await bus().publish({ topic: 'user:ada', event: event('ada') })
    await waitFor(() => (a.heard.length >= 1 ? true : undefined), { what: "ada's event" })
    expect(types(a.heard)).toEqual(['ada'])
    expect(counted.reads).toBe(1)
    // A tab of bob's that comes back with its position still gets his events from the table.
    const replay = await a.relay.since(heardBefore, ['user:bob'])
    expect(types(replay ?? [])).toEqual(['bob-1', 'bob-2', 'bob-3'])
  })

  it('reads the rows a replica missed when it catches up (the poll safety net)', async () => {
    const a = await startReplica()
    // Written by hand: no NOTIFY, as if the notification had been lost.
    await db.query(
      `insert into public.live_events (topic, event) values ('broadcast', $1::jsonb)`,
      [JSON.stringify(event('quiet'))],
    )
    await a.relay.catchUp()
    expect(types(a.heard)).toEqual(['quiet'])
  })

  it('deletes rows past the retention window, oldest first, keeping the newest', async () => {
    const a = await startReplica({ retentionMs: 60_000 })
    for (const name of ['old-1', 'old-2', 'old-3']) {
      await bus().publish({ topic: 'broadcast', event: event(name) })
    }
    await waitFor(() => (a.heard.length >= 3 ? true : undefined), { what: 'three events' })
    await db.query(`update public.live_events set created_at = created_at - interval '1 hour'`)
    await a.relay.sweep()
    const left = await db.query<{ type: string }>(
      `select event ->> 'type' as type from public.live_events order by id`,
    )
    expect(left.rows.map((row) => row.type)).toEqual(['old-3'])
    await bus().publish({ topic: 'broadcast', event: event('fresh') })
    await waitFor(() => (a.heard.length >= 4 ? true : undefined), { what: 'the fresh event' })
    await db.query(
      `update public.live_events set created_at = created_at - interval '1 hour' where event ->> 'type' = 'old-3'`,
    )
    expect(await a.relay.sweep()).toBe(1)
    expect(await a.relay.sweep()).toBe(0)
  })

  // The server pass of npm test runs it: PGlite has no backend to terminate.
  if (testDatabaseKind === 'postgres')
    it('reconnects a listen connection that was terminated and delivers the events of the gap', async () => {
      const a = await startReplica()
      await bus().publish({ topic: 'broadcast', event: event('before') })
      await waitFor(() => (a.heard.length >= 1 ? true : undefined), { what: 'the first event' })
      const killed = await db.query<{ killed: boolean }>(
        `select pg_terminate_backend(pid) as killed from pg_stat_activity
         where application_name = 'tessera-listen' and datname = current_database()`,
      )
      expect(killed.rows.length).toBeGreaterThan(0)
      await waitFor(() => (a.relay.listening() ? undefined : true), { what: 'the drop' })
      // Published while nobody listens: only the read after reconnecting can find it.
      await bus().publish({ topic: 'broadcast', event: event('in the gap') })
      await waitFor(() => (a.relay.listening() ? true : undefined), {
        what: 'the listener to reconnect',
      })
      await waitFor(() => (a.heard.length >= 2 ? true : undefined), { what: 'the gap' })
      await bus().publish({ topic: 'broadcast', event: event('after') })
      await waitFor(() => (a.heard.length >= 3 ? true : undefined), { what: 'the next event' })
      expect(types(a.heard)).toEqual(['before', 'in the gap', 'after'])
    }, 30_000)
})

describe('GET /api/events with the outbox', () => {
  /** The app of one replica, with its hub fed by its relay. */
  async function startApp(options: { retentionMs?: number } = {}) {
    const replica = await startReplica(options)
    const context = createTestApp({
      deps: { hub: replica.hub, clock, outbox: { bus: bus(), log: replica.relay } },
    })
    return { ...replica, app: context.app }
  }

  const liveFrames = (frames: { event: string; data: string; id?: string }[]) =>
    frames
      .filter((frame) => frame.event === LIVE_EVENT_NAME)
      .map((frame) => ({ id: frame.id, type: (JSON.parse(frame.data) as LiveEvent).type }))

  it('gives each event its outbox id and replays what a reconnecting tab missed, once each', async () => {
    const a = await startApp()
    const b = await startApp()
    const first = sseReader(await a.app.request('/api/events'))
    await first.next((frame) => frame.data.includes('connection.opened'))
    await bus().publish({ topic: 'broadcast', event: event('seen') })
    const seen = await first.next((frame) => frame.data.includes('"seen"'))
    await first.cancel()
    // Published while the tab is away.
    await bus().publish({ topic: 'broadcast', event: event('missed-1') })
    await bus().publish({ topic: 'user:someone', event: event('not-yours') })
    await bus().publish({ topic: 'broadcast', event: event('missed-2') })
    await waitFor(() => (b.heard.length >= 3 ? true : undefined), { what: 'replica b to hear' })
    // The tab comes back to the other replica.
    const second = sseReader(
      await b.app.request('/api/events', { headers: { 'last-event-id': seen.id ?? '' } }),
    )
    await second.next((frame) => frame.data.includes('"missed-2"'))
    await bus().publish({ topic: 'broadcast', event: event('live') })
    await second.next((frame) => frame.data.includes('"live"'))
    const frames = liveFrames(second.frames)
    expect(frames.map((frame) => frame.type)).toEqual([
      'connection.opened',
      'missed-1',
      'missed-2',
      'live',
    ])
    const ids = frames.slice(1).map((frame) => Number(frame.id))
    expect(ids.every((id) => id > Number(seen.id))).toBe(true)
    expect(new Set(ids).size).toBe(ids.length)
    expect(frames[0]?.id).toBe(seen.id)
    await second.cancel()
  })

  it('accepts the position as a lastEventId query parameter too', async () => {
    const a = await startApp()
    await bus().publish({ topic: 'broadcast', event: event('earlier') })
    await waitFor(() => (a.heard.length >= 1 ? true : undefined), { what: 'the event' })
    const before = (a.heard[0]?.seq ?? 1) - 1
    const stream = sseReader(await a.app.request(`/api/events?lastEventId=${before}`))
    await stream.next((frame) => frame.data.includes('"earlier"'))
    await stream.cancel()
  })

  it('sends resync to a tab whose position is older than the retention window, or unknown', async () => {
    const a = await startApp({ retentionMs: 60_000 })
    for (const name of ['gone-1', 'gone-2', 'kept']) {
      await bus().publish({ topic: 'broadcast', event: event(name) })
    }
    await waitFor(() => (a.heard.length >= 3 ? true : undefined), { what: 'three events' })
    const oldest = a.heard[0]?.seq ?? 0
    await db.query(`update public.live_events set created_at = created_at - interval '1 hour'`)
    await a.relay.sweep()
    for (const lastEventId of [String(oldest - 1), '999999999', 'not-a-position']) {
      const stream = sseReader(
        await a.app.request('/api/events', { headers: { 'last-event-id': lastEventId } }),
      )
      const frame = await stream.next((candidate) => candidate.data.includes(RESYNC_EVENT_TYPE))
      expect(JSON.parse(frame.data)).toMatchObject({
        type: RESYNC_EVENT_TYPE,
        data: { lastEventId },
      })
      expect(liveFrames(stream.frames).map((candidate) => candidate.type)).toEqual([
        'connection.opened',
        RESYNC_EVENT_TYPE,
      ])
      await stream.cancel()
    }
  })

  it('never sends the internal topic (cache invalidations) to a browser', async () => {
    const a = await startApp()
    const stream = sseReader(await a.app.request('/api/events'))
    await stream.next((frame) => frame.data.includes('connection.opened'))
    await bus().publish({
      topic: 'internal',
      event: event('cache.invalidate', { cache: 'prices' }),
    })
    await bus().publish({ topic: 'broadcast', event: event('public') })
    await stream.next((frame) => frame.data.includes('"public"'))
    expect(stream.frames.some((frame) => frame.data.includes('cache.invalidate'))).toBe(false)
    await stream.cancel()
  })
})
