-- The AI offer's monthly membership (docs/coached-offers.md): beside whichever way the offer's
-- price is paid, a monthly subscription from the day content names after the cohort starts,
-- on the card the buyer paid with. The webhook (functions/stripe-webhook/memberships.ts) makes it at
-- Stripe as a subscription schedule starting that day, once per offer, and records it here, with
-- the offer's order, so that the buyer's purchase history says when it starts and whether it has
-- been cancelled (in Stripe's customer portal).
create table public.memberships (
  schedule_id text primary key check (schedule_id ~ '^sub_sched_[A-Za-z0-9]+$'),
  customer_id text not null check (customer_id ~ '^cus_[A-Za-z0-9]+$'),
  -- The offer's paid checkout: the order the membership came with.
  checkout_session_id text not null unique check (checkout_session_id ~ '^cs_[A-Za-z0-9_]+$'),
  offer_id uuid unique references public.coached_offers (id) on delete set null,
  monthly_cents integer not null check (monthly_cents > 0),
  currency text not null check (currency ~ '^[a-z]{3}$'),
  starts_on date not null,
  -- The subscription the schedule made on its first day, and when it ended (cancelled).
  subscription_id text unique check (subscription_id ~ '^sub_[A-Za-z0-9]+$'),
  ended_at timestamptz,
  created_at timestamptz not null default now()
);
comment on table public.memberships is
  'Coached offers'' monthly memberships, started by the webhook at Stripe. Written by the webhook only.';
create index memberships_customer_idx on public.memberships (customer_id);

alter table public.memberships enable row level security;
revoke all on public.memberships from anon, authenticated, service_role;
grant select, insert, update on public.memberships to service_role;
grant select (checkout_session_id, monthly_cents, currency, starts_on, ended_at) on public.memberships to authenticated;
create policy "Customers read their own memberships" on public.memberships
  for select to authenticated using (
    customer_id in (
      select customer_id from public.stripe_customers where user_id = (select auth.uid()) and deleted_at is null
    )
  );
create policy "Admins read every membership" on public.memberships
  for select to authenticated using ((select public.is_staff('admin')));

-- In the buyer's purchase history, beside the offer's order. As in
-- 20261206000600_purchase_history_plans.sql, plus the new columns last.
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
  o.cohort_start,
  o.status_changed_at,
  pp.name as plan_name,
  pp.payments as plan_payments,
  cardinality(pp.paid_invoices) as plan_paid,
  pp.past_due_since as plan_past_due_since,
  public.plan_paused(o.checkout_session_id) as plan_paused,
  m.monthly_cents as membership_monthly_cents,
  m.starts_on as membership_starts_on,
  m.ended_at as membership_ended_at
from public.stripe_orders o
join public.stripe_customers c on c.customer_id = o.customer_id
left join public.payment_plans pp on pp.checkout_session_id = o.checkout_session_id
left join public.memberships m on m.checkout_session_id = o.checkout_session_id
where c.user_id = auth.uid() and c.deleted_at is null and o.deleted_at is null;
