-- Payment plans (docs/coached-offers.md, "Paying over time"): a coached offer paid by monthly
-- instalments is a Stripe subscription that ends after its last payment. The plan's checkout is an
-- order like any other (stripe_orders, status completed: access opens with the first payment);
-- this table follows the payments after it, from the webhook's invoice and subscription events
-- (functions/stripe-webhook/plans.ts), each counted once and in any order.
--
-- 1. `payment_plans`: one row per plan's subscription: its payments as scheduled when bought, the
--    invoices paid (a set: a redelivered event counts once), since when a payment is past due, and
--    the latest Stripe time an event about it carried (`as_of`: with a test clock, Stripe's time
--    is the clock's, not the wall clock's).
-- 2. The functions the webhook records with (service role only).
-- 3. Access: a plan 14 days past due pauses its order's access (the business's rule), until the
--    invoice is paid; `has_program_access` asks `plan_paused`.
--    Customers read their own plans (their purchase history), admins every plan.

-- 1. Plans -----------------------------------------------------------------------------------------
create table public.payment_plans (
  subscription_id text primary key check (subscription_id ~ '^sub_[A-Za-z0-9]+$'),
  customer_id text not null check (customer_id ~ '^cus_[A-Za-z0-9]+$'),
  -- The order of the plan's checkout, once the webhook has recorded it.
  checkout_session_id text unique check (checkout_session_id ~ '^cs_[A-Za-z0-9_]+$'),
  offer_id uuid references public.coached_offers (id) on delete set null,
  product_key text not null check (product_key ~ '^[A-Z][A-Z0-9_]*$'),
  name text not null check (char_length(name) between 1 and 200),
  -- [{"day": "YYYY-MM-DD", "amountCents": n}, ...], first to last (packages/shared/payment-schedule.ts).
  payments jsonb not null check (
    jsonb_typeof(payments) = 'array' and jsonb_array_length(payments) between 1 and 24
  ),
  currency text not null check (currency ~ '^[a-z]{3}$'),
  paid_invoices text[] not null default '{}',
  past_due_since timestamptz,
  past_due_invoice text,
  as_of timestamptz not null default now(),
  ended_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
comment on table public.payment_plans is
  'Coached offers paid by monthly instalments: each plan''s payments, those paid, and since when one is past due. Written by the webhook only.';
create index payment_plans_customer_idx on public.payment_plans (customer_id);
create trigger payment_plans_touch_updated_at before update on public.payment_plans
  for each row execute function public.touch_updated_at();

alter table public.payment_plans enable row level security;
revoke all on public.payment_plans from anon, authenticated, service_role;
grant select, insert, update on public.payment_plans to service_role;
grant select (
  subscription_id, checkout_session_id, product_key, name, payments, currency, paid_invoices,
  past_due_since, as_of, ended_at, created_at
) on public.payment_plans to authenticated;
create policy "Customers read their own plans" on public.payment_plans
  for select to authenticated using (
    customer_id in (
      select customer_id from public.stripe_customers where user_id = (select auth.uid()) and deleted_at is null
    )
  );
create policy "Admins read every plan" on public.payment_plans
  for select to authenticated using ((select public.is_staff('admin')));

-- 2. Recording ------------------------------------------------------------------------------------
-- A plan, the first time any of its events arrives (the checkout's, or its first invoice's).
create function public.plan_open(
  p_subscription_id text, p_customer_id text, p_offer_id uuid, p_product_key text, p_name text,
  p_payments jsonb, p_currency text, p_at timestamptz
) returns void
  language sql security definer set search_path = ''
as $$
  insert into public.payment_plans
    (subscription_id, customer_id, offer_id, product_key, name, payments, currency, as_of)
  values (p_subscription_id, p_customer_id, p_offer_id, p_product_key, p_name, p_payments, p_currency, p_at)
  on conflict (subscription_id) do nothing
$$;

-- The plan's checkout, once its order is recorded: the order whose access the plan can pause.
create function public.plan_link_checkout(p_subscription_id text, p_checkout_session_id text) returns void
  language sql security definer set search_path = ''
as $$
  update public.payment_plans set checkout_session_id = p_checkout_session_id
  where subscription_id = p_subscription_id and checkout_session_id is null
$$;

-- An invoice paid: counted once; the payment it was late on is no longer past due.
create function public.plan_invoice_paid(p_subscription_id text, p_invoice_id text, p_at timestamptz)
  returns public.payment_plans
  language sql security definer set search_path = ''
as $$
  update public.payment_plans set
    paid_invoices = case when p_invoice_id = any (paid_invoices) then paid_invoices
                         else paid_invoices || p_invoice_id end,
    past_due_since = case when past_due_invoice is null or past_due_invoice = p_invoice_id then null
                          else past_due_since end,
    past_due_invoice = case when past_due_invoice = p_invoice_id then null else past_due_invoice end,
    as_of = greatest(as_of, p_at)
  where subscription_id = p_subscription_id
  returning *
$$;

-- An invoice's payment failed: past due from when it was due, unless it has been paid since (an
-- earlier attempt's event arriving late changes nothing).
create function public.plan_invoice_failed(
  p_subscription_id text, p_invoice_id text, p_due_at timestamptz, p_at timestamptz
) returns public.payment_plans
  language sql security definer set search_path = ''
as $$
  update public.payment_plans set
    past_due_since = case when p_invoice_id = any (paid_invoices) then past_due_since
                          else coalesce(past_due_since, p_due_at) end,
    past_due_invoice = case when p_invoice_id = any (paid_invoices) then past_due_invoice
                            else coalesce(past_due_invoice, p_invoice_id) end,
    as_of = greatest(as_of, p_at)
  where subscription_id = p_subscription_id
  returning *
$$;

-- Stripe's time moved on for the plan (any event about it), or the subscription ended.
create function public.plan_seen(p_subscription_id text, p_at timestamptz, p_ended boolean default false)
  returns void
  language sql security definer set search_path = ''
as $$
  update public.payment_plans set
    as_of = greatest(as_of, p_at),
    ended_at = case when p_ended then coalesce(ended_at, p_at) else ended_at end
  where subscription_id = p_subscription_id
$$;

revoke execute on function public.plan_open(text, text, uuid, text, text, jsonb, text, timestamptz),
  public.plan_link_checkout(text, text), public.plan_invoice_paid(text, text, timestamptz),
  public.plan_invoice_failed(text, text, timestamptz, timestamptz),
  public.plan_seen(text, timestamptz, boolean) from public, anon, authenticated;
grant execute on function public.plan_open(text, text, uuid, text, text, jsonb, text, timestamptz),
  public.plan_link_checkout(text, text), public.plan_invoice_paid(text, text, timestamptz),
  public.plan_invoice_failed(text, text, timestamptz, timestamptz),
  public.plan_seen(text, timestamptz, boolean) to service_role;

-- 3. Access ---------------------------------------------------------------------------------------
-- How long a payment may be past due before access pauses (DECISIONS: 14 days).
create function public.plan_grace() returns interval
  language sql immutable set search_path = ''
as $$ select interval '14 days' $$;

-- Whether the order of `p_checkout_session_id` is a plan paused for a payment past due: 14 days
-- after it fell due, counted to now or to Stripe's latest time for the plan, whichever is later.
create function public.plan_paused(p_checkout_session_id text) returns boolean
  language sql stable security definer set search_path = ''
as $$
  select exists (
    select 1 from public.payment_plans pp
    where pp.checkout_session_id = p_checkout_session_id
      and pp.past_due_since is not null
      and pp.past_due_since + public.plan_grace() <= greatest(now(), pp.as_of)
  )
$$;
revoke execute on function public.plan_paused(text) from public, anon;
grant execute on function public.plan_paused(text) to authenticated, service_role;

create or replace function public.has_program_access(p_product_key text) returns boolean
  language sql stable security definer set search_path = ''
as $$
  select exists (
    select 1
    from public.stripe_orders o
    join public.stripe_customers c on c.customer_id = o.customer_id
    where c.user_id = (select auth.uid())
      and c.deleted_at is null
      and o.deleted_at is null
      and o.product_key = p_product_key
      and o.status = 'completed'
      and not public.plan_paused(o.checkout_session_id)
  )
$$;
comment on function public.has_program_access(text) is
  'Whether the caller has a completed (not refunded, disputed or failed) order for the program, not paused by a plan payment 14 days past due.';
