import { randomInt, randomUUID } from 'node:crypto'
import {
  clusterAccount,
  clusterDeployApi,
  publishNewVersion,
  readSse,
  stateChanging,
} from '../support/cluster-api.ts'
import { clusterTest as test, expect, signInBackoffSeconds } from '../support/cluster.ts'
import { password, uniqueEmail } from '../support/identity.ts'

// Each request goes to one replica's own port in turn, never through HAProxy, so the counts
// each replica would keep alone are a third of the whole: only limits shared through PostgreSQL
// refuse at the same count as one BFF does.

interface ErrorBody {
  error: { code: string; details?: { retryAfterSeconds?: number; limit?: string } }
}

test('the chat limit admits exactly 20 sends spread over the three replicas, and the 21st is refused with Retry-After on every one', async ({
  request,
  cluster,
}) => {
  const replicas = cluster.replicas
  const { cookie } = await clusterAccount(request, cluster, 'chat-limit')
  const created = await fetch(`${cluster.appUrl}/api/assistant/conversations`, {
    method: 'POST',
    headers: stateChanging(cluster, cookie),
    body: '{}',
  })
  expect(created.status).toBe(201)
  const { conversation } = (await created.json()) as { conversation: { id: string } }
  // `/echo ok` is answered with "ok": each admitted send is one short, cheap answer.
  const send = (url: string) =>
    fetch(`${url}/api/assistant/conversations/${conversation.id}/messages`, {
      method: 'POST',
      headers: stateChanging(cluster, cookie),
      body: JSON.stringify({ content: '/echo ok' }),
    })

  for (let sent = 1; sent <= 20; sent++) {
    const replica = replicas[sent % replicas.length]!
    const response = await send(replica.url)
    expect(response.status, `send ${sent} on ${replica.name}: ${response.status}`).toBe(200)
    expect(response.headers.get('ratelimit-policy')).toBe('"chat";q=20;w=60')
    // What is left counts every replica's sends, not this one's.
    expect(response.headers.get('ratelimit'), `send ${sent} on ${replica.name}`).toMatch(
      new RegExp(`^"chat";r=${20 - sent};t=\\d+$`),
    )
    const events: string[] = []
    await readSse(response, (message) => events.push(message.event))
    expect(events, `send ${sent} on ${replica.name}`).toContain('done')
  }

  for (const replica of replicas) {
    const refused = await send(replica.url)
    expect(refused.status, `the 21st send on ${replica.name}`).toBe(429)
    const retryAfter = Number(refused.headers.get('retry-after'))
    expect(retryAfter, `Retry-After on ${replica.name}`).toBeGreaterThanOrEqual(1)
    expect(retryAfter).toBeLessThanOrEqual(60)
    expect(refused.headers.get('ratelimit-policy')).toBe('"chat";q=20;w=60')
    expect(refused.headers.get('ratelimit')).toBe(`"chat";r=0;t=${retryAfter}`)
    const body = (await refused.json()) as ErrorBody
    expect(body.error.code).toBe('rate_limited')
    expect(body.error.details?.retryAfterSeconds).toBe(retryAfter)
  }

  // Exactly the 20 admitted questions and their answers were stored; the refusals stored nothing.
  const stored = await fetch(
    `${cluster.appUrl}/api/assistant/conversations/${conversation.id}/messages`,
    { headers: { cookie } },
  )
  const { messages } = (await stored.json()) as { messages: { role: string }[] }
  expect(messages.filter((message) => message.role === 'user')).toHaveLength(20)
  expect(messages.filter((message) => message.role === 'assistant')).toHaveLength(20)
})

test('the sign-in throttle locks a client out after 50 failures spread over the three replicas, as one replica does', async ({
  request,
  cluster,
}) => {
  const replicas = cluster.replicas
  const { email } = await clusterAccount(request, cluster, 'throttle-owner')
  // A client address of this test's own, as HAProxy would name it in X-Forwarded-For (the
  // replicas trust the loopback proxy): no other test's failures count against it.
  const client = `10.${randomInt(1, 255)}.${randomInt(1, 255)}.${randomInt(1, 255)}`
  const signIn = (url: string, body: { email: string; password: string }) =>
    fetch(`${url}/api/auth/sign-in`, {
      method: 'POST',
      headers: { ...stateChanging(cluster), 'x-forwarded-for': client },
      body: JSON.stringify(body),
    })

  // SIGN_IN_MAX_FAILURES_PER_CLIENT is 50; each failure is for another account, so no account's
  // back-off is what refuses.
  for (let failure = 1; failure <= 50; failure++) {
    const replica = replicas[failure % replicas.length]!
    const response = await signIn(replica.url, {
      email: uniqueEmail('guess'),
      password: 'not the password',
    })
    const body = (await response.json()) as ErrorBody
    expect(body.error.code, `failure ${failure} on ${replica.name}`).toBe('invalid_credentials')
  }

  // Locked on every replica, even with the right password for a real account.
  for (const replica of replicas) {
    const refused = await signIn(replica.url, { email, password })
    expect(refused.status, `after 50 failures, on ${replica.name}`).toBe(429)
    const retryAfter = Number(refused.headers.get('retry-after'))
    // The client's window is 15 minutes long and began with this test's first failure.
    expect(retryAfter).toBeGreaterThan(60)
    expect(retryAfter).toBeLessThanOrEqual(900)
    const body = (await refused.json()) as ErrorBody
    expect(body.error.code).toBe('rate_limited')
    expect(body.error.details?.limit).toBe('client')
  }

  // Another address is not locked out: it was this client's failures that counted.
  const elsewhere = await fetch(`${replicas[0]!.url}/api/auth/sign-in`, {
    method: 'POST',
    headers: stateChanging(cluster),
    body: JSON.stringify({ email, password }),
  })
  expect(elsewhere.status, await elsewhere.text()).toBe(200)
})

test('an account’s back-off starts after its 5 free failures spread over the three replicas, and ends after its wait', async ({
  request,
  cluster,
}) => {
  const replicas = cluster.replicas
  const { email } = await clusterAccount(request, cluster, 'backoff-owner')
  const client = `10.${randomInt(1, 255)}.${randomInt(1, 255)}.${randomInt(1, 255)}`
  const signIn = (url: string, attempt: string) =>
    fetch(`${url}/api/auth/sign-in`, {
      method: 'POST',
      headers: { ...stateChanging(cluster), 'x-forwarded-for': client },
      body: JSON.stringify({ email, password: attempt }),
    })

  // SIGN_IN_FREE_FAILURES_PER_ACCOUNT is 5: the 6th failure is still tried (2 per replica, which
  // alone would never start a back-off), and sets a wait of SIGN_IN_BACKOFF_BASE_SECONDS (the
  // cluster's signInBackoffSeconds, long enough that a busy machine cannot outlast it below).
  const wait = signInBackoffSeconds * 1000
  let sixthSentAt = 0
  for (let failure = 1; failure <= 6; failure++) {
    const replica = replicas[failure % replicas.length]!
    if (failure === 6) sixthSentAt = Date.now()
    const response = await signIn(replica.url, 'not the password')
    const body = (await response.json()) as ErrorBody
    expect(body.error.code, `failure ${failure} on ${replica.name}`).toBe('invalid_credentials')
  }
  // Within that wait, every replica refuses even the right password before asking Auth.
  const refusals = await Promise.all(replicas.map((replica) => signIn(replica.url, password)))
  const elapsed = Date.now() - sixthSentAt
  expect(elapsed, 'the refusals were asked for within the wait').toBeLessThan(wait)
  for (const [index, refused] of refusals.entries()) {
    expect(refused.status, `right after the 6th failure, on ${replicas[index]!.name}`).toBe(429)
    // What is left of the wait: it began after the 6th failure was sent, at most `elapsed` ago.
    const retryAfter = Number(refused.headers.get('retry-after'))
    expect(retryAfter).toBeGreaterThanOrEqual(Math.ceil((wait - elapsed) / 1000))
    expect(retryAfter).toBeLessThanOrEqual(signInBackoffSeconds)
    const body = (await refused.json()) as ErrorBody
    expect(body.error.details?.limit).toBe('account')
  }
  // It delays and never locks: once the wait is over, and not before, the owner signs in.
  await expect
    .poll(async () => (await signIn(replicas[0]!.url, password)).status, { timeout: 2 * wait })
    .toBe(200)
  expect(Date.now() - sixthSentAt).toBeGreaterThanOrEqual(wait)
})

test('a canary is stopped automatically by error reports sent to all three replicas, though no replica alone saw enough clients', async ({
  cluster,
}) => {
  const replicas = cluster.replicas
  const api = await clusterDeployApi(cluster, 'billing', replicas[0]!.url)
  const version = await publishNewVersion(cluster, 'billing')
  await api.startCanary('billing', version, 100)
  try {
    // CANARY_MIN_CLIENTS is 20 and the threshold 0.2: 20 clients served the canary, 7 or fewer
    // by any one replica, and then 4 of them reporting an error (also spread) stop it.
    const clients = Array.from({ length: 20 }, (_, index) => ({
      cookie: `tessera_visitor=${randomUUID()}`,
      replica: replicas[index % replicas.length]!,
    }))
    for (const client of clients) {
      // Each replica serves the canary once the bus has dropped its cached registry.
      await expect
        .poll(async () => {
          const response = await fetch(`${client.replica.url}/api/remotes`, {
            headers: { cookie: client.cookie },
          })
          const { remotes } = (await response.json()) as {
            remotes: { name: string; version: string; channel?: string }[]
          }
          const billing = remotes.find((remote) => remote.name === 'billing')
          return `${billing?.channel} ${billing?.version}`
        })
        .toBe(`canary ${version}`)
    }

    const report = (client: (typeof clients)[number]) =>
      fetch(`${client.replica.url}/api/telemetry/remote-errors`, {
        method: 'POST',
        headers: { ...stateChanging(cluster), cookie: client.cookie },
        body: JSON.stringify({
          remote: 'billing',
          version,
          stage: 'entry',
          message: `billing ${version} failed to load`,
        }),
      })
    // 3 of 20 clients (15 %) is under the threshold: the canary runs on.
    for (const client of clients.slice(0, 3)) expect((await report(client)).status).toBe(202)
    expect((await api.state('billing')).canary.version).toBe(version)

    // The 4th (20 %), on the first replica again, stops it there and then.
    expect((await report(clients[3]!)).status).toBe(202)
    for (const replica of replicas) {
      const state = await (await clusterDeployApi(cluster, 'billing', replica.url)).state('billing')
      expect(state.canary.version, `the canary as ${replica.name} tells it`).toBeNull()
      expect(state.events[0]).toMatchObject({
        kind: 'canary_auto_rolled_back',
        version,
        actor: 'canary monitor',
      })
    }
    // And no replica serves it any more.
    for (const client of clients.slice(0, 3)) {
      await expect
        .poll(async () => {
          const response = await fetch(`${client.replica.url}/api/remotes`, {
            headers: { cookie: client.cookie },
          })
          const { remotes } = (await response.json()) as {
            remotes: { name: string; channel?: string }[]
          }
          return remotes.find((remote) => remote.name === 'billing')?.channel
        })
        .toBe('stable')
    }
  } finally {
    // Whatever happened above, the worker's next spec finds billing on stable alone.
    const { canary } = await api.state('billing')
    if (canary.version !== null) await api.stopCanary('billing', canary.revision)
  }
})
