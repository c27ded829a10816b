import { describe, expect, it } from 'vitest'
import { createOpenAiEmulator } from './app.ts'
import { MODERATION_TEST_PHRASE } from './moderation.ts'
import type { RequestRecord } from './request-log.ts'

const AUTH = { authorization: 'Bearer sk-test-local' }
const JSON_AUTH = { ...AUTH, 'content-type': 'application/json' }
const hello = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hello there' }] }

function setup(options: Parameters<typeof createOpenAiEmulator>[0] = {}) {
  const { app, control } = createOpenAiEmulator({
    tokensPerSecond: Number.POSITIVE_INFINITY,
    ...options,
  })
  const post = (path: string, body: unknown, headers: Record<string, string> = JSON_AUTH) =>
    app.request(path, {
      method: 'POST',
      headers,
      body: typeof body === 'string' ? body : JSON.stringify(body),
    })
  return { app, control, post }
}

async function errorOf(response: Response) {
  const body = (await response.json()) as {
    error: { message: string; type: string; param: string | null; code: string | null }
  }
  return { status: response.status, ...body.error }
}

describe('request validation', () => {
  it('answers malformed JSON with a 400 in OpenAI’s error shape', async () => {
    const { post } = setup()
    const error = await errorOf(await post('/v1/chat/completions', '{"model": "gpt-4o-mini",'))
    expect(error).toMatchObject({ status: 400, type: 'invalid_request_error', param: null })
    expect(error.message).toMatch(/could not parse the JSON body/)
  })

  it('names a parameter the stand-in does not support', async () => {
    const { post } = setup()
    const error = await errorOf(await post('/v1/chat/completions', { ...hello, tools: [] }))
    expect(error).toMatchObject({ status: 400, param: 'tools', code: 'unsupported_parameter' })
  })

  it('names a missing required parameter', async () => {
    const { post } = setup()
    const error = await errorOf(await post('/v1/chat/completions', { model: 'gpt-4o-mini' }))
    expect(error).toMatchObject({
      status: 400,
      param: 'messages',
      code: 'missing_required_parameter',
    })
  })

  it('points at the message whose role is not supported', async () => {
    const { post } = setup()
    const body = {
      ...hello,
      messages: [
        { role: 'user', content: 'hi' },
        { role: 'tool', content: 'x' },
      ],
    }
    const error = await errorOf(await post('/v1/chat/completions', body))
    expect(error).toMatchObject({
      status: 400,
      param: 'messages[1].role',
      type: 'invalid_request_error',
    })
  })

  it('refuses stream_options on a request that is not streamed', async () => {
    const { post } = setup()
    const error = await errorOf(
      await post('/v1/chat/completions', { ...hello, stream_options: { include_usage: true } }),
    )
    expect(error).toMatchObject({ status: 400, param: 'stream_options' })
  })

  it('refuses more than one choice', async () => {
    const { post } = setup()
    expect(await errorOf(await post('/v1/chat/completions', { ...hello, n: 2 }))).toMatchObject({
      status: 400,
      param: 'n',
    })
  })

  it('answers a model it does not serve with model_not_found', async () => {
    const { post } = setup({ models: ['local-small'] })
    const error = await errorOf(await post('/v1/chat/completions', hello))
    expect(error).toMatchObject({ status: 404, param: 'model', code: 'model_not_found' })
    expect(error.message).toContain('local-small')
  })

  it('refuses image input to moderation, naming the part', async () => {
    const { post } = setup()
    const input = [
      { type: 'text', text: 'hi' },
      { type: 'image_url', image_url: { url: 'https://x/y.png' } },
    ]
    expect(await errorOf(await post('/v1/moderations', { input }))).toMatchObject({
      status: 400,
      param: 'input[1]',
    })
  })

  it('answers an unknown address with a 404 in OpenAI’s error shape', async () => {
    const { app } = setup()
    expect(
      await errorOf(await app.request('/v1/embeddings', { method: 'POST', headers: AUTH })),
    ).toMatchObject({
      status: 404,
      message: 'Invalid URL (POST /v1/embeddings)',
    })
  })
})

describe('authentication', () => {
  it('refuses a request without a bearer key', async () => {
    const { post } = setup()
    const error = await errorOf(
      await post('/v1/chat/completions', hello, { 'content-type': 'application/json' }),
    )
    expect(error).toMatchObject({ status: 401, type: 'invalid_request_error' })
  })

  it('accepts any non-empty key when no key is configured', async () => {
    const { post } = setup()
    expect(
      (await post('/v1/chat/completions', hello, { authorization: 'Bearer whatever' })).status,
    ).toBe(200)
  })

  it('refuses a key other than the configured one', async () => {
    const { post } = setup({ apiKey: 'sk-right-key' })
    const error = await errorOf(await post('/v1/chat/completions', hello))
    expect(error).toMatchObject({ status: 401, code: 'invalid_api_key' })
    expect(error.message).not.toContain('sk-test-local')
  })
})

describe('moderation', () => {
  it('flags every input that contains the test phrase and no other', async () => {
    const { post } = setup()
    const response = await post('/v1/moderations', {
      input: ['A kind note.', `Please ${MODERATION_TEST_PHRASE.toUpperCase()} now`],
    })
    const body = (await response.json()) as { results: Array<{ flagged: boolean }> }
    expect(body.results.map((result) => result.flagged)).toEqual([false, true])
  })
})

describe('the /_emulator API', () => {
  it('arms, lists and clears faults over HTTP', async () => {
    const { app, post } = setup()
    const armed = await post(
      '/_emulator/faults',
      { type: 'rate_limit', count: 2, match: 'zebra' },
      { 'content-type': 'application/json' },
    )
    expect(armed.status).toBe(201)
    const fault = (await armed.json()) as { id: string; remaining: number; retryAfterMs: number }
    expect(fault).toMatchObject({ remaining: 2, retryAfterMs: 1000 })
    const listed = (await (await app.request('/_emulator/faults')).json()) as {
      faults: Array<{ id: string }>
    }
    expect(listed.faults.map((f) => f.id)).toEqual([fault.id])
    expect((await app.request(`/_emulator/faults/${fault.id}`, { method: 'DELETE' })).status).toBe(
      204,
    )
    expect((await app.request(`/_emulator/faults/${fault.id}`, { method: 'DELETE' })).status).toBe(
      404,
    )
  })

  it('refuses a fault it does not know, naming the field', async () => {
    const { post } = setup()
    const error = await errorOf(
      await post('/_emulator/faults', { type: 'rate_limit', retryAfter: 3 }),
    )
    expect(error).toMatchObject({ status: 400, param: 'retryAfter' })
  })

  it('applies an armed fault to the matching request and logs it', async () => {
    const { app, post } = setup()
    await post('/_emulator/faults', { type: 'server_error', match: 'zebra' })
    expect((await post('/v1/chat/completions', hello)).status).toBe(200)
    expect(
      (
        await post('/v1/chat/completions', {
          ...hello,
          messages: [{ role: 'user', content: 'a zebra?' }],
        })
      ).status,
    ).toBe(500)
    const log = (await (await app.request('/_emulator/requests?match=zebra')).json()) as {
      requests: RequestRecord[]
    }
    expect(log.requests).toEqual([
      expect.objectContaining({ fault: 'server_error', status: 500, outcome: 'rejected' }),
    ])
  })

  it('forgets faults and requests on reset', async () => {
    const { control, post } = setup()
    control.armFault({ type: 'stall' })
    await post('/v1/moderations', { input: 'hi' })
    expect((await post('/_emulator/reset', {})).status).toBe(200)
    expect([control.listFaults(), control.requests()]).toEqual([[], []])
  })

  it('errors the body of a cut stream when no socket can be cut', async () => {
    const { control, post } = setup()
    control.armFault({ type: 'cut', afterTokens: 2 })
    const response = await post('/v1/chat/completions', { ...hello, stream: true })
    await expect(response.text()).rejects.toThrow(/connection cut/)
    expect(control.requests()[0]).toMatchObject({ outcome: 'cut', completionTokens: 2 })
  })
})
