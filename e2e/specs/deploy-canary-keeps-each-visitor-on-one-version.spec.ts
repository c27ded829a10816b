import { publishCommand, remoteCommand, restoreBilling } from '../support/deploy-cli.ts'
import { deployTest as test, expect } from '../support/deploy-stack.ts'
import { entryOf, visit } from '../support/deploy-visits.ts'

test.afterEach(async ({ request, deployStack }) => {
  await restoreBilling(request, deployStack)
})

/** One visitor's snapshot requests, keeping the visitor cookie the first answer sets. */
async function visitorVersions(appUrl: string, loads: number): Promise<string[]> {
  let cookie = ''
  const versions: string[] = []
  for (let index = 0; index < loads; index++) {
    const response = await fetch(`${appUrl}/api/remotes`, { headers: cookie ? { cookie } : {} })
    const visitor = response.headers.getSetCookie().find((c) => c.startsWith('tessera_visitor='))
    if (visitor !== undefined) cookie = visitor.split(';')[0] ?? ''
    const body = (await response.json()) as { remotes: { name: string; version: string }[] }
    versions.push(body.remotes.find((remote) => remote.name === 'billing')?.version ?? 'none')
  }
  return versions
}

test('a canary at 50 % serves billing 1.2.0 to about half of the visitors, each of whom keeps their version across reloads', async ({
  browser,
  deployStack: stack,
}) => {
  test.setTimeout(360_000)
  expect((await publishCommand(stack, 'billing', ['--version', '1.2.0'])).code).toBe(0)
  const started = await remoteCommand(stack, ['canary', 'billing', '1.2.0', '50'])
  expect(started.output).toMatch(/billing canary: none → 1\.2\.0 at 50 % \(revision \d+ → \d+\)/)
  expect(started.code).toBe(0)

  // Browsers: the page boots with the same billing on every reload, and loads that version's code.
  for (let index = 0; index < 4; index++) {
    const visitor = await visit(browser, stack)
    const served = entryOf(visitor.remotes, 'billing')
    expect(['1.0.0', '1.2.0']).toContain(served.version)
    if (served.version === '1.2.0') {
      expect(served).toMatchObject({ channel: 'canary', previous: { version: '1.0.0' } })
    }
    await expect
      .poll(() => visitor.entries)
      .toContain(`${stack.cdnUrl}/billing/${served.version}/assets/remoteEntry.js`)
    for (let reload = 0; reload < 2; reload++) {
      expect(entryOf(await visitor.reload(), 'billing').version).toBe(served.version)
    }
    const other = served.version === '1.0.0' ? '1.2.0' : '1.0.0'
    expect(visitor.entries.filter((url) => url.includes(`/billing/${other}/`))).toEqual([])
    await visitor.context.close()
  }

  // Many visitors, through the API the host calls: sticky for each, about half in all.
  const visitors = await Promise.all(
    Array.from({ length: 200 }, () => visitorVersions(stack.appUrl, 3)),
  )
  for (const versions of visitors) expect(new Set(versions).size).toBe(1)
  const inCanary = visitors.filter((versions) => versions[0] === '1.2.0').length
  // 200 fair coin flips fall outside 35–65 % in fewer than one run in 40 000.
  expect(inCanary).toBeGreaterThanOrEqual(70)
  expect(inCanary).toBeLessThanOrEqual(130)

  const stopped = await remoteCommand(stack, ['canary', 'billing', 'stop'])
  expect(stopped.output).toMatch(/billing canary: 1\.2\.0 at 50 % → none/)
  const after = await Promise.all(
    Array.from({ length: 20 }, () => visitorVersions(stack.appUrl, 1)),
  )
  expect(after.flat().every((version) => version === '1.0.0')).toBe(true)
})
