import {
  alteredBuild,
  deployApi,
  publishAltered,
  remoteCommand,
  restoreBilling,
} from '../support/deploy-cli.ts'
import { deployTest as test, expect } from '../support/deploy-stack.ts'
import { entryOf, visit } from '../support/deploy-visits.ts'

test.afterEach(async ({ request, deployStack }) => {
  await restoreBilling(request, deployStack)
})

test('a canary whose visitors’ browsers report errors is stopped automatically, and they fall back to stable meanwhile', async ({
  browser,
  request,
  deployStack: stack,
}) => {
  test.setTimeout(480_000)
  // A build that passes every publish check and fails in the browser: its entry throws.
  const broken = await alteredBuild(stack, 'billing', 'broken-entry', ({ descriptor, files }) => {
    files.set(
      descriptor.entry,
      new TextEncoder().encode("throw new Error('billing 1.3.0 fails on purpose')\n"),
    )
  })
  const published = await publishAltered(stack, broken, ['--version', '1.3.0'])
  expect(published.output).toContain('billing 1.3.0 registered')
  expect((await remoteCommand(stack, ['canary', 'billing', '1.3.0', '50'])).code).toBe(0)

  // The stack judges a canary once 3 clients were served it (CANARY_MIN_CLIENTS in
  // deploy-stack.ts); half the visitors are in it, so a few more than 6 visits are enough.
  const api = deployApi(request, stack, 'billing')
  let canaryVisitors = 0
  for (let visits = 0; visits < 40; visits++) {
    const visitor = await visit(browser, stack)
    const served = entryOf(visitor.remotes, 'billing')
    if (served.channel === 'canary') {
      expect(served.version).toBe('1.3.0')
      canaryVisitors += 1
      // The host reports the failure and falls back to the stable version for this visitor.
      await expect
        .poll(() => visitor.reports.some((report) => report.version === '1.3.0'))
        .toBe(true)
      await expect
        .poll(() => visitor.entries)
        .toContain(`${stack.cdnUrl}/billing/1.0.0/assets/remoteEntry.js`)
    }
    await visitor.context.close()
    if ((await api.state()).canary.version === null) break
  }
  expect(canaryVisitors).toBe(3)

  const state = await api.state()
  expect(state.stable.version).toBe('1.0.0')
  expect(state.canary.version).toBeNull()
  expect(state.events[0]).toMatchObject({
    kind: 'canary_auto_rolled_back',
    version: '1.3.0',
    actor: 'canary monitor',
  })

  const list = await remoteCommand(stack, ['list', 'billing'])
  expect(list.output).toContain(
    'stopped canary 1.3.0 automatically (error rate 100 %: 3 of 3 clients) by canary monitor',
  )
  expect(list.output).toMatch(
    /1\.3\.0 +registered .* withdrawn: canary stopped automatically: 3 of 3 clients reported errors \(100 %, threshold 50 %\)/,
  )

  // Nobody is served the broken version any more.
  const after = await visit(browser, stack)
  expect(entryOf(after.remotes, 'billing')).toMatchObject({ version: '1.0.0', channel: 'stable' })
  await after.context.close()
})
