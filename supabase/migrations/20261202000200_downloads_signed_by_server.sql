-- Downloads signed by the server (functions/course-download/handler.ts). Until now the browser
-- signed its own Storage URLs of course-downloads under the bucket's read policy, choosing the
-- link's lifetime: a ten-year link made before a refund still downloaded the file after it. Now:
-- 1. No client reads the bucket: the policy that let a buyer sign URLs is dropped, so only the
--    service role (the function) signs, with the lifetime the function sets (a minute).
-- 2. `download_log`: each link the function made, for whom, when and from which address: what the
--    business shows a card network when a buyer disputes the payment (docs/operations.md,
--    "Disputes"). Service role only.

-- 1. -----------------------------------------------------------------------------------------------
drop policy "Users read the downloads of lessons they may take" on storage.objects;

-- 2. -----------------------------------------------------------------------------------------------
create table public.download_log (
  id bigint generated always as identity primary key,
  user_id uuid not null references auth.users (id) on delete cascade,
  path text not null check (char_length(path) <= 1024),
  ip text check (char_length(ip) <= 64),
  created_at timestamptz not null default now()
);
comment on table public.download_log is
  'Each download link course-download made: the customer, the file, the client address and when. Service role only.';
create index download_log_user_id_idx on public.download_log (user_id, created_at);

alter table public.download_log enable row level security;
create policy "No client reads or writes the download log" on public.download_log
  for all to anon, authenticated using (false) with check (false);
revoke all on public.download_log from anon, authenticated;
grant select, insert on public.download_log to service_role;
