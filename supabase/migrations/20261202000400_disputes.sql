-- Disputes (chargebacks), recorded by the Stripe webhook (functions/stripe-webhook/process.ts) and
-- answered by the business with the evidence the product holds (`npm run stripe:dispute`,
-- scripts/stripe-dispute.ts; docs/operations.md, "Disputes"):
-- 1. An order's status moves forward only, as before, with `disputed` between `completed` and
--    `refunded`; the one way back, disputed -> completed, is a dispute the business won, which
--    record_dispute_event alone may write.
-- 2. `stripe_disputes`: one row per dispute, its latest state as Stripe's events told it.
-- 3. `record_dispute_event`: one event about a dispute, once, in any order: the dispute's state,
--    and the order's status it implies. A chargeback that is open or lost holds the order as
--    `disputed` (no access: has_program_access wants `completed`); a won one makes it `completed`
--    again. An inquiry (Stripe's `warning_*` statuses: no money withdrawn) changes no order.
-- 4. `dispute_evidence`: what the product knows of the buyer's use of the program.

-- 1. Status only moves forward ---------------------------------------------------------------------
create or replace function public.stripe_orders_keep_progress() returns trigger
  language plpgsql set search_path = ''
as $$
declare
  rank_old int := case old.status when 'pending' then 0 when 'canceled' then 1 when 'failed' then 1
    when 'completed' then 2 when 'disputed' then 3 when 'refunded' then 4 end;
  rank_new int := case new.status when 'pending' then 0 when 'canceled' then 1 when 'failed' then 1
    when 'completed' then 2 when 'disputed' then 3 when 'refunded' then 4 end;
  dispute_won boolean := old.status = 'disputed' and new.status = 'completed'
    and coalesce(current_setting('app.dispute_won', true), '') = old.checkout_session_id;
begin
  if new.status <> old.status and rank_new <= rank_old and not dispute_won then
    new.status := old.status;
    new.payment_status := old.payment_status;
  end if;
  return new;
end
$$;

-- 2. Disputes --------------------------------------------------------------------------------------
create table public.stripe_disputes (
  dispute_id text primary key check (dispute_id ~ '^(du|dp)_[A-Za-z0-9]+$'),
  checkout_session_id text not null references public.stripe_orders (checkout_session_id),
  charge_id text check (char_length(charge_id) <= 255),
  -- Stripe's: warning_needs_response, warning_under_review, warning_closed, needs_response,
  -- under_review, won, lost.
  status text not null check (char_length(status) <= 40),
  reason text check (char_length(reason) <= 100),
  amount bigint,
  currency text check (char_length(currency) <= 10),
  evidence_due_by timestamptz,
  -- The newest event applied (Stripe's `created`): an older one arriving later changes nothing.
  last_event_at timestamptz not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  -- The business's e-mail about it: sent, or why not yet (Stripe's redelivery sends it).
  notified_at timestamptz,
  notify_error text check (char_length(notify_error) <= 1000),
  -- When `npm run stripe:dispute -- <id> --submit` sent the evidence to Stripe.
  evidence_submitted_at timestamptz
);
comment on table public.stripe_disputes is
  'Disputed payments (chargebacks and inquiries), as Stripe''s events told them; for the business to answer (docs/operations.md, Disputes). Service role only.';
create index stripe_disputes_session_idx on public.stripe_disputes (checkout_session_id);

alter table public.stripe_disputes enable row level security;
create policy "No client reads or writes disputes" on public.stripe_disputes
  for all to anon, authenticated using (false) with check (false);
revoke all on public.stripe_disputes from anon, authenticated, service_role;
grant select, update on public.stripe_disputes to service_role;

-- 3. Recording an event ----------------------------------------------------------------------------
create function public.record_dispute_event(
  p_event_id text,
  p_event_type text,
  p_event_created timestamptz,
  p_dispute_id text,
  p_payment_intent_id text,
  p_charge_id text,
  p_status text,
  p_reason text,
  p_amount bigint,
  p_currency text,
  p_evidence_due_by timestamptz
) returns text
  language plpgsql security definer set search_path = ''
as $$
declare
  session_id text;
  terminal constant text[] := array['won', 'lost', 'warning_closed'];
  current_status text;
begin
  select checkout_session_id into session_id from public.stripe_orders
  where payment_intent_id = p_payment_intent_id and deleted_at is null
  order by created_at limit 1;
  if session_id is null then
    return 'ignored';
  end if;

  insert into public.stripe_events (id, type) values (p_event_id, p_event_type)
  on conflict (id) do nothing;
  if not found then
    return 'duplicate';
  end if;

  insert into public.stripe_disputes as d (
    dispute_id, checkout_session_id, charge_id, status, reason, amount, currency, evidence_due_by, last_event_at
  )
  values (
    p_dispute_id, session_id, p_charge_id, p_status, p_reason, p_amount, p_currency, p_evidence_due_by, p_event_created
  )
  on conflict (dispute_id) do update set
    status = excluded.status,
    reason = coalesce(excluded.reason, d.reason),
    amount = coalesce(excluded.amount, d.amount),
    evidence_due_by = coalesce(excluded.evidence_due_by, d.evidence_due_by),
    last_event_at = greatest(d.last_event_at, excluded.last_event_at),
    updated_at = now()
  -- A closed dispute stays closed; of two open states the newer event's wins.
  where not d.status = any (terminal)
    and (excluded.status = any (terminal) or excluded.last_event_at >= d.last_event_at);

  select status into current_status from public.stripe_disputes where dispute_id = p_dispute_id;
  if current_status in ('needs_response', 'under_review', 'lost') then
    update public.stripe_orders set status = 'disputed'
    where checkout_session_id = session_id and status = 'completed';
  elsif current_status = 'won' then
    perform set_config('app.dispute_won', session_id, true);
    update public.stripe_orders set status = 'completed'
    where checkout_session_id = session_id and status = 'disputed';
    perform set_config('app.dispute_won', '', true);
  end if;
  return 'recorded';
end
$$;
comment on function public.record_dispute_event(text, text, timestamptz, text, text, text, text, text, bigint, text, timestamptz) is
  'Records one Stripe event about a dispute of an order''s payment, once, and the order status it implies. For the Stripe webhook (service role) only.';
revoke execute on function public.record_dispute_event(text, text, timestamptz, text, text, text, text, text, bigint, text, timestamptz)
  from public, anon, authenticated;
grant execute on function public.record_dispute_event(text, text, timestamptz, text, text, text, text, text, bigint, text, timestamptz)
  to service_role;

-- 4. The evidence ----------------------------------------------------------------------------------
-- What the product knows of the buyer of one order and their use of its program: the account's
-- creation and its sign-ins (Auth's current sessions, with the address and browser they came from,
-- and the last sign-in), the lessons they worked in (progress), and the files they downloaded
-- (download_log, with the address). Times in UTC.
create function public.dispute_evidence(p_checkout_session_id text) returns jsonb
  language sql stable security definer set search_path = ''
as $$
  with buyer as (
    select u.id, u.email, u.created_at, u.last_sign_in_at, u.raw_user_meta_data, o.created_at as ordered_at,
      o.product_key, o.amount_total, o.currency, o.cohort_start
    from public.stripe_orders o
    join public.stripe_customers c on c.customer_id = o.customer_id
    join auth.users u on u.id = c.user_id
    where o.checkout_session_id = p_checkout_session_id
  )
  select jsonb_build_object(
    'email', b.email,
    'name', coalesce(p.full_name, b.raw_user_meta_data ->> 'full_name'),
    'account_created_at', b.created_at,
    'last_sign_in_at', b.last_sign_in_at,
    'ordered_at', b.ordered_at,
    'product_key', b.product_key,
    'amount_total', b.amount_total,
    'currency', b.currency,
    'cohort_start', b.cohort_start,
    'sign_ins', coalesce((
      select jsonb_agg(jsonb_build_object('at', s.created_at, 'ip', host(s.ip), 'user_agent', s.user_agent) order by s.created_at)
      from auth.sessions s where s.user_id = b.id), '[]'::jsonb),
    'lessons', coalesce((
      select jsonb_agg(jsonb_build_object('lesson', lp.lesson_id, 'title', l.title, 'last_activity_at', lp.updated_at,
        'completed_at', lp.completed_at) order by lp.updated_at)
      from public.lesson_progress lp
      left join public.course_lessons l on l.id = lp.lesson_id
      where lp.user_id = b.id), '[]'::jsonb),
    'downloads', coalesce((
      select jsonb_agg(jsonb_build_object('at', d.created_at, 'path', d.path, 'ip', d.ip) order by d.created_at)
      from public.download_log d where d.user_id = b.id), '[]'::jsonb)
  )
  from buyer b
  left join public.profiles p on p.id = b.id
$$;
comment on function public.dispute_evidence(text) is
  'The buyer of an order and their use of the program (account, sign-ins, lessons, downloads), for a dispute''s evidence. Service role only.';
revoke execute on function public.dispute_evidence(text) from public, anon, authenticated;
grant execute on function public.dispute_evidence(text) to service_role;
