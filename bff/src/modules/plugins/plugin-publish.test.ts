import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { databaseSetupTimeout } from '../../testing/identity.ts'
import { errorOf, startDeployTestApp } from '../../testing/deploy.ts'
import type { DeployTestApp } from '../../testing/deploy.ts'

describe('publishing a build that declares a plugin API', () => {
  let t: DeployTestApp

  beforeAll(async () => {
    t = await startDeployTestApp({ env: { PLUGIN_UPSTREAMS: 'notes=http://127.0.0.1:9101' } })
  }, databaseSetupTimeout)

  afterAll(async () => {
    await t.close()
  })

  const register = async (remote: string, api: { path: string }) => {
    const descriptor = { ...(await t.build(remote, '1.0.0')), api }
    return t.deploy(await t.token(remote), 'POST', `/remotes/${remote}/versions`, {
      descriptor,
      baseUrl: t.baseUrlOf(remote, '1.0.0'),
    })
  }

  it('is refused, with the setting to add, when the operator mapped no upstream for it', async () => {
    const response = await register('tasks', { path: '/api/plugins/tasks' })
    expect(response.status).toBe(422)
    const error = await errorOf(response)
    expect(error.code).toBe('plugin_api_unmapped')
    expect(error.message).toMatch(/add tasks=<origin of its service> to PLUGIN_UPSTREAMS/)
    const state = await t.deploy(await t.token('tasks'), 'GET', '/remotes/tasks')
    expect(JSON.stringify(await state.json())).not.toMatch(/"1\.0\.0"/)
  })

  it('is refused when its API path is not its own name’s', async () => {
    const response = await register('notes', { path: '/api/plugins/tasks' })
    expect(response.status).toBe(422)
    expect((await errorOf(response)).code).toBe('validation_failed')
  })

  it('is registered when the operator mapped its upstream', async () => {
    const response = await register('notes', { path: '/api/plugins/notes' })
    expect(response.status, await response.clone().text()).toBe(201)
  })
})
