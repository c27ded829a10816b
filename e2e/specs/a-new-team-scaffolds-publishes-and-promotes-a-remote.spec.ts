// The plugin platform's promise (issue 16): a new team runs `npm run remote -- new`, publishes and
// promotes, and a running host shows its page, with nothing outside `remotes/<name>` touched and
// the host neither rebuilt nor restarted. The remote is a scratch one (support/remotes.ts), removed
// afterwards whatever happens.
import { execFile } from 'node:child_process'
import { createHash, randomUUID } from 'node:crypto'
import { readFile, readdir, rm, stat } from 'node:fs/promises'
import path from 'node:path'
import { promisify } from 'node:util'
import { test, type BrowserContext } from '@playwright/test'
import { runCommand } from '../support/deploy-cli.ts'
import { expect, repoRoot, startDeployStack, type DeployStack } from '../support/deploy-stack.ts'
import { password, uniqueEmail } from '../support/identity.ts'
import { withoutFirstReads } from '../support/first-reads.ts'

const exec = promisify(execFile)

/** `git status --porcelain` lines (what changed in the working tree, untracked files folded). */
async function gitStatus(): Promise<Set<string>> {
  const { stdout } = await exec('git', ['status', '--porcelain'], { cwd: repoRoot })
  return new Set(stdout.split('\n').filter((line) => line !== ''))
}

/** One hash over every file of a folder: its paths and its bytes. */
async function hashTree(dir: string): Promise<string> {
  const hash = createHash('sha256')
  const entries = await readdir(dir, { recursive: true, withFileTypes: true })
  const files = entries
    .filter((entry) => entry.isFile())
    .map((entry) => path.join(entry.parentPath, entry.name))
    .sort()
  for (const file of files) hash.update(path.relative(dir, file)).update(await readFile(file))
  return hash.digest('hex')
}

/** A confirmed account on the deploy stack, signed in in `context` (the auth pages' own calls). */
async function signUp(context: BrowserContext, stack: DeployStack) {
  const email = uniqueEmail('scaffold')
  const headers = { 'x-tessera-csrf': '1', origin: stack.appUrl }
  const signUp = await context.request.post('/api/auth/sign-up', {
    headers,
    data: { email, password, displayName: 'Grace Hopper' },
  })
  expect(signUp.status(), await signUp.text()).toBeLessThan(300)
  let tokenHash: string | null = null
  await expect
    .poll(async () => {
      const response = await context.request.get(
        `${stack.mailboxUrl}/api/messages?to=${encodeURIComponent(email)}`,
      )
      const { messages } = (await response.json()) as { messages: { text: string }[] }
      const link = /https?:\/\/\S+\/auth\/confirm\?\S+/.exec(messages[0]?.text ?? '')?.[0]
      tokenHash = link === undefined ? null : new URL(link).searchParams.get('token_hash')
      return tokenHash
    })
    .not.toBeNull()
  const confirm = await context.request.post('/api/auth/confirm', {
    headers,
    data: { tokenHash, type: 'signup' },
  })
  expect(confirm.status(), await confirm.text()).toBeLessThan(300)
  return email
}

test('a new team scaffolds a remote with an API, publishes and promotes it, and the running host shows its page', async ({
  browser,
}, testInfo) => {
  // About 70 s alone (a stack of its own, a build, a publish); more beside other workers.
  test.setTimeout(300_000)
  const name = `scratch-${randomUUID().slice(0, 8)}`
  const label = name.replace('-', ' ').replace(/^./, (first) => first.toUpperCase())
  const folder = path.join(repoRoot, 'remotes', name)
  const lockBefore = await readFile(path.join(repoRoot, 'package-lock.json'), 'utf8')
  const hostBefore = await hashTree(path.join(repoRoot, 'host/dist'))
  let stack: (DeployStack & { stop(): Promise<void> }) | undefined
  try {
    const statusBefore = await gitStatus()
    const started = Date.now()
    await exec('npx', ['tsx', 'scripts/deploy/remote.ts', 'new', name, '--with-api'], {
      cwd: repoRoot,
    })
    const ended = Date.now()
    const changed = [...(await gitStatus())].filter((line) => !statusBefore.has(line))
    expect(changed).toContain(`?? remotes/${name}/`)
    // Other people may be editing this working tree meanwhile: a change elsewhere counts against
    // the scaffold only if it was written while the scaffold ran.
    const elsewhere = await Promise.all(
      changed
        .filter((line) => line !== `?? remotes/${name}/`)
        .map(async (line) => {
          const file = path.join(repoRoot, line.slice(3))
          const written = await stat(file).then(
            (info) => info.mtimeMs,
            () => started,
          )
          return written >= started - 1 && written <= ended + 1 ? line : null
        }),
    )
    expect(elsewhere.filter((line) => line !== null)).toEqual([])

    // A stack started now finds the new folder: it issues its token and runs its API.
    stack = await startDeployStack(1000 + testInfo.workerIndex)
    const running = stack
    const served = async () =>
      withoutFirstReads(
        await (await fetch(`${running.appUrl}/`, { headers: { accept: 'text/html' } })).text(),
      )
    const pageBefore = await served()

    const published = await runCommand(running, 'npm', [
      'run',
      '--silent',
      'publish',
      '-w',
      `remotes/${name}`,
    ])
    expect(published.output).toContain(`${name} 0.1.0 registered`)
    expect(published.code).toBe(0)
    const promoted = await runCommand(running, 'npm', [
      'run',
      '--silent',
      'remote',
      '--',
      'promote',
      name,
      '0.1.0',
    ])
    expect(promoted.output, promoted.output).toContain(`${name} stable: none → 0.1.0`)

    const context = await browser.newContext({ baseURL: running.appUrl })
    const email = await signUp(context, running)
    const page = await context.newPage()
    await page.goto('/')
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: label }).click()
    await expect(page).toHaveURL(new RegExp(`/${name}$`))
    const remote = page.locator(`main [data-tessera-remote="${name}"]`)
    await expect(remote.getByRole('heading', { level: 1, name: label })).toBeVisible()
    await expect(remote.getByText('Signed in as Grace Hopper.')).toBeVisible()

    // The team's API, through the BFF: the service saw a valid JWT naming this user.
    const api = await page.request.get(`/api/plugins/${name}/hello`)
    expect(api.status(), await api.text()).toBe(200)
    expect(await api.json()).toMatchObject({ user: { email } })
    await context.close()

    expect(await served()).toBe(pageBefore)
    expect(await hashTree(path.join(repoRoot, 'host/dist'))).toBe(hostBefore)
  } finally {
    await stack?.stop()
    await rm(folder, { recursive: true, force: true })
  }
  expect(await readFile(path.join(repoRoot, 'package-lock.json'), 'utf8')).toBe(lockBefore)
})
