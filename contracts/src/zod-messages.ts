import { z } from 'zod/mini'
import { en } from 'zod/locales'

// zod/mini, which the contracts use so a browser downloads a third of classic zod's bytes, loads
// no locale: an issue without a message of its own says only "Invalid input". A server whose
// answers carry issue messages (the BFF's `validation_failed` details, the stand-ins' API errors,
// a configuration error at start) imports this module once: zod's English sentences then fill in
// ("Invalid input: expected string, received number"). The setting is process-wide, like
// `jitless` in the host. Browsers do not load it: every message a page shows is a contract's own.
z.config(en())
