-- When an order's status last changed, so the buyer's portal can say what became of a program they
-- no longer have: "Refunded on Dec 3, 2026 · access ended", or the day a payment dispute paused it
-- (src/features/portal/logic.ts `myCourses`, purchase history):
-- 1. `stripe_orders.status_changed_at`: kept by the database: the moment the order was recorded
--    (the column's default), then that of each change of its status stripe_orders_keep_progress
--    lets through (a step back it refuses changes nothing, and no update writes it otherwise). The
--    rows already there take their last update's time, the closest the table knows.
-- 2. `stripe_user_orders` shows it to the buyer, as its last column. Nothing else changes: the view
--    is still the caller's own orders (security_invoker, and its filter on auth.uid()), and no
--    policy or grant is added or widened.

-- 1. The column ------------------------------------------------------------------------------------
alter table public.stripe_orders add column status_changed_at timestamptz;
-- The backfill keeps each row's updated_at: the trigger that touches it sleeps meanwhile.
alter table public.stripe_orders disable trigger stripe_orders_touch_updated_at;
update public.stripe_orders set status_changed_at = updated_at;
alter table public.stripe_orders enable trigger stripe_orders_touch_updated_at;
alter table public.stripe_orders
  alter column status_changed_at set default now(),
  alter column status_changed_at set not null;
comment on column public.stripe_orders.status_changed_at is
  'When the order''s status last changed (its insert, or a change stripe_orders_keep_progress let through); set by the database.';

-- Runs after stripe_orders_keep_progress (triggers of a table fire in the order of their names), so
-- it stamps only a change of status that is kept.
create function public.stripe_orders_stamp_status() returns trigger
  language plpgsql set search_path = ''
as $$
begin
  if new.status is distinct from old.status then
    new.status_changed_at := now();
  else
    new.status_changed_at := old.status_changed_at;
  end if;
  return new;
end
$$;
revoke execute on function public.stripe_orders_stamp_status() from public, anon, authenticated, service_role;
create trigger stripe_orders_stamp_status before update on public.stripe_orders
  for each row execute function public.stripe_orders_stamp_status();

-- 2. Shown to the buyer ------------------------------------------------------------------------------
-- As in 20261201000100_cohorts.sql, plus the new column last: `create or replace view` keeps the
-- existing ones in place.
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
  o.status_changed_at
from public.stripe_orders o
join public.stripe_customers c on c.customer_id = o.customer_id
where c.user_id = auth.uid() and c.deleted_at is null and o.deleted_at is null;
