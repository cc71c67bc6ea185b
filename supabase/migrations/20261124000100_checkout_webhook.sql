-- What the Stripe webhook (functions/stripe-webhook) needs to record purchases safely:
-- 1. Orders keep the visit's first-touch attribution (UTM parameters, referrer, landing page).
-- 2. A user may have more than one Stripe customer (two first checkouts at once, or a customer
--    made in the Stripe dashboard), so customers are no longer unique per user.
-- 3. An order's status only moves forward: events arrive in any order and may be redelivered,
--    and a late `checkout.session.completed` (unpaid) must not undo the payment that settled.
-- 4. `auth_user_id_by_email`: the webhook finds a buyer's account by e-mail (the Auth admin API
--    has no lookup by address). Service role only.
-- 5. `record_stripe_event`: one transaction per event that records the event id and upserts the
--    customer and the order; a second delivery of the same event changes nothing. Service role
--    only.
-- 6. `buyer_invites`: which delivery creates a new buyer's account and sends the set-password
--    e-mail. Auth's invite sends its e-mail again to an address not yet confirmed, so concurrent
--    deliveries for one new buyer must not all call it: the one that claims the address does.
-- 7. `prepare_stripe_event`: in one call, whether the event was recorded before, and the buyer's
--    account or the right to create it (a claim in `buyer_invites`).

-- 1. Attribution -------------------------------------------------------------------------------
alter table public.stripe_orders
  add column attribution jsonb not null default '{}'::jsonb
    check (jsonb_typeof(attribution) = 'object' and octet_length(attribution::text) <= 4096);
comment on column public.stripe_orders.attribution is
  'First-touch attribution of the visit that bought: utm_*, referrer, landing_page (functions/_shared/checkout-request.ts).';

-- 2. Several customers per user ------------------------------------------------------------------
alter table public.stripe_customers drop constraint stripe_customers_user_id_key;
create index stripe_customers_user_id_idx on public.stripe_customers (user_id);

-- 3. Status only moves forward -------------------------------------------------------------------
-- pending -> canceled | failed -> completed -> refunded. A write that would move an order back
-- keeps its status and payment status; the other columns are still written.
create function public.stripe_orders_keep_progress() returns trigger
  language plpgsql set search_path = ''
as $$
declare
  rank_old int := case old.status when 'pending' then 0 when 'canceled' then 1 when 'failed' then 1
    when 'completed' then 2 when 'refunded' then 3 end;
  rank_new int := case new.status when 'pending' then 0 when 'canceled' then 1 when 'failed' then 1
    when 'completed' then 2 when 'refunded' then 3 end;
begin
  if new.status <> old.status and rank_new <= rank_old then
    new.status := old.status;
    new.payment_status := old.payment_status;
  end if;
  return new;
end
$$;

create trigger stripe_orders_keep_progress before update on public.stripe_orders
  for each row execute function public.stripe_orders_keep_progress();

revoke execute on function public.stripe_orders_keep_progress() from public, anon, authenticated;

-- 4. Account by e-mail ---------------------------------------------------------------------------
-- Auth keeps addresses in lower case and unique among non-SSO users (users_email_partial_key).
create function public.auth_user_id_by_email(p_email text) returns uuid
  language sql stable security definer set search_path = ''
as $$
  select id from auth.users where email = lower(p_email) and is_sso_user = false limit 1
$$;
comment on function public.auth_user_id_by_email(text) is
  'The id of the account with this e-mail address, or null. For the Stripe webhook (service role) only.';
revoke execute on function public.auth_user_id_by_email(text) from public, anon, authenticated;
grant execute on function public.auth_user_id_by_email(text) to service_role;

-- 5. One event, one transaction ------------------------------------------------------------------
-- Answers 'duplicate' when the event was recorded before (nothing is written), else 'recorded'.
-- A canceled (expired) session never creates an order: an abandoned checkout leaves no row; it
-- only closes an order that was waiting for payment. Concurrent deliveries of one event wait on
-- the event's primary key, so exactly one of them writes.
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
  p_buyer_email text default null
) returns text
  language plpgsql set search_path = ''
as $$
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

  -- The account of a new buyer exists now: their invite claim is done.
  if p_buyer_email is not null and p_user_id is not null then
    update public.buyer_invites set user_id = p_user_id
    where email = lower(p_buyer_email) and user_id is null;
  end if;

  insert into public.stripe_customers (customer_id, user_id) values (p_customer_id, p_user_id)
  on conflict (customer_id) do update
    set user_id = coalesce(public.stripe_customers.user_id, excluded.user_id), deleted_at = null;

  insert into public.stripe_orders (
    checkout_session_id, payment_intent_id, customer_id, product_key, amount_subtotal, amount_total,
    currency, payment_status, status, attribution
  )
  values (
    p_checkout_session_id, p_payment_intent_id, p_customer_id, p_product_key, p_amount_subtotal,
    p_amount_total, p_currency, p_payment_status, p_status, coalesce(p_attribution, '{}'::jsonb)
  )
  on conflict (checkout_session_id) do update set
    payment_intent_id = coalesce(excluded.payment_intent_id, public.stripe_orders.payment_intent_id),
    payment_status = excluded.payment_status,
    status = excluded.status,
    amount_subtotal = excluded.amount_subtotal,
    amount_total = excluded.amount_total;
  return 'recorded';
end
$$;
comment on function public.record_stripe_event(text, text, text, text, uuid, text, text, bigint, bigint, text, text, public.order_status, jsonb, text) is
  'Records one Stripe event and the order it concerns, once. For the Stripe webhook (service role) only.';
revoke execute on function public.record_stripe_event(text, text, text, text, uuid, text, text, bigint, bigint, text, text, public.order_status, jsonb, text)
  from public, anon, authenticated;
grant execute on function public.record_stripe_event(text, text, text, text, uuid, text, text, bigint, bigint, text, text, public.order_status, jsonb, text)
  to service_role;

-- 6. One invite per new buyer ---------------------------------------------------------------------
create table public.buyer_invites (
  email text primary key check (email = lower(email) and char_length(email) <= 320),
  -- Set once the account exists and the e-mail was handed to Auth; null while a delivery works on it.
  user_id uuid references auth.users (id) on delete cascade,
  claimed_at timestamptz not null default now()
);
comment on table public.buyer_invites is
  'Accounts the Stripe webhook created for buyers, and claims of deliveries creating one. Service role only.';

alter table public.buyer_invites enable row level security;
create policy "No client reads or writes buyer invites" on public.buyer_invites
  for all to anon, authenticated using (false) with check (false);
revoke all on public.buyer_invites from anon, authenticated, service_role;
grant select, insert, update, delete on public.buyer_invites to service_role;

-- True for the one caller that may invite `p_email` now: the first, or the next one after a claim
-- left unfinished for two minutes (its delivery died between claim and invite).
create function public.claim_buyer_invite(p_email text) returns boolean
  language plpgsql set search_path = ''
as $$
declare
  claimed boolean;
begin
  insert into public.buyer_invites (email) values (lower(p_email))
  on conflict (email) do update set claimed_at = now()
    where public.buyer_invites.user_id is null and public.buyer_invites.claimed_at < now() - interval '2 minutes'
  returning true into claimed;
  return coalesce(claimed, false);
end
$$;
revoke execute on function public.claim_buyer_invite(text) from public, anon, authenticated;
grant execute on function public.claim_buyer_invite(text) to service_role;

-- 7. One call before the work ---------------------------------------------------------------------
-- {"duplicate": true} for an event recorded before; otherwise the buyer's account id when it
-- exists, or whether this caller claimed the right to create it (claim_buyer_invite).
create function public.prepare_stripe_event(p_event_id text, p_email text default null) returns jsonb
  language plpgsql set search_path = ''
as $$
declare
  found_id uuid;
begin
  if exists (select 1 from public.stripe_events where id = p_event_id) then
    return jsonb_build_object('duplicate', true);
  end if;
  if p_email is null then
    return jsonb_build_object('duplicate', false);
  end if;
  found_id := public.auth_user_id_by_email(p_email);
  if found_id is not null then
    return jsonb_build_object('duplicate', false, 'user_id', found_id);
  end if;
  return jsonb_build_object('duplicate', false, 'claimed', public.claim_buyer_invite(p_email));
end
$$;
revoke execute on function public.prepare_stripe_event(text, text) from public, anon, authenticated;
grant execute on function public.prepare_stripe_event(text, text) to service_role;
