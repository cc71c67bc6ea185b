-- What the success page asks about one Checkout Session, answered from the orders the webhook
-- recorded (functions/checkout-status/handler.ts): a session the database knows costs no Stripe
-- request, so a flood of status requests cannot spend the Stripe rate limit that buyers' checkouts
-- and the webhook need. Only a session the database does not know yet is looked up at Stripe, under
-- the function's flood limits.

create function public.checkout_order_status(p_session_id text) returns jsonb
  language sql stable security definer set search_path = ''
as $$
  select jsonb_build_object(
    'status', o.status,
    'payment_status', o.payment_status,
    'product_key', o.product_key,
    'amount_total', o.amount_total,
    'currency', o.currency,
    'email', u.email,
    'cohort_start', o.cohort_start
  )
  from public.stripe_orders o
  left join public.stripe_customers c on c.customer_id = o.customer_id and c.deleted_at is null
  left join auth.users u on u.id = c.user_id
  where o.checkout_session_id = p_session_id and o.deleted_at is null
$$;
comment on function public.checkout_order_status(text) is
  'The recorded order of one Checkout Session, for checkout-status: its state, program, amount, buyer''s address and cohort; null when none. Service role only.';
revoke execute on function public.checkout_order_status(text) from public, anon, authenticated;
grant execute on function public.checkout_order_status(text) to service_role;
