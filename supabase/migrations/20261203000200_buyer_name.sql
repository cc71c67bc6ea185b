-- A new buyer's name, as they gave it on Stripe's payment page (the Checkout Session's
-- customer_details.name), becomes their profile's name when they have no profile yet, so the
-- portal greets them by it from the first visit (functions/stripe-webhook/process.ts
-- `nameFromCheckout`). A profile that exists is the customer's and is never changed.
create function public.name_new_buyer(p_user_id uuid, p_name text) returns void
  language sql security definer set search_path = ''
as $$
  insert into public.profiles (id, full_name)
  values (p_user_id, nullif(left(btrim(p_name), 200), ''))
  on conflict (id) do nothing
$$;
comment on function public.name_new_buyer(uuid, text) is
  'Gives a buyer without a profile the name they gave at checkout. For the Stripe webhook (service role) only.';
revoke execute on function public.name_new_buyer(uuid, text) from public, anon, authenticated;
grant execute on function public.name_new_buyer(uuid, text) to service_role;
