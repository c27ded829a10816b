import type { Sql } from '@tessera/db/sql'

/**
 * Storage's tables in the project database, as hosted Supabase has them (`storage.buckets`,
 * `storage.objects`, same column names), plus what hosted Storage keeps in S3 instead: the bytes
 * and their digest, in columns of `storage.objects`. Like the `auth` schema it belongs to the
 * service, not to the app's migrations; the stand-in creates it when missing, at every start.
 */
const ddl = `
create schema if not exists storage;
comment on schema storage is 'Supabase Storage: buckets and objects (the local stand-in keeps the bytes here too).';
grant usage on schema storage to anon, authenticated, service_role;

create table if not exists storage.buckets (
  id text primary key,
  name text not null,
  owner uuid,
  owner_id text,
  public boolean not null default false,
  file_size_limit bigint,
  allowed_mime_types text[],
  type text not null default 'STANDARD' check (type in ('STANDARD', 'ANALYTICS')),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
comment on table storage.buckets is 'Storage: buckets; public ones serve their objects at /object/public/<bucket>/<path> without a key.';
create unique index if not exists bname on storage.buckets (name);

create table if not exists storage.objects (
  id uuid primary key default gen_random_uuid(),
  bucket_id text not null references storage.buckets (id),
  name text not null,
  owner uuid,
  owner_id text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  last_accessed_at timestamptz not null default now(),
  metadata jsonb not null,
  user_metadata jsonb,
  version text not null,
  path_tokens text[] generated always as (string_to_array(name, '/')) stored,
  content bytea not null,
  content_type text not null,
  cache_control text not null,
  size integer not null check (size >= 0),
  sha256 text not null check (sha256 ~ '^[0-9a-f]{64}$')
);
comment on table storage.objects is 'Storage: objects; content, content_type, cache_control, size and sha256 are the stand-in''s (hosted Storage keeps the bytes in S3).';
create unique index if not exists bucketid_objname on storage.objects (bucket_id, name);

-- As hosted: row level security on, and no policies, so only the service role reaches the rows.
alter table storage.buckets enable row level security;
alter table storage.objects enable row level security;
grant all on storage.buckets, storage.objects to anon, authenticated, service_role;
`

/** Creates Storage's schema and tables when missing; cheap, runs at every start. */
export async function ensureStorageSchema(sql: Sql): Promise<void> {
  await sql.transaction(async (tx) => {
    // Two stand-ins starting against one server database must not race on `create table`.
    await tx.query('select pg_advisory_xact_lock($1)', [74_615_285])
    await tx.exec(ddl)
  })
}
