import { authEventDataSchema, EVENTS_POSITION_HEADER, liveEventSchema } from '@tessera/contracts'
import { uniqueEmail } from '@tessera/emulators/supabase/test-support'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createLogger } from '../../platform/logger.ts'
import { sseReader } from '../../testing/app.ts'
import { databaseSetupTimeout, startIdentityTestApp } from '../../testing/identity.ts'
import type { IdentityTestApp, TestBrowser } from '../../testing/identity.ts'
import { createEventHub } from './event-hub.ts'
import { createOutboxBus, startEventRelay } from './event-outbox.ts'
import type { EventBus, EventLog, EventRelay } from './event-outbox.ts'

// The identity routes with live events through the outbox, as the Node entry runs them: the
// changes that publish in their own transaction reach the streams with their outbox ids.
const hub = createEventHub()
let relay: EventRelay | undefined
let t: IdentityTestApp
const bus: EventBus = { publish: (message, tx) => createOutboxBus(t.db).publish(message, tx) }
const log: EventLog = {
  position: () => relay?.position() ?? 0,
  since: (after, topics) => relay?.since(after, topics) ?? Promise.resolve(null),
}
beforeAll(async () => {
  t = await startIdentityTestApp({ deps: { hub, outbox: { bus, log } } })
  relay = await startEventRelay({
    sql: t.db,
    hub,
    logger: createLogger({ level: 'silent' }),
    retentionMs: 600_000,
  })
}, databaseSetupTimeout)
afterAll(async () => {
  await relay?.close()
  await t.finish()
})

type Stream = Awaited<ReturnType<TestBrowser['events']>>

async function nextAuthEvent(stream: Stream, name: string) {
  const frame = await stream.next((candidate) => candidate.data.includes(`"event":"${name}"`))
  return {
    id: frame.id,
    data: authEventDataSchema.parse(liveEventSchema.parse(JSON.parse(frame.data)).data),
  }
}

describe('identity events through the outbox', () => {
  it('tells every tab of a renamed user, with the outbox id of the profile’s transaction', async () => {
    const email = uniqueEmail('outbox-rename')
    const laptop = await t.signUp(email, { displayName: 'Old Name' })
    const phone = await t.signIn(email)
    const phoneEvents = await phone.events()
    const opened = await phoneEvents.next((frame) => frame.data.includes('connection.opened'))
    const response = await laptop.send('PATCH', '/api/me/profile', { displayName: 'New Name' })
    expect(response.status).toBe(200)
    const updated = await nextAuthEvent(phoneEvents, 'USER_UPDATED')
    expect(updated.data.user).toMatchObject({ displayName: 'New Name' })
    expect(Number(updated.id)).toBeGreaterThan(Number(opened.id))
    await phoneEvents.cancel()
  })

  it('signs a session out in the transaction that tells its tabs, and replays it to a tab that was away', async () => {
    const email = uniqueEmail('outbox-signout')
    await t.signUp(email)
    const laptop = await t.signIn(email)
    const phone = await t.signIn(email)
    const phoneEvents = await phone.events()
    const opened = await phoneEvents.next((frame) => frame.data.includes('connection.opened'))
    await phoneEvents.cancel()
    // The phone's stream is gone while the laptop signs out.
    const out = await laptop.send('POST', '/api/auth/sign-out', { scope: 'local' })
    expect(out.status).toBe(200)
    // A new EventSource of the host names where it was in the query.
    const back = sseReader(await phone.get(`/api/events?lastEventId=${opened.id ?? ''}`))
    const signedOut = await nextAuthEvent(back, 'SIGNED_OUT')
    expect(Number(signedOut.id)).toBeGreaterThan(Number(opened.id))
    await back.cancel()
  })

  it('says with each session read where the events stood, so a stream opened later misses nothing', async () => {
    const email = uniqueEmail('outbox-position')
    const laptop = await t.signUp(email, { displayName: 'Before' })
    const phone = await t.signIn(email)
    const me = await phone.get('/api/me')
    expect(me.status).toBe(200)
    const position = me.headers.get(EVENTS_POSITION_HEADER) ?? ''
    expect(position).toMatch(/^\d+$/)
    // Published after the phone read its session, before its page opened a stream.
    const renamed = await laptop.send('PATCH', '/api/me/profile', { displayName: 'After' })
    expect(renamed.status).toBe(200)
    const stream = sseReader(await phone.get(`/api/events?lastEventId=${position}`))
    const updated = await nextAuthEvent(stream, 'USER_UPDATED')
    expect(updated.data.user).toMatchObject({ displayName: 'After' })
    expect(Number(updated.id)).toBeGreaterThan(Number(position))
    await stream.cancel()
    // A visitor's read says it too (the broadcast events are theirs).
    const visitor = await t.request('/api/me')
    expect(await visitor.json()).toEqual({ user: null })
    expect(visitor.headers.get(EVENTS_POSITION_HEADER)).toMatch(/^\d+$/)
  })
})
