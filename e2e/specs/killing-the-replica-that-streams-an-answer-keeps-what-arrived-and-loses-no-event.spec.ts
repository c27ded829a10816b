import type { Page, Request } from '@playwright/test'
import { assistantPage, marker } from '../support/assistant.ts'
import {
  clusterAccount,
  emulatorControl,
  logLines,
  logOffsets,
  servedBy,
  stateChanging,
} from '../support/cluster-api.ts'
import { clusterTest as test, expect, type Cluster } from '../support/cluster.ts'

interface Usage {
  used: number
  reserved: number
}

const isEvents = (url: string) => new URL(url).pathname === '/api/events'
const isSend = (request: Request) =>
  request.method() === 'POST' &&
  /^\/api\/assistant\/conversations\/[^/]+\/messages$/.test(new URL(request.url()).pathname)

/** Opens `path` in `page` and returns the replica its event stream (`GET /api/events`) is on. */
async function openOn(cluster: Cluster, page: Page, at: string): Promise<string> {
  const stream = page.waitForResponse((response) => isEvents(response.url()))
  await page.goto(at)
  return servedBy(cluster, await stream)
}

test('killing the replica that streams an answer keeps what arrived, offers a retry, releases the hold once and loses no live event', async ({
  browser,
  cluster,
}) => {
  const doomed = 'bff2'
  const context = await browser.newContext({ baseURL: cluster.appUrl })
  await clusterAccount(context.request, cluster, 'answer-kill', 'Dorothy Vaughan')
  const page = await context.newPage()
  const errors: string[] = []
  page.on('pageerror', (error) => errors.push(error.message))
  // What goes over the wire, as Chromium's network layer sees it: the header a reconnecting
  // EventSource adds (Last-Event-ID) and each event a stream delivers.
  const cdp = await context.newCDPSession(page)
  await cdp.send('Network.enable')
  const resumedFrom = new Map<string, string>()
  const delivered: Array<{ requestId: string; eventId: string; data: string }> = []
  cdp.on('Network.requestWillBeSentExtraInfo', ({ requestId, headers }) => {
    const lastEventId = headers['Last-Event-ID']
    if (lastEventId !== undefined) resumedFrom.set(requestId, lastEventId)
  })
  cdp.on('Network.eventSourceMessageReceived', ({ requestId, eventId, data }) =>
    delivered.push({ requestId, eventId, data }),
  )
  const chat = assistantPage(page)
  const usage = async (): Promise<Usage> => {
    const response = await context.request.get('/api/assistant/usage')
    expect(response.status(), await response.text()).toBe(200)
    return (await response.json()) as Usage
  }

  // The page, its event stream and the answer all on one replica: HAProxy sends new requests
  // to it alone while they start. The answer comes slowly, so it is still streaming when the
  // replica dies.
  const slow = marker()
  await emulatorControl(cluster.openaiUrl, '/faults', {
    type: 'slow',
    tokensPerSecond: 4,
    match: slow,
  })
  await cluster.routeOnlyTo([doomed], async () => {
    expect(await openOn(cluster, page, '/assistant')).toBe(doomed)
    const send = page.waitForResponse((response) => isSend(response.request()))
    await chat.ask(`Tell me a long story about lighthouses ${slow}`)
    expect(await servedBy(cluster, await send)).toBe(doomed)
    await expect(chat.lastAnswer()).toContainText('(local model)')
  })
  const held = await usage()
  expect(held).toMatchObject({ used: 0, reserved: expect.any(Number) })
  expect(held.reserved).toBeGreaterThan(0)

  // While the stream is down, its reconnection waits at this gate until an event has been
  // published: it can only have that event from the outbox, replayed after its Last-Event-ID.
  let reachedGate!: () => void
  const atGate = new Promise<void>((resolve) => (reachedGate = resolve))
  let openGate!: () => void
  const gate = new Promise<void>((resolve) => (openGate = resolve))
  await page.route(
    (url) => isEvents(url.href),
    async (route) => {
      reachedGate()
      await gate
      await route.continue()
    },
  )
  const reconnected = page.waitForResponse((response) => isEvents(response.url()))
  const logged = logOffsets(cluster)

  cluster.killReplica(doomed)

  // The page says what happened: what arrived is kept, and the question can be sent again.
  await expect(chat.alert).toContainText(
    'The connection dropped before the answer finished. What arrived is kept; try again.',
  )
  await expect(chat.alert.getByRole('button', { name: 'Try again' })).toBeEnabled()
  await expect(chat.lastAnswer()).toContainText('(local model)')
  await expect(chat.lastAnswer()).not.toContainText('Written by the Tessera OpenAI stand-in')

  await atGate
  const renamed = await context.request.patch('/api/me/profile', {
    headers: stateChanging(cluster),
    data: { displayName: 'Dorothy Johnson Vaughan' },
  })
  expect(renamed.status(), await renamed.text()).toBe(200)
  openGate()
  const stream = await reconnected
  // The browser's own retry names the last event the tab had; the replica it reached (a live one)
  // replays what came after it, the new name among them, and needs no resync.
  await expect.poll(() => resumedFrom.size).toBeGreaterThan(0)
  const [retry, lastEventId] = [...resumedFrom].at(-1) ?? []
  expect(lastEventId, 'the reconnection names the last event the tab had').toMatch(/^\d+$/)
  const typesOnRetry = () =>
    delivered
      .filter((event) => event.requestId === retry)
      .map((event) => JSON.parse(event.data) as { type: string; data: { event?: string } })
      .map((event) => (event.type === 'auth' ? `auth ${event.data.event}` : event.type))
  await expect.poll(typesOnRetry).toContain('auth USER_UPDATED')
  expect(typesOnRetry()[0]).toBe('connection.opened')
  expect(typesOnRetry()).not.toContain('resync')
  expect(await servedBy(cluster, stream)).not.toBe(doomed)
  await expect(
    page.getByRole('button', { name: 'Dorothy Johnson Vaughan, account menu' }),
  ).toBeVisible()

  // Try again: a whole answer, from a live replica.
  await chat.alert.getByRole('button', { name: 'Try again' }).click()
  await chat.settled()
  await expect(chat.lastAnswer()).toContainText('Written by the Tessera OpenAI stand-in')
  await expect(chat.alert).toHaveCount(0)

  // The dead replica's hold is released by another replica's sweep, once and uncharged: the month
  // counts the whole answer only, and nothing is held any more.
  const conversationId = /\/assistant\/conversations\/([0-9a-f-]{36})$/.exec(page.url())?.[1]
  expect(conversationId).toBeTruthy()
  let answers: Array<{
    role: string
    status: string
    content: string
    usage: { totalTokens: number } | null
    error: { code: string } | null
  }> = []
  await expect
    .poll(
      async () => {
        const response = await context.request.get(
          `/api/assistant/conversations/${conversationId}/messages`,
        )
        answers = ((await response.json()) as { messages: typeof answers }).messages.filter(
          (message) => message.role === 'assistant',
        )
        return answers.map((answer) => answer.status)
      },
      { timeout: 40_000, message: 'the dead replica’s answer reads as interrupted' },
    )
    .toEqual(['partial', 'complete'])
  // What arrived is in the row too, up to the last batch the dead replica wrote (decision 032).
  expect(answers[0]?.error?.code).toBe('answer_interrupted')
  expect(answers[0]?.content).toContain('(local model)')
  const whole = answers[1]?.usage?.totalTokens ?? 0
  expect(whole).toBeGreaterThan(0)
  await expect.poll(usage, { timeout: 30_000 }).toMatchObject({ used: whole, reserved: 0 })
  const released = Object.values(logLines(cluster, logged))
    .flat()
    .filter((line) => line.msg === 'released abandoned holds')
    .map((line) => line.tokens)
  expect(released).toEqual([held.reserved])
  expect(errors).toEqual([])
  await context.close()
})
