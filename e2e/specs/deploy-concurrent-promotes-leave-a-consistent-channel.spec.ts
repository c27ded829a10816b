import { deployApi, publishCommand, remoteCommand, restoreBilling } from '../support/deploy-cli.ts'
import { deployTest as test, expect } from '../support/deploy-stack.ts'
import { entryOf, visit } from '../support/deploy-visits.ts'

test.afterEach(async ({ request, deployStack }) => {
  await restoreBilling(request, deployStack)
})

test('two promotes at once never lose one: the channel ends on one of them, with both moves recorded in order', async ({
  browser,
  request,
  deployStack: stack,
}) => {
  test.setTimeout(360_000)
  for (const version of ['1.5.0', '1.6.0']) {
    expect((await publishCommand(stack, 'billing', ['--version', version])).code).toBe(0)
  }
  const api = deployApi(request, stack, 'billing')
  const start = await api.state()

  // Against the same revision (compare-and-swap): exactly one wins, the other is told why.
  const raced = await Promise.all(
    ['1.5.0', '1.6.0'].map((version) =>
      api.post('/promote', { version, expectedRevision: start.stable.revision }),
    ),
  )
  const statuses = raced.map((response) => response.status()).sort()
  expect(statuses).toEqual([200, 409])
  const loser = raced.find((response) => response.status() === 409)
  const refusal = (await loser?.json()) as { error: { code: string; message: string } }
  expect(refusal.error.code).toBe('conflict')
  expect(refusal.error.message).toMatch(
    new RegExp(
      `^Changed by .+ at \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d UTC; reload to see it\\. The stable channel of billing is at revision ${start.stable.revision + 1} \\(serving 1\\.[56]\\.0\\), not ${start.stable.revision}, so nothing was applied\\.$`,
    ),
  )
  const afterCas = await api.state()
  expect(afterCas.stable.revision).toBe(start.stable.revision + 1)
  const winner = afterCas.stable.version
  expect(['1.5.0', '1.6.0']).toContain(winner)
  expect(afterCas.events.filter((event) => event.kind === 'promoted')[0]).toMatchObject({
    version: winner,
    fromVersion: '1.0.0',
  })

  // Two teammates running the command at once: each reads, moves, and retries if it lost.
  const other = winner === '1.5.0' ? '1.6.0' : '1.5.0'
  const both = await Promise.all([
    remoteCommand(stack, ['promote', 'billing', '1.0.0']),
    remoteCommand(stack, ['promote', 'billing', other]),
  ])
  for (const result of both) expect(result.code, result.output).toBe(0)
  const end = await api.state()
  expect(end.stable.revision).toBe(afterCas.stable.revision + 2)
  const [last, previous] = end.events.filter((event) => event.kind === 'promoted')
  // The later move names the earlier one as what it replaced: no move was lost or overwritten.
  expect(previous?.fromVersion).toBe(winner)
  expect(last?.fromVersion).toBe(previous?.version)
  expect(end.stable.version).toBe(last?.version)

  // Page loads get exactly what the channel says.
  const visitor = await visit(browser, stack)
  expect(entryOf(visitor.remotes, 'billing').version).toBe(end.stable.version)
  await visitor.context.close()
})
