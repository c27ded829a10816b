-- What the sessions list needs to tell one session from another: how it signed in, and the
-- address it was last seen from (written with last_seen_at, so no write of its own).
alter table public.bff_sessions
  add column sign_in_method text
    constraint bff_sessions_sign_in_method_known
    check (sign_in_method in ('password', 'magic_link', 'email_confirmation', 'password_reset')),
  -- The client address of the last request that moved last_seen_at (text, like ip).
  add column last_seen_ip text;

comment on column public.bff_sessions.sign_in_method is 'How the session signed in: password, magic_link, email_confirmation or password_reset; null for sessions from before it was kept.';
comment on column public.bff_sessions.last_seen_ip is 'The client address when last_seen_at last moved; null until then (ip holds the sign-in address).';
