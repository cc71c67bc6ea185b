-- Cohorts, decided at the checkout and kept with the order (packages/shared/cohort.ts, the rule;
-- docs/member-area.md, "Cohorts"):
-- 1. `stripe_orders.cohort_start`: the start day of the cohort a buyer of a cohort program joined,
--    which the checkout function chose and showed before the payment and put in the Checkout
--    Session's metadata, and which the webhook records. Orders made before it are given the day
--    their course already counted from, so no one's lessons move.
-- 2. `record_stripe_event` records it (the first value an order gets stays).
-- 3. `program_start_date` (and so `lesson_unlocks_at` and `can_read_lesson`) counts a buyer's weeks
--    from it: the database enforces the date the pages promised, not a date it works out again.
-- 4. `stripe_user_orders` shows it to the buyer (portal, purchase history, course page), and
--    `claim_order_emails` hands it to the access e-mail.

-- 1. The order's cohort -------------------------------------------------------------------------
alter table public.stripe_orders add column cohort_start date;
comment on column public.stripe_orders.cohort_start is
  'Start day of the cohort the buyer joined (cohort programs; null for self-paced), in the program''s time zone: chosen by stripe-checkout, recorded by the webhook.';

-- What the course already counted from for each earlier order of a cohort program: the first start
-- on or after the day it was bought, else that day (the rule program_start_date applied until now).
update public.stripe_orders o
set cohort_start = coalesce(
  (select min(s) from unnest(p.cohort_starts) s where s >= (o.created_at at time zone p.time_zone)::date),
  (o.created_at at time zone p.time_zone)::date
)
from public.course_programs p
where p.product_key = o.product_key and cardinality(p.cohort_starts) > 0 and o.cohort_start is null;

-- 2. Recording it ---------------------------------------------------------------------------------
-- As in 20261127000100_after_payment.sql, plus the cohort, kept from the first event that gives one.
drop function public.record_stripe_event(text, text, text, text, uuid, text, text, bigint, bigint, text, text, public.order_status, jsonb, text, text, text);

create function public.record_stripe_event(
  p_event_id text,
  p_event_type text,
  p_checkout_session_id text,
  p_customer_id text,
  p_user_id uuid,
  p_payment_intent_id text,
  p_product_key text,
  p_amount_subtotal bigint,
  p_amount_total bigint,
  p_currency text,
  p_payment_status text,
  p_status public.order_status,
  p_attribution jsonb default '{}'::jsonb,
  p_buyer_email text default null,
  p_receipt_url text default null,
  p_link_token_hash text default null,
  p_cohort_start date default null
) returns text
  language plpgsql set search_path = ''
as $$
declare
  before_status public.order_status;
  after_status public.order_status;
  email_kind public.order_email_kind;
begin
  insert into public.stripe_events (id, type) values (p_event_id, p_event_type)
  on conflict (id) do nothing;
  if not found then
    return 'duplicate';
  end if;

  if p_status = 'canceled' then
    update public.stripe_orders set status = 'canceled', payment_status = p_payment_status
    where checkout_session_id = p_checkout_session_id and status = 'pending';
    return 'recorded';
  end if;

  -- The account of a new buyer exists now: their invite claim is done, and the set-password
  -- link made with it is kept for their access e-mail (section 7).
  if p_buyer_email is not null and p_user_id is not null then
    update public.buyer_invites set user_id = p_user_id
    where email = lower(p_buyer_email) and user_id is null;
    if p_link_token_hash is not null then
      update public.buyer_invites
      set link_token_hash = p_link_token_hash, link_created_at = now(), link_claimed_at = null
      where email = lower(p_buyer_email);
    end if;
  end if;

  insert into public.stripe_customers (customer_id, user_id) values (p_customer_id, p_user_id)
  on conflict (customer_id) do update
    set user_id = coalesce(public.stripe_customers.user_id, excluded.user_id), deleted_at = null;

  select status into before_status from public.stripe_orders
  where checkout_session_id = p_checkout_session_id for update;

  insert into public.stripe_orders (
    checkout_session_id, payment_intent_id, customer_id, product_key, amount_subtotal, amount_total,
    currency, payment_status, status, attribution, receipt_url, cohort_start
  )
  values (
    p_checkout_session_id, p_payment_intent_id, p_customer_id, p_product_key, p_amount_subtotal,
    p_amount_total, p_currency, p_payment_status, p_status, coalesce(p_attribution, '{}'::jsonb), p_receipt_url,
    p_cohort_start
  )
  on conflict (checkout_session_id) do update set
    payment_intent_id = coalesce(excluded.payment_intent_id, public.stripe_orders.payment_intent_id),
    payment_status = excluded.payment_status,
    status = excluded.status,
    amount_subtotal = excluded.amount_subtotal,
    amount_total = excluded.amount_total,
    receipt_url = coalesce(excluded.receipt_url, public.stripe_orders.receipt_url),
    cohort_start = coalesce(public.stripe_orders.cohort_start, excluded.cohort_start)
  returning status into after_status;

  email_kind := case
    when after_status = p_status and after_status is distinct from before_status then
      case p_status when 'completed' then 'access'::public.order_email_kind
        when 'failed' then 'payment_failed'::public.order_email_kind
        when 'refunded' then 'refund'::public.order_email_kind end
  end;
  if email_kind is not null then
    insert into public.order_emails (checkout_session_id, kind) values (p_checkout_session_id, email_kind)
    on conflict do nothing;
  end if;
  return 'recorded';
end
$$;
comment on function public.record_stripe_event(text, text, text, text, uuid, text, text, bigint, bigint, text, text, public.order_status, jsonb, text, text, text, date) is
  'Records one Stripe event, the order it concerns (with the buyer''s cohort) and the e-mail it calls for, once. For the Stripe webhook (service role) only.';
revoke execute on function public.record_stripe_event(text, text, text, text, uuid, text, text, bigint, bigint, text, text, public.order_status, jsonb, text, text, text, date)
  from public, anon, authenticated;
grant execute on function public.record_stripe_event(text, text, text, text, uuid, text, text, bigint, bigint, text, text, public.order_status, jsonb, text, text, text, date)
  to service_role;

-- 3. The day a buyer's weeks count from -----------------------------------------------------------
-- The cohort of the caller's earliest completed order for the program; for a self-paced program
-- (no cohort), the day of that order in the program's time zone. Null without access.
create or replace function public.program_start_date(p_product_key text) returns date
  language sql stable security definer set search_path = ''
as $$
  select coalesce(o.cohort_start, (o.created_at at time zone p.time_zone)::date)
  from public.stripe_orders o
  join public.stripe_customers c on c.customer_id = o.customer_id
  join public.course_programs p on p.product_key = o.product_key
  where c.user_id = (select auth.uid())
    and c.deleted_at is null
    and o.deleted_at is null
    and o.product_key = p_product_key
    and o.status = 'completed'
  order by o.created_at
  limit 1
$$;
comment on function public.program_start_date(text) is
  'The day the caller''s course of this program counts from (their cohort''s start, or the purchase day when self-paced); null without access.';

-- 4. Shown to the buyer, and to their access e-mail --------------------------------------------------
-- New columns go last: `create or replace view` keeps the existing ones in place.
create or replace view public.stripe_user_orders with (security_invoker = true) as
select
  o.customer_id,
  o.id as order_id,
  o.checkout_session_id,
  o.payment_intent_id,
  o.amount_subtotal,
  o.amount_total,
  o.currency,
  o.payment_status,
  o.status as order_status,
  o.product_key,
  o.created_at as order_date,
  upper(left(encode(sha256(convert_to(o.checkout_session_id, 'UTF8')), 'hex'), 8)) as order_reference,
  o.receipt_url,
  o.cohort_start
from public.stripe_orders o
join public.stripe_customers c on c.customer_id = o.customer_id
where c.user_id = auth.uid() and c.deleted_at is null and o.deleted_at is null;

drop function public.claim_order_emails(text);

-- As in 20261127000100_after_payment.sql, plus the order's cohort and date (for the cohort's calendar file).
create function public.claim_order_emails(p_checkout_session_id text)
  returns table (
    kind public.order_email_kind,
    attempts int,
    product_key text,
    amount_total bigint,
    currency text,
    email text,
    confirmed boolean,
    link_token_hash text,
    cohort_start date,
    order_date timestamptz
  )
  language sql security definer set search_path = ''
as $$
  with claimed as (
    update public.order_emails
    set status = 'sending', claimed_at = now(), attempts = attempts + 1
    where checkout_session_id = p_checkout_session_id
      and (status = 'queued' or (status = 'sending' and claimed_at < now() - interval '2 minutes'))
    returning kind, attempts
  )
  select c.kind, c.attempts, o.product_key, o.amount_total, o.currency, u.email::text,
    u.email_confirmed_at is not null,
    case when b.link_created_at > now() - interval '45 minutes' then b.link_token_hash end,
    o.cohort_start, o.created_at
  from claimed c
  join public.stripe_orders o on o.checkout_session_id = p_checkout_session_id
  join public.stripe_customers sc on sc.customer_id = o.customer_id
  join auth.users u on u.id = sc.user_id
  left join public.buyer_invites b on b.email = lower(u.email)
$$;
revoke execute on function public.claim_order_emails(text) from public, anon, authenticated;
grant execute on function public.claim_order_emails(text) to service_role;
