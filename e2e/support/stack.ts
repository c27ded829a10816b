/** Ports and environment of the stack the end-to-end suite starts for itself. */
// Overridable so two checkouts can run their suites side by side.
const bffPort = Number(process.env.E2E_BFF_PORT ?? 18787)
const cdnPort = Number(process.env.E2E_CDN_PORT ?? 18788)
const supabasePort = Number(process.env.E2E_SUPABASE_PORT ?? 18321)
const mailboxPort = Number(process.env.E2E_MAILBOX_PORT ?? 18324)
const stripePort = Number(process.env.E2E_STRIPE_PORT ?? 18111)
const openaiPort = Number(process.env.E2E_OPENAI_PORT ?? 18790)

export const e2eStack = {
  appUrl: `http://localhost:${bffPort}`,
  cdnUrl: `http://localhost:${cdnPort}`,
  mailboxUrl: `http://127.0.0.1:${mailboxPort}`,
  stripeUrl: `http://127.0.0.1:${stripePort}`,
  openaiUrl: `http://127.0.0.1:${openaiPort}`,
  env: {
    PORT: String(bffPort),
    CDN_PORT: String(cdnPort),
    SUPABASE_PORT: String(supabasePort),
    MAILBOX_PORT: String(mailboxPort),
    STRIPE_PORT: String(stripePort),
    OPENAI_EMULATOR_PORT: String(openaiPort),
    // Fast enough to keep the suite quick, slow enough that a person could press Stop.
    OPENAI_EMULATOR_TOKENS_PER_SECOND: '100',
    TESSERA_DATA_DIR: process.env.E2E_DATA_DIR ?? '.tessera/e2e',
    LOG_LEVEL: 'warn',
    // Every test signs up a fresh account from one address; the limit itself has its own tests.
    EMAIL_SEND_RATE_LIMIT: '10000',
    // A stalled model becomes upstream_timeout after this long: short, so the journey that
    // injects a stall does not wait the production 20 s.
    ASSISTANT_FIRST_TOKEN_TIMEOUT_MS: '4000',
  },
}
