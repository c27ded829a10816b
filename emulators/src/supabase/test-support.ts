/**
 * Helpers for tests that drive the stand-in with the real `@supabase/supabase-js` client: a
 * stand-in on free ports over a fresh database, clients configured for a server, and a mailbox
 * poller. Other suites (the BFF's) may use them too.
 */
import { createClient } from '@supabase/supabase-js'
import type { AuthChangeEvent, SupabaseClient, SupabaseClientOptions } from '@supabase/supabase-js'
import WebSocket from 'ws'
import type { Sql } from '@tessera/db/sql'
import { createTestDatabase } from '@tessera/db/testing'
import type { ManualClock } from './clock.ts'
import { createManualClock } from './clock.ts'
import type { MailMessage } from './mailbox-store.ts'
import type { RunningSupabaseEmulator, StartSupabaseEmulatorOptions } from './node.ts'
import { startSupabaseEmulator } from './node.ts'

export const testSiteUrl = 'http://app.tessera.test'

export interface TestSupabase extends RunningSupabaseEmulator {
  db: Sql
  clock: ManualClock
  /** A supabase-js client with the anon key, set up for a server (no timers, no storage). */
  client(): SupabaseClient
  /** A client with the service role key, for `auth.admin`. */
  adminClient(): SupabaseClient
  /** Polls the mailbox JSON API until an email to `to` matches, newest first. */
  waitForMail(to: string, match?: (message: MailMessage) => boolean): Promise<MailMessage>
  /** Every email to `to`, newest first. */
  mailTo(to: string): Promise<MailMessage[]>
  /** Stops the stand-in and discards its database. */
  stop(): Promise<void>
}

type RealtimeTransport = NonNullable<
  NonNullable<SupabaseClientOptions<'public'>['realtime']>['transport']
>

export function createServerClient(url: string, key: string): SupabaseClient {
  return createClient(url, key, {
    auth: { autoRefreshToken: false, persistSession: false, detectSessionInUrl: false },
    // Node 20 has no global WebSocket; supabase-js refuses to start without one.
    realtime: { transport: WebSocket as unknown as RealtimeTransport },
  })
}

/** Starts the stand-in on free ports over its own database, with a clock tests can move. */
export async function startTestSupabase(
  options: Partial<StartSupabaseEmulatorOptions> = {},
): Promise<TestSupabase> {
  const db = options.db ?? (await createTestDatabase())
  const clock = createManualClock()
  const running = await startSupabaseEmulator({
    port: 0,
    mailboxPort: 0,
    siteUrl: testSiteUrl,
    // GoTrue's cost 10 takes ~90 ms per hash in PGlite; 4 keeps tests fast and is still bcrypt.
    bcryptCost: 4,
    clock,
    // A 500 is a bug in the stand-in: make it loud in the test output.
    onUnexpectedError: (error) => console.error('supabase stand-in failed:', error),
    ...options,
    db,
  })
  const mailTo = async (to: string): Promise<MailMessage[]> => {
    const response = await fetch(`${running.mailboxUrl}/api/messages?to=${encodeURIComponent(to)}`)
    if (!response.ok) throw new Error(`The mailbox answered ${response.status}.`)
    return ((await response.json()) as { messages: MailMessage[] }).messages
  }
  return {
    ...running,
    db,
    clock,
    client: () => createServerClient(running.url, running.anonKey),
    adminClient: () => createServerClient(running.url, running.serviceRoleKey),
    mailTo,
    async waitForMail(to, match = () => true) {
      const deadline = Date.now() + 5000
      for (;;) {
        const found = (await mailTo(to)).find(match)
        if (found !== undefined) return found
        if (Date.now() > deadline) throw new Error(`No matching email to ${to} arrived within 5 s.`)
        await new Promise((resolve) => setTimeout(resolve, 25))
      }
    },
    async stop() {
      await running.close()
      if (options.db === undefined) await db.close()
    },
  }
}

/** Records the auth events a client emits, in order. */
export function recordAuthEvents(client: SupabaseClient): AuthChangeEvent[] {
  const events: AuthChangeEvent[] = []
  client.auth.onAuthStateChange((event) => {
    events.push(event)
  })
  return events
}

/** An address no other test uses, so per-address rate limits never collide. */
export function uniqueEmail(label: string): string {
  return `${label}-${crypto.randomUUID().slice(0, 8)}@example.test`
}
