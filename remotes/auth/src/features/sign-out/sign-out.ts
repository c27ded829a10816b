import type { Platform } from '@tessera/contracts/platform'
import type { SignOutScope } from '@tessera/contracts/auth'
import type { AuthApi } from '../../lib/auth-api.ts'
import { authPaths } from '../../lib/destinations.ts'
import { notifyFailure } from '../../lib/notify-failure.ts'

/**
 * Signs out this device (`local`) or every device (`global`), tells every tab (the session store
 * mirrors the new state), then shows the sign-in page. Returns whether it worked.
 */
export async function signOut(
  platform: Platform,
  api: AuthApi,
  scope: SignOutScope,
): Promise<boolean> {
  try {
    await api.signOut(scope)
  } catch (error) {
    notifyFailure(platform, error, 'You could not be signed out.')
    return false
  }
  // Read the session before moving: the sign-in page sends signed-in visitors away.
  await platform.session.refresh()
  platform.notify({
    kind: 'success',
    message: scope === 'global' ? 'You are signed out on every device.' : 'You are signed out.',
  })
  platform.navigate(authPaths.signIn)
  return true
}
