-- Profiles: what a person shows of themselves in Tessera, one row per Supabase Auth user.
create table public.profiles (
  user_id uuid primary key references auth.users (id) on delete cascade,
  display_name text check (display_name is null or char_length(display_name) between 1 and 80),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
comment on table public.profiles is 'Each user''s profile (display name): one row per auth user, created by the BFF at the first sign-in.';

alter table public.profiles enable row level security;

-- One policy per operation and role; `(select auth.uid())` is evaluated once per statement.
create policy "Users can read their own profile"
  on public.profiles for select to authenticated
  using ((select auth.uid()) = user_id);

create policy "Users can create their own profile"
  on public.profiles for insert to authenticated
  with check ((select auth.uid()) = user_id);

create policy "Users can update their own profile"
  on public.profiles for update to authenticated
  using ((select auth.uid()) = user_id)
  with check ((select auth.uid()) = user_id);

-- No delete policy: a profile goes with its user (on delete cascade). Users may write the display
-- name only; the timestamps belong to the database.
revoke insert, update on table public.profiles from anon, authenticated;
grant insert (user_id, display_name) on table public.profiles to authenticated;
grant update (display_name) on table public.profiles to authenticated;

create function public.set_updated_at() returns trigger
language plpgsql
set search_path = ''
as $$
begin
  new.updated_at := now();
  return new;
end;
$$;
comment on function public.set_updated_at() is 'Trigger: stamps updated_at on every update of a row.';

create trigger profiles_set_updated_at
  before update on public.profiles
  for each row execute function public.set_updated_at();
