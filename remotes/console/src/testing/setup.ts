import { configure } from '@testing-library/react'

// `findBy…` waits up to 1 s by default; CI runs every suite at once on two cores, where a React
// render after a resolved fetch can take longer. Waiting longer changes no outcome, only the
// time a real failure takes to show.
configure({ asyncUtilTimeout: 5000 })
