import { cp } from 'node:fs/promises'
import path from 'node:path'
import {
  alteredBuild,
  deployApi,
  publishAltered,
  publishCommand,
  type AlteredBuild,
} from '../support/deploy-cli.ts'
import { deployTest as test, expect, type DeployStack } from '../support/deploy-stack.ts'

// Each refusal is checked where a team meets it (the publish command, which checks what it can
// before uploading) and where it is enforced (the deploy API, which a script could call directly).

/** Puts a build's files where the stack's cdn serves `billing/<version>`, as an upload would. */
async function uploadByHand(stack: DeployStack, build: AlteredBuild, version: string) {
  await cp(path.join(build.dir, 'dist'), path.join(stack.dataDir, 'cdn', 'billing', version), {
    recursive: true,
  })
}

/** Registers a build through the deploy API directly, with billing's token. */
async function registerByHand(
  request: Parameters<typeof deployApi>[0],
  stack: DeployStack,
  build: AlteredBuild,
  version: string,
) {
  const response = await deployApi(request, stack, 'billing').post('/versions', {
    descriptor: { ...build.descriptor, version },
    baseUrl: `${stack.cdnUrl}/billing/${version}`,
  })
  const body = (await response.json()) as { error: { code: string; message: string } }
  return { status: response.status(), ...body.error }
}

async function registeredVersions(request: Parameters<typeof deployApi>[0], stack: DeployStack) {
  const response = await request.get(`${stack.appUrl}/api/deploy/remotes/billing`, {
    headers: { authorization: `Bearer ${stack.tokens.billing}` },
  })
  const state = (await response.json()) as {
    stable: { version: string }
    versions: { version: string }[]
  }
  return { stable: state.stable.version, versions: state.versions.map((v) => v.version) }
}

test('a publish with another team’s token is refused, and says whose token it is', async ({
  request,
  deployStack: stack,
}) => {
  const before = await registeredVersions(request, stack)
  const result = await publishCommand(stack, 'billing', ['--version', '1.4.0'], {
    TESSERA_DEPLOY_TOKEN: stack.tokens.auth ?? '',
  })
  expect(result.output).toContain(
    'refused (forbidden): This deploy token is for auth; it cannot deploy billing. Use billing’s own token.',
  )
  expect(result.code).toBe(1)
  expect(await registeredVersions(request, stack)).toEqual(before)
})

test('a build for another contract or React major is refused, saying what to rebuild against', async ({
  request,
  deployStack: stack,
}) => {
  const before = await registeredVersions(request, stack)
  const contract2 = await alteredBuild(stack, 'billing', 'contract-2', ({ descriptor }) => {
    descriptor.contract = 2
  })
  const cli = await publishAltered(stack, contract2, ['--version', '1.4.1'])
  expect(cli.output).toContain(
    'is built for platform contract 2, but the host runs contract 1. Rebuild it against @tessera/contracts with CONTRACT_MAJOR 1.',
  )
  expect(cli.code).toBe(1)

  await uploadByHand(stack, contract2, '1.4.1')
  const api = await registerByHand(request, stack, contract2, '1.4.1')
  expect(api).toMatchObject({
    status: 422,
    code: 'validation_failed',
    message:
      'billing 1.4.1 is built for platform contract 2, but the host runs contract 1. Rebuild it against @tessera/contracts with CONTRACT_MAJOR 1.',
  })

  const react18 = await alteredBuild(stack, 'billing', 'react-18', ({ descriptor }) => {
    descriptor.shared = { react: '18.3.1', 'react-dom': '18.3.1' }
  })
  const react = await registerByHand(request, stack, react18, '1.4.1')
  expect(react.status).toBe(422)
  expect(react.message).toContain(
    'billing 1.4.1 is built against react 18.3.1, but the host shares react 19. Build it with react 19.x.',
  )
  expect(await registeredVersions(request, stack)).toEqual(before)
})

test('a build whose files do not hash as its descriptor says is refused, naming the file', async ({
  request,
  deployStack: stack,
}) => {
  const before = await registeredVersions(request, stack)
  let changed = ''
  const tampered = await alteredBuild(
    stack,
    'billing',
    'tampered',
    ({ descriptor, files }) => {
      // Same length, other bytes: only the hash can tell.
      changed = descriptor.files.find((file) => file.path.endsWith('.js'))?.path ?? ''
      const bytes = files.get(changed)
      if (bytes === undefined) throw new Error('the build has no JavaScript file')
      const copy = new Uint8Array(bytes)
      copy[0] = copy[0] === 0x20 ? 0x0a : 0x20
      files.set(changed, copy)
    },
    { keepHashes: true },
  )
  const cli = await publishAltered(stack, tampered, ['--version', '1.4.2'])
  expect(cli.output).toContain(
    `${changed} in ${path.join(tampered.dir, 'dist')} is not the file the build described (its sha256 differs): rebuild before publishing.`,
  )
  expect(cli.code).toBe(1)

  // Storage holding other bytes than were built (a corrupted upload) is caught by the BFF.
  await uploadByHand(stack, tampered, '1.4.2')
  const api = await registerByHand(request, stack, tampered, '1.4.2')
  expect(api.status).toBe(422)
  expect(api.message).toMatch(
    new RegExp(
      `^The build was refused: ${changed.replaceAll('.', '\\.')} at ${stack.cdnUrl}/billing/1\\.4\\.2/${changed.replaceAll('.', '\\.')} has sha256 [0-9a-f]{64} \\(\\d+ bytes\\), but the descriptor says [0-9a-f]{64} \\(\\d+ bytes\\): it is not the file that was built\\.`,
    ),
  )
  expect(await registeredVersions(request, stack)).toEqual(before)
})

test('a version re-used for other content is refused in storage and in the registry', async ({
  request,
  deployStack: stack,
}) => {
  const first = await publishCommand(stack, 'billing', ['--version', '1.4.3'])
  expect(first.code).toBe(0)
  // Publishing the same build again is harmless: nothing new, nothing refused.
  const again = await publishCommand(stack, 'billing', ['--version', '1.4.3'])
  expect(again.output).toContain('billing 1.4.3 already registered, unchanged:')
  expect(again.code).toBe(0)

  const edited = await alteredBuild(stack, 'billing', 'edited', ({ descriptor, files }) => {
    const chunk = descriptor.files.find((file) => file.path.endsWith('.js'))?.path ?? ''
    const bytes = files.get(chunk)
    if (bytes === undefined) throw new Error('the build has no JavaScript file')
    files.set(chunk, new Uint8Array([...bytes, ...new TextEncoder().encode('\n// edited\n')]))
  })
  const directory = await publishAltered(stack, edited, ['--version', '1.4.3'])
  expect(directory.output).toMatch(
    /billing 1\.4\.3 is already in directory storage with other content \(billing\/1\.4\.3\/assets\/[^)]+\)\. Versions are immutable: publish this build as a new version \(--version\)\./,
  )
  expect(directory.code).toBe(1)

  // Through other storage the upload succeeds, and the registry refuses the version itself.
  const supabase = await publishAltered(stack, edited, ['--version', '1.4.3'], {
    TESSERA_STORAGE: 'supabase',
  })
  expect(supabase.output).toMatch(
    /refused \(conflict\): billing 1\.4\.3 is already registered with other content \(sha256 [0-9a-f]{12}…, this build [0-9a-f]{12}…\)\. Versions are immutable: publish this build as a new version\./,
  )
  expect(supabase.code).toBe(1)
  expect((await registeredVersions(request, stack)).stable).toBe('1.0.0')
})
