import { configure } from '@testing-library/react'
import { loadFieldChecks } from '../features/forms/validation.ts'

// `findBy…` waits up to 1 s by default; CI runs every suite at once on two cores, where a React
// render after a resolved fetch can take longer. Waiting longer changes no outcome, only the
// time a real failure takes to show.
configure({ asyncUtilTimeout: 5000 })

// The forms' checks load after a page is drawn (validation.ts); the tests start with them here,
// as a person does once the page has settled.
await loadFieldChecks()
