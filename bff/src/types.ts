/** What frontends may import from the BFF: types only (`import type { AppType }`). */
export type { AppType } from './http/app.ts'
