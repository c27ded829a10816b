// The host's build and dev-server configuration: the only place in host/ that reads process.env.
// Parsed once; a bad value fails the build with its name rather than producing a broken bundle.

export interface BuildEnv {
  /** Where the dev server proxies `/api` (and the SSE stream) to. */
  bffUrl: string
  /** Dev server port. */
  port: number
  /** Build the host with the three plugins imported statically (for the benchmark). */
  monolith: boolean
  /** How long one attempt to load a remote may take before it counts as failed. */
  remoteTimeoutMs: number
  /** Pause before the one retry of a failed remote load. */
  remoteRetryDelayMs: number
}

type Source = Record<string, string | undefined>

function readUrl(source: Source, key: string, fallback: string, problems: string[]): string {
  const value = source[key] ?? fallback
  try {
    return new URL(value).origin
  } catch {
    problems.push(`${key} must be an absolute URL like http://localhost:8787 (got "${value}")`)
    return fallback
  }
}

function readInt(source: Source, key: string, fallback: number, problems: string[]): number {
  const raw = source[key]
  if (raw === undefined || raw === '') return fallback
  const value = Number(raw)
  if (!Number.isInteger(value) || value < 0) {
    problems.push(`${key} must be a whole number of zero or more (got "${raw}")`)
    return fallback
  }
  return value
}

function readFlag(source: Source, key: string, problems: string[]): boolean {
  const raw = source[key]
  if (raw === undefined || raw === '' || raw === '0' || raw === 'false') return false
  if (raw === '1' || raw === 'true') return true
  problems.push(`${key} must be 1 or 0 (got "${raw}")`)
  return false
}

/** Reads the build configuration, throwing one error that lists every bad key. */
export function readBuildEnv(source: Source): BuildEnv {
  const problems: string[] = []
  const env: BuildEnv = {
    bffUrl: readUrl(source, 'TESSERA_BFF_URL', 'http://localhost:8787', problems),
    port: readInt(source, 'HOST_PORT', 5173, problems),
    monolith: readFlag(source, 'TESSERA_MONOLITH', problems),
    remoteTimeoutMs: readInt(source, 'TESSERA_REMOTE_TIMEOUT_MS', 8000, problems),
    remoteRetryDelayMs: readInt(source, 'TESSERA_REMOTE_RETRY_DELAY_MS', 500, problems),
  }
  if (problems.length > 0) {
    throw new Error(`Invalid host build configuration:\n- ${problems.join('\n- ')}`)
  }
  return env
}
