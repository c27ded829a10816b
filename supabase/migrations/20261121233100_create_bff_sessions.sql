-- BFF sessions: the browser holds an opaque cookie, the BFF holds the user's Supabase tokens here.
create table public.bff_sessions (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references auth.users (id) on delete cascade,
  -- sha256 of the cookie value (base64url): a copy of this table cannot be replayed as cookies.
  token_hash text not null unique,
  -- Null once the session is revoked: nobody can use its tokens again.
  access_token text,
  refresh_token text,
  access_expires_at timestamptz not null,
  -- Claimed by the one request (in any BFF process) that refreshes the tokens.
  refresh_lease_until timestamptz,
  -- Set by a password-recovery link: until then a new password needs no current password.
  recovery_until timestamptz,
  -- The user as Supabase Auth last described it, so GET /api/me needs no call to Auth.
  auth_user jsonb not null,
  device text not null,
  user_agent text,
  -- The client address as the runtime saw it (text: it may be a proxy's name, not an IP).
  ip text,
  created_at timestamptz not null default now(),
  last_seen_at timestamptz not null default now(),
  revoked_at timestamptz,
  constraint bff_sessions_tokens_while_active
    check (revoked_at is not null or (access_token is not null and refresh_token is not null))
);
comment on table public.bff_sessions is 'Sessions of the BFF: cookie hash, Supabase tokens, device and last use. Only the BFF''s own connection reads or writes it.';

create index bff_sessions_user_id_idx on public.bff_sessions (user_id);

-- RLS on and no policy for anon or authenticated: the API roles see and change nothing here.
alter table public.bff_sessions enable row level security;
revoke all on table public.bff_sessions from anon, authenticated;
