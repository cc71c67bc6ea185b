-- A payment plan in the buyer's purchase history (docs/coached-offers.md): beside the plan's order,
-- its name, its payments as scheduled, how many are paid, since when one is past due and whether
-- access is paused for it (src/features/portal/logic.ts writes "2 of 6 paid, next $6,000 on
-- March 1"). As in 20261204000200_order_status_changed_at.sql, plus the new columns last:
-- `create or replace view` keeps the existing ones in place.
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
  public.plan_paused(o.checkout_session_id) as plan_paused
from public.stripe_orders o
join public.stripe_customers c on c.customer_id = o.customer_id
left join public.payment_plans pp on pp.checkout_session_id = o.checkout_session_id
where c.user_id = auth.uid() and c.deleted_at is null and o.deleted_at is null;
