import type {
  AuditEntry,
  ConsoleHealth,
  ConsoleRemote,
  ConsoleRemoteDetail,
  ConsoleRemotesResponse,
  ConsoleToken,
  ConsoleVersion,
  Operator,
} from '@tessera/contracts/console'
import type { ChannelChange, ChannelState } from '@tessera/contracts/deploy'

const at = '2026-11-26T09:00:00.000Z'

export function channel(
  name: 'stable' | 'canary',
  version: string | null,
  options: { percentage?: number | null; revision?: number } = {},
): ChannelState {
  return {
    channel: name,
    version,
    percentage: options.percentage ?? null,
    revision: options.revision ?? 1,
    updatedAt: at,
  }
}

/** billing on 1.0.0 with a 20 % canary of 1.3.0 that three clients saw, two with errors. */
export function billingRemote(overrides: Partial<ConsoleRemote> = {}): ConsoleRemote {
  return {
    name: 'billing',
    stable: channel('stable', '1.0.0', { revision: 4 }),
    canary: channel('canary', '1.3.0', { percentage: 20, revision: 7 }),
    contract: 1,
    bytes: 142_300,
    lastPublished: { version: '1.3.0', by: 'billing CI', at },
    traffic: [
      {
        version: '1.3.0',
        servedClients: 3,
        errorClients: 2,
        errorRate: 2 / 3,
        errorsPerMinute: [0, 0, 1, 3],
        loads: null,
      },
      {
        version: '1.0.0',
        servedClients: 12,
        errorClients: 0,
        errorRate: 0,
        errorsPerMinute: [0, 0, 0, 0],
        loads: {
          count: 40,
          preloadedShare: 0.75,
          entryMs: 120,
          exposeMs: 210,
          mountMs: 90,
          readyP50Ms: 750,
          readyP95Ms: 2000,
        },
      },
    ],
    ...overrides,
  }
}

export function remotesBody(remotes: ConsoleRemote[] = [billingRemote()]): ConsoleRemotesResponse {
  return {
    remotes,
    canary: { windowSeconds: 600, threshold: 0.5, minClients: 3 },
    generatedAt: at,
  }
}

export function version(number: string, overrides: Partial<ConsoleVersion> = {}): ConsoleVersion {
  return {
    version: number,
    descriptor: {
      name: 'billing',
      version: number,
      contract: 1,
      basePath: '/billing',
      nav: { label: 'Billing', order: 20 },
      slots: ['header.end'],
      entry: 'assets/remoteEntry.js',
      shared: { react: '19.3.1', 'react-dom': '19.3.1' },
      files: [
        { path: 'assets/remoteEntry.js', sha256: 'a'.repeat(64), bytes: 4_100 },
        { path: 'assets/plugin.js', sha256: 'b'.repeat(64), bytes: 138_200 },
      ],
      builtAt: at,
    },
    contentSha256: 'c'.repeat(64),
    bytes: 142_300,
    registeredAt: at,
    registeredBy: 'billing CI',
    lastStableAt: null,
    withdrawnAt: null,
    withdrawnReason: null,
    checks: [
      { name: 'descriptor', passed: true, detail: null },
      { name: 'file hashes', passed: true, detail: '2 files' },
    ],
    ...overrides,
  }
}

export function detailBody(remote: ConsoleRemote = billingRemote()): ConsoleRemoteDetail {
  return {
    remote,
    previousGood: '0.9.0',
    versions: [version('1.3.0'), version('1.0.0', { lastStableAt: at }), version('0.9.0')],
  }
}

export function change(
  name: 'stable' | 'canary',
  before: ChannelState,
  after: ChannelState,
): ChannelChange {
  return { remote: 'billing', channel: name, changed: true, before, after }
}

export function auditEntry(id: number, overrides: Partial<AuditEntry> = {}): AuditEntry {
  return {
    id,
    kind: 'promoted',
    remote: 'billing',
    actor: 'ada@example.com',
    source: 'operator',
    before: '1.0.0',
    after: '1.3.0',
    details: {},
    at,
    ...overrides,
  }
}

export function token(id: string, overrides: Partial<ConsoleToken> = {}): ConsoleToken {
  return {
    id,
    remote: 'billing',
    label: 'billing CI',
    createdAt: at,
    lastUsedAt: null,
    revokedAt: null,
    ...overrides,
  }
}

export function healthBody(overrides: Partial<ConsoleHealth> = {}): ConsoleHealth {
  return {
    replicas: [
      { id: 'bff-1', up: true, startedAt: at, lastSeenAt: at, version: '0.1.0', self: true },
      { id: 'bff-2', up: false, startedAt: at, lastSeenAt: at, version: '0.1.0', self: false },
    ],
    checks: [
      { name: 'database', ok: true, latencyMs: 2.4, problem: null },
      { name: 'supabase', ok: true, latencyMs: 11, problem: null },
      {
        name: 'stripe',
        ok: false,
        latencyMs: null,
        problem: 'Stripe did not answer within 2 s. Check STRIPE_API_URL and the network.',
      },
      { name: 'model', ok: true, latencyMs: 180, problem: null },
    ],
    checkedAt: at,
    ...overrides,
  }
}

export function operatorOf(userId: string, overrides: Partial<Operator> = {}): Operator {
  return {
    userId,
    email: 'ada@example.com',
    grantedAt: at,
    grantedBy: 'npm start',
    ...overrides,
  }
}
