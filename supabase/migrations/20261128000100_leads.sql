-- The site's own consultation form (functions/leads), for the lead pages when no scheduling
-- provider is configured:
-- 1. `leads`: every request a visitor sends, with the visit's first touch and whether the
--    business's notification went out. Written and read by the function (service role) only:
--    no visitor can read a lead back, nor write one past the function's checks.
-- 2. `rate_limits` and `rate_limit_hit`: a counter per key and window, for any function that must
--    refuse a flood (the leads function per address and per e-mail). Hosted functions share no
--    memory between instances, so the count lives here; one statement per hit, safe under
--    concurrency.
-- 3. `claim_lead_notifications` / `finish_lead_notification`: one sender at a time per
--    notification, so a mail outage keeps the lead and a later request sends what is owed.

-- 1. Leads ----------------------------------------------------------------------------------------
-- The answers' limits are the form's (functions/_shared/lead.ts `FIELD_MAX`); the list of
-- assets-under-management bands lives there alone, so the function is what checks it.
create table public.leads (
  id uuid primary key default gen_random_uuid(),
  created_at timestamptz not null default now(),
  name text not null check (char_length(name) between 1 and 120),
  email text not null check (char_length(email) between 3 and 254 and email = lower(email)),
  phone text check (char_length(phone) <= 40),
  firm text check (char_length(firm) <= 160),
  aum text check (char_length(aum) <= 20),
  help text check (char_length(help) <= 2000),
  -- The lead page it came from (/get-started-ai); content/lead-pages.yaml's ids.
  page text not null check (page ~ '^/[a-z0-9]+(-[a-z0-9]+)*$' and char_length(page) <= 100),
  -- The visit's first touch (src/lib/attribution.ts), as functions/_shared/checkout-request.ts keeps it.
  utm_source text check (char_length(utm_source) <= 200),
  utm_medium text check (char_length(utm_medium) <= 200),
  utm_campaign text check (char_length(utm_campaign) <= 200),
  utm_term text check (char_length(utm_term) <= 200),
  utm_content text check (char_length(utm_content) <= 200),
  referrer text check (char_length(referrer) <= 200),
  landing_page text check (char_length(landing_page) <= 200),
  -- The business's e-mail about it. pending: not sent yet (being sent, or waiting for another try
  -- after a failure: notify_error says why); sent; failed: given up after repeated failures, for
  -- someone to look at. The lead is kept whatever happens to its e-mail.
  notify_status text not null default 'pending' check (notify_status in ('pending', 'sent', 'failed')),
  notify_attempts int not null default 0,
  notify_claimed_at timestamptz,
  notify_error text check (char_length(notify_error) <= 1000),
  notify_provider_id text check (char_length(notify_provider_id) <= 200),
  notified_at timestamptz
);
comment on table public.leads is
  'Consultation requests from the lead pages (functions/leads), with first-touch attribution and the notification''s status. Service role only.';
create index leads_created_at_idx on public.leads (created_at desc);
create index leads_unsent_idx on public.leads (created_at) where notify_status = 'pending';

alter table public.leads enable row level security;
-- Nothing for visitors or customers: the policy says so by name (and keeps the Security Advisor's
-- rls_enabled_no_policy quiet), the grants below let them nothing anyway.
create policy "No client reads or writes leads" on public.leads
  for all to anon, authenticated using (false) with check (false);
revoke all on public.leads from anon, authenticated, service_role;
grant select, insert, update on public.leads to service_role;

-- 2. Rate limits ----------------------------------------------------------------------------------
-- One row per key: the current window's start and end, and the hits in it. A row whose window has
-- ended counts as none, so any expired row may be deleted at any time.
create table public.rate_limits (
  key text primary key check (char_length(key) between 1 and 200),
  window_start timestamptz not null,
  window_end timestamptz not null,
  hits int not null check (hits >= 1)
);
comment on table public.rate_limits is
  'Hits per key and fixed window, counted by rate_limit_hit for the functions. No client reads or writes it.';
create index rate_limits_window_end_idx on public.rate_limits (window_end);

alter table public.rate_limits enable row level security;
create policy "No client reads or writes rate limits" on public.rate_limits
  for all to anon, authenticated using (false) with check (false);
revoke all on public.rate_limits from anon, authenticated, service_role;

-- Counts one hit of `p_key` in a window of `p_window` that starts at the key's first hit, and
-- answers whether it is within `p_limit`, and if not, how many seconds until the window ends.
-- One INSERT … ON CONFLICT DO UPDATE: concurrent hits of a key queue on its row, each sees the
-- count the one before left, so no two callers take the same last place. A refused hit is
-- counted too but never extends the window. Now and then it clears ended windows.
create function public.rate_limit_hit(
  p_key text,
  p_limit int,
  p_window interval,
  out allowed boolean,
  out retry_after int
)
  language plpgsql security definer set search_path = ''
as $$
declare
  counted int;
  ends timestamptz;
begin
  if p_key is null or char_length(p_key) not between 1 and 200 or p_limit is null or p_limit < 1
     or p_window is null or p_window <= interval '0' then
    raise exception 'rate_limit_hit needs a key of 1 to 200 characters, a limit of at least 1 and a positive window'
      using errcode = '22023';
  end if;
  insert into public.rate_limits as r (key, window_start, window_end, hits)
  values (p_key, now(), now() + p_window, 1)
  on conflict (key) do update set
    window_start = case when r.window_end <= now() then now() else r.window_start end,
    window_end = case when r.window_end <= now() then now() + p_window else r.window_end end,
    hits = case when r.window_end <= now() then 1 else r.hits + 1 end
  returning r.hits, r.window_end into counted, ends;
  allowed := counted <= p_limit;
  retry_after := case when allowed then 0 else greatest(1, ceil(extract(epoch from ends - now())))::int end;
  if random() < 0.01 then
    delete from public.rate_limits where window_end < now();
  end if;
end
$$;
comment on function public.rate_limit_hit(text, int, interval) is
  'Counts a hit of a key in a fixed window; answers allowed and retry_after (seconds). For the functions (service role) only.';
revoke execute on function public.rate_limit_hit(text, int, interval) from public, anon, authenticated;
grant execute on function public.rate_limit_hit(text, int, interval) to service_role;

-- 3. One sender per notification ------------------------------------------------------------------
-- Up to `p_limit` leads whose notification is owed and that nobody is sending (claimed more than
-- two minutes ago, or never), oldest first, claimed for the caller: the function sends them after
-- a new lead's own notification went through, so an outage's e-mails follow once mail works.
-- The provider's idempotency key (the lead's id) keeps a send that died half-way from arriving twice.
create function public.claim_lead_notifications(p_limit int default 3) returns setof public.leads
  language sql set search_path = ''
as $$
  update public.leads
  set notify_claimed_at = now(), notify_attempts = notify_attempts + 1
  where id in (
    select id from public.leads
    where notify_status = 'pending'
      and (notify_claimed_at is null or notify_claimed_at < now() - interval '2 minutes')
    order by created_at
    limit least(greatest(p_limit, 0), 20)
    for update skip locked
  )
  returning *
$$;
revoke execute on function public.claim_lead_notifications(int) from public, anon, authenticated;
grant execute on function public.claim_lead_notifications(int) to service_role;

-- Ends a claim: sent, or owed again with the error (failed after `p_max_attempts`).
create function public.finish_lead_notification(
  p_id uuid,
  p_provider_id text default null,
  p_error text default null,
  p_max_attempts int default 8
) returns text
  language sql set search_path = ''
as $$
  update public.leads
  set notify_status = case
        when p_error is null then 'sent'
        when notify_attempts >= p_max_attempts then 'failed'
        else 'pending' end,
      notified_at = case when p_error is null then now() end,
      notify_provider_id = coalesce(p_provider_id, notify_provider_id),
      notify_error = left(p_error, 1000),
      notify_claimed_at = case when p_error is null then notify_claimed_at end
  where id = p_id and notify_status = 'pending'
  returning notify_status
$$;
revoke execute on function public.finish_lead_notification(uuid, text, text, int) from public, anon, authenticated;
grant execute on function public.finish_lead_notification(uuid, text, text, int) to service_role;
