-- The success page's next steps fit the buyer (functions/checkout-status/handler.ts): a buyer
-- whose account is already in use (a password set or a sign-in link followed: its e-mail
-- confirmed, as claim_order_emails reads it for the access e-mail's set-password link) is not
-- asked to set a password. checkout_order_status adds `account_in_use` for the order's own
-- buyer: null when the order has no account linked. It answers for one Checkout Session id, which
-- only its buyer holds, about the account that order belongs to, and nothing about any other.

create or replace function public.checkout_order_status(p_session_id text) returns jsonb
  language sql stable security definer set search_path = ''
as $$
  select jsonb_build_object(
    'status', o.status,
    'payment_status', o.payment_status,
    'product_key', o.product_key,
    'amount_total', o.amount_total,
    'currency', o.currency,
    'email', u.email,
    'cohort_start', o.cohort_start,
    'account_in_use', case when u.id is not null then u.email_confirmed_at is not null end
  )
  from public.stripe_orders o
  left join public.stripe_customers c on c.customer_id = o.customer_id and c.deleted_at is null
  left join auth.users u on u.id = c.user_id
  where o.checkout_session_id = p_session_id and o.deleted_at is null
$$;
comment on function public.checkout_order_status(text) is
  'The recorded order of one Checkout Session, for checkout-status: its state, program, amount, buyer''s address, cohort and whether the buyer''s account was in use; null when none. Service role only.';
revoke execute on function public.checkout_order_status(text) from public, anon, authenticated;
grant execute on function public.checkout_order_status(text) to service_role;
