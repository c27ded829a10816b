import bffPackage from '../../package.json' with { type: 'json' }

/** The BFF's version, from its package.json, reported by `GET /api/health`. */
export const BFF_VERSION: string = bffPackage.version
