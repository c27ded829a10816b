import { readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { e2eStack } from '../support/stack.ts'
import { expect, test } from '../support/fixtures.ts'

const registryFile = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../..',
  e2eStack.env.TESSERA_DATA_DIR,
  'registry.json',
)

test('an operator’s registry change reaches an open remote page live, and a malformed entry is left out', async ({
  page,
  request,
}) => {
  await page.goto('/billing')
  const outlet = page.locator('main [data-tessera-remote="billing"]')
  await expect(outlet.getByText('Stream: open', { exact: false })).toBeVisible()

  const original = readFileSync(registryFile, 'utf8')
  const registry = JSON.parse(original) as { remotes: unknown[] }
  try {
    registry.remotes.push({ name: 'Broken Remote!', version: 'one', entryUrl: 'not a url' })
    writeFileSync(registryFile, JSON.stringify(registry, null, 2))
    await expect(outlet.getByRole('list', { name: /received events/i })).toContainText(
      'registry.changed',
    )

    const snapshot = (await (await request.get('/api/remotes')).json()) as {
      remotes: Array<{ name: string }>
      diagnostics: Array<{ remote: string | null; message: string }>
    }
    expect(snapshot.remotes.map((r) => r.name).sort()).toEqual(['ai', 'auth', 'billing'])
    expect(snapshot.diagnostics).toEqual([expect.objectContaining({ remote: 'Broken Remote!' })])
  } finally {
    writeFileSync(registryFile, original)
  }
})
