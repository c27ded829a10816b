// Model choice by plan (issue 20, docs/decisions/028), through the routes: the models a plan
// includes are sent to the stand-in under their names, a model outside the plan is refused with
// the plan that includes it before anything is held or stored, an unknown name is a validation
// error, and the conversation remembers its model (falling back to the default after a downgrade).
import { errorBodySchema, messageListSchema, usageSchema } from '@tessera/contracts'
import type { PlanId, SubscriptionStatus } from '@tessera/contracts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { databaseSetupTimeout } from '../../testing/identity.ts'
import type { TestBrowser } from '../../testing/identity.ts'
import { csrfHeaders } from '../../testing/app.ts'
import { newConversation, readAnswer, startAssistantTestApp } from '../../testing/assistant.ts'
import type { AssistantTestApp } from '../../testing/assistant.ts'

type Person = TestBrowser & { id: string }
let t: AssistantTestApp

beforeAll(async () => {
  t = await startAssistantTestApp({ env: { ASSISTANT_MAX_ANSWER_TOKENS: '256' } })
}, databaseSetupTimeout)
afterAll(() => t.finish())

/** Gives the user a personal subscription as a webhook would have stored it. */
async function subscribe(person: Person, plan: PlanId, status: SubscriptionStatus = 'active') {
  const customer = `cus_${person.id.slice(0, 8)}`
  await t.db.query(
    `insert into public.billing_customers (user_id, stripe_customer_id) values ($1, $2)
     on conflict (user_id) do nothing`,
    [person.id, customer],
  )
  await t.db.query(
    `insert into public.billing_subscriptions
       (stripe_subscription_id, user_id, stripe_customer_id, plan, status, stripe_created_at, version_at)
     values ($1, $2, $3, $4, $5, now(), now())
     on conflict (stripe_subscription_id) do update set status = excluded.status, plan = excluded.plan`,
    [`sub_${person.id.slice(0, 8)}`, person.id, customer, plan, status],
  )
  // Past the BFF's short cache of the subscription, as a webhook's invalidation would be.
  t.clock.advance(5_000)
}

const send = (person: Person, id: string, body: Record<string, unknown>) =>
  person.request(`/api/assistant/conversations/${id}/messages`, {
    method: 'POST',
    headers: csrfHeaders,
    body: JSON.stringify(body),
  })

async function refused(response: Response, status: number, code: string) {
  expect(response.status, await response.clone().text()).toBe(status)
  const body = errorBodySchema.parse(await response.json())
  expect(body.error.code).toBe(code)
  return body.error
}

async function messagesOf(person: Person, id: string) {
  const response = await person.get(`/api/assistant/conversations/${id}/messages`)
  expect(response.status).toBe(200)
  return messageListSchema.parse(await response.json())
}

/** A conversation in the person's workspace of this kind (made current first). */
async function newConversationIn(person: Person, kind: 'personal' | 'team') {
  const { workspaces } = (await (await person.get('/api/workspaces')).json()) as {
    workspaces: { id: string; kind: string }[]
  }
  const workspaceId = workspaces.find((workspace) => workspace.kind === kind)?.id
  await person.send('POST', '/api/workspaces/current', { workspaceId })
  return newConversation(person)
}

/** The model the stand-in was last asked to answer with. */
const lastUpstreamModel = () =>
  t.openai.control
    .requests()
    .filter((record) => record.path === '/v1/chat/completions')
    .at(-1)?.model

async function answerModel(person: Person, id: string, body: Record<string, unknown>) {
  const events = await readAnswer(await send(person, id, body))
  const done = events.find((event) => event.event === 'done')
  expect(done, JSON.stringify(events)).toBeDefined()
  return (done?.data.message as { model: string }).model
}

describe('model choice by plan', () => {
  it('answers a Free user with the Free model and refuses a Team model, holding and storing nothing', async () => {
    const free = await t.user('free')
    const id = await newConversation(free)
    expect(await answerModel(free, id, { content: 'Hello' })).toBe('gpt-4o-mini')
    expect(lastUpstreamModel()).toBe('gpt-4o-mini')
    const before = usageSchema.parse(await (await free.get('/api/assistant/usage')).json())
    const requests = t.openai.control.requests().length

    const error = await refused(
      await send(free, id, { content: 'Use the big one', model: 'gpt-4.1' }),
      403,
      'model_not_in_plan',
    )
    expect(error.message).toBe(
      'gpt-4.1 is included in the Team plan, and this workspace is on Free. Upgrade to Team to use it, or pick one of your plan’s models: gpt-4o-mini.',
    )
    expect(error.details).toMatchObject({
      model: 'gpt-4.1',
      plan: 'team',
      allowed: ['gpt-4o-mini'],
    })
    await refused(
      await send(free, id, { content: 'And this?', model: 'gpt-4o' }),
      403,
      'model_not_in_plan',
    )

    const after = usageSchema.parse(await (await free.get('/api/assistant/usage')).json())
    expect({ used: after.used, reserved: after.reserved }).toEqual({
      used: before.used,
      reserved: 0,
    })
    expect((await messagesOf(free, id)).messages).toHaveLength(2)
    // Moderation may have been asked; the model never was.
    const asked = t.openai.control.requests().slice(requests)
    expect(asked.filter((record) => record.path === '/v1/chat/completions')).toEqual([])
  })

  it('refuses a model name the catalogue does not know as a validation error', async () => {
    const free = await t.user('unknown-model')
    const id = await newConversation(free)
    const error = await refused(
      await send(free, id, { content: 'Hi', model: 'gpt-5-ultra' }),
      422,
      'validation_failed',
    )
    expect(error.details?.issues).toEqual([
      { path: 'model', message: 'Choose one of the models: gpt-4o-mini, gpt-4o, gpt-4.1.' },
    ])
    await refused(await send(free, id, { content: 'Hi', model: 42 }), 422, 'validation_failed')
  })

  it('lets a Pro user pick the larger model, remembers it on the conversation and answers with it', async () => {
    const pro = await t.user('pro')
    await subscribe(pro, 'pro')
    const id = await newConversation(pro)
    expect(await answerModel(pro, id, { content: 'Hello' })).toBe('gpt-4o')
    expect(await answerModel(pro, id, { content: 'Quick one', model: 'gpt-4o-mini' })).toBe(
      'gpt-4o-mini',
    )
    expect(lastUpstreamModel()).toBe('gpt-4o-mini')
    expect((await messagesOf(pro, id)).conversation.model).toBe('gpt-4o-mini')
    // Without a model, the conversation's own is used.
    expect(await answerModel(pro, id, { content: 'Again' })).toBe('gpt-4o-mini')
    expect(await answerModel(pro, id, { content: 'Bigger', model: 'gpt-4o' })).toBe('gpt-4o')
    const listed = (await (await pro.get('/api/assistant/conversations')).json()) as {
      conversations: { id: string; model?: string | null }[]
    }
    expect(listed.conversations.find((c) => c.id === id)?.model).toBe('gpt-4o')
    const error = await refused(
      await send(pro, id, { content: 'Largest', model: 'gpt-4.1' }),
      403,
      'model_not_in_plan',
    )
    expect(error.message).toMatch(
      /^gpt-4\.1 is included in the Team plan, and this workspace is on Pro\./,
    )
  })

  it('falls back to the plan’s default when the remembered model left the plan (a downgrade)', async () => {
    const pro = await t.user('downgrade')
    await subscribe(pro, 'pro')
    const id = await newConversation(pro)
    expect(await answerModel(pro, id, { content: 'Hello', model: 'gpt-4o' })).toBe('gpt-4o')
    await subscribe(pro, 'pro', 'canceled')
    expect(await answerModel(pro, id, { content: 'Still there?' })).toBe('gpt-4o-mini')
    expect(lastUpstreamModel()).toBe('gpt-4o-mini')
    expect((await messagesOf(pro, id)).conversation.model).toBe('gpt-4o-mini')
    await refused(
      await send(pro, id, { content: 'The old one', model: 'gpt-4o' }),
      403,
      'model_not_in_plan',
    )
  })

  it('uses the models of the conversation’s workspace: a Team workspace has the largest, whatever its member’s own plan', async () => {
    const owner = await t.user('team-owner')
    const created = (await (
      await owner.send('POST', '/api/workspaces', { name: 'Models team' })
    ).json()) as { workspace: { id: string } }
    const team = created.workspace.id
    await owner.send('POST', '/api/workspaces/current', { workspaceId: team })
    const id = await newConversation(owner)
    // Without a subscription the team is on Free: the largest model is refused.
    await refused(
      await send(owner, id, { content: 'Team model?', model: 'gpt-4.1' }),
      403,
      'model_not_in_plan',
    )
    const customer = `cus_${owner.id.slice(0, 8)}`
    await t.db.query(
      'insert into public.billing_customers (user_id, stripe_customer_id) values ($1, $2)',
      [owner.id, customer],
    )
    await t.db.query(
      `insert into public.billing_subscriptions
         (stripe_subscription_id, user_id, stripe_customer_id, plan, status, stripe_created_at, version_at, workspace_id, quantity)
       values ($1, $2, $3, 'team', 'active', now(), now(), $4, 2)`,
      [`sub_team_${owner.id.slice(0, 8)}`, owner.id, customer, team],
    )
    t.clock.advance(5_000)
    expect(await answerModel(owner, id, { content: 'Team model now', model: 'gpt-4.1' })).toBe(
      'gpt-4.1',
    )
    expect(lastUpstreamModel()).toBe('gpt-4.1')
    // The member's personal plan is still Free there.
    const personal = await newConversationIn(owner, 'personal')
    await refused(
      await send(owner, personal, { content: 'Personal?', model: 'gpt-4.1' }),
      403,
      'model_not_in_plan',
    )
  })

  it('starts a new conversation without a model: the picker shows the plan’s default', async () => {
    const free = await t.user('new-conversation')
    const id = await newConversation(free)
    expect((await messagesOf(free, id)).conversation.model).toBeNull()
  })
})
