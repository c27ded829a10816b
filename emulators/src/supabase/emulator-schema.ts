import type { Sql } from '@tessera/db/sql'

/** The schema holding the stand-in's own state, next to the `auth` schema GoTrue would own. */
export const emulatorSchema = '_supabase_emulator'

const ddl = `
create schema if not exists ${emulatorSchema};
comment on schema ${emulatorSchema} is 'State of the local Supabase stand-in (signing keys, mailbox); not part of hosted Supabase.';

create table if not exists ${emulatorSchema}.signing_keys (
  kid text primary key,
  private_jwk jsonb not null,
  public_jwk jsonb not null,
  created_at timestamptz not null default now()
);
comment on table ${emulatorSchema}.signing_keys is 'The ES256 key pair access tokens are signed with; kept so tokens survive a restart.';

create table if not exists ${emulatorSchema}.mailbox_messages (
  id uuid primary key,
  seq bigint generated always as identity,
  to_address text not null,
  from_address text not null,
  subject text not null,
  text_body text not null,
  html_body text not null,
  links jsonb not null,
  email_type text not null,
  token_hash text,
  otp text,
  redirect_to text,
  user_id uuid,
  created_at timestamptz not null
);
comment on table ${emulatorSchema}.mailbox_messages is 'Every email the auth stand-in sent, as the mailbox shows it.';
create index if not exists mailbox_messages_to_created_idx on ${emulatorSchema}.mailbox_messages (to_address, created_at desc);
create index if not exists mailbox_messages_created_idx on ${emulatorSchema}.mailbox_messages (created_at desc);

create table if not exists ${emulatorSchema}.email_sends (
  address text not null,
  email_type text not null,
  last_sent_at timestamptz not null,
  primary key (address, email_type)
);
comment on table ${emulatorSchema}.email_sends is 'When each address last got each kind of email: the per-address send rate limit.';
`

/** Creates the stand-in's tables when missing; cheap, runs at every start. */
export async function ensureEmulatorSchema(sql: Sql): Promise<void> {
  await sql.transaction(async (tx) => {
    // Two stand-ins starting against one server database must not race on `create table`.
    await tx.query('select pg_advisory_xact_lock($1)', [74_615_284])
    await tx.exec(ddl)
  })
}
