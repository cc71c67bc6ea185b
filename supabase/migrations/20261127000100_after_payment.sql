-- What a buyer sees and receives after paying:
-- 1. Orders keep Stripe's receipt link (the charge's `receipt_url`), which purchase history shows.
-- 2. `stripe_user_orders` adds the order reference a customer can quote and the receipt link.
--    The reference is the first 8 hex digits of the SHA-256 of the Checkout Session id, upper
--    case: the success page computes the same from the session (functions/_shared/order-reference.ts),
--    so a reference is known before the webhook records the order.
-- 3. `order_emails`: the product's own e-mail for each order event (access granted, bank payment
--    failed, refund), queued in the transaction that records the event, so each is sent once
--    whatever the number of deliveries, and a mail outage leaves it queued, never lost.
-- 4. `record_stripe_event` queues them, and keeps the receipt link and a new buyer's
--    set-password link.
-- 5. `claim_order_emails` / `finish_order_email`: one sender at a time per e-mail.
-- 6. `buyer_order_state`: what the checkout function needs to refuse a second purchase.
-- 7. One set-password link per new buyer at a time (`set_password_link`): every access e-mail
--    of a buyer who has not set a password yet carries the same link.

-- 1. Receipt link ------------------------------------------------------------------------------
alter table public.stripe_orders
  add column receipt_url text check (receipt_url ~ '^https?://' and char_length(receipt_url) <= 1000);
comment on column public.stripe_orders.receipt_url is
  'Stripe''s hosted receipt of the payment (the charge''s receipt_url), when Stripe has one.';

-- 2. The customer's view -------------------------------------------------------------------------
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
  o.receipt_url
from public.stripe_orders o
join public.stripe_customers c on c.customer_id = o.customer_id
where c.user_id = auth.uid() and c.deleted_at is null and o.deleted_at is null;

-- 3. The product's e-mails, once each ------------------------------------------------------------
create type public.order_email_kind as enum ('access', 'payment_failed', 'refund');

create table public.order_emails (
  checkout_session_id text not null references public.stripe_orders (checkout_session_id) on delete cascade,
  kind public.order_email_kind not null,
  -- queued: waiting to be sent; sending: a delivery holds it (claimed_at); sent; failed: given up
  -- after repeated refusals, for someone to look at (the order itself is recorded either way).
  status text not null default 'queued' check (status in ('queued', 'sending', 'sent', 'failed')),
  attempts int not null default 0,
  last_error text check (char_length(last_error) <= 1000),
  provider_id text check (char_length(provider_id) <= 200),
  created_at timestamptz not null default now(),
  claimed_at timestamptz,
  sent_at timestamptz,
  primary key (checkout_session_id, kind)
);
comment on table public.order_emails is
  'The product''s e-mails about each order (functions/stripe-webhook/emails.ts), one per kind. Service role only.';

alter table public.order_emails enable row level security;
create policy "No client reads or writes order e-mails" on public.order_emails
  for all to anon, authenticated using (false) with check (false);
revoke all on public.order_emails from anon, authenticated, service_role;
grant select, insert, update on public.order_emails to service_role;

-- The set-password link kept per new buyer (section 7).
alter table public.buyer_invites
  add column link_token_hash text check (char_length(link_token_hash) <= 200),
  add column link_created_at timestamptz,
  add column link_claimed_at timestamptz;

-- 4. Recording an event queues its e-mail ------------------------------------------------------
-- As before (20261124000100_checkout_webhook.sql), plus: the receipt link, and the e-mail the
-- order's new status calls for. The e-mail is queued only when this event moved the order to
-- that status (a late or repeated event that the status trigger keeps back queues nothing), and
-- at most once per order and kind.
drop function public.record_stripe_event(text, text, text, text, uuid, text, text, bigint, bigint, text, text, public.order_status, jsonb, text);

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
  p_link_token_hash text default null
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
    currency, payment_status, status, attribution, receipt_url
  )
  values (
    p_checkout_session_id, p_payment_intent_id, p_customer_id, p_product_key, p_amount_subtotal,
    p_amount_total, p_currency, p_payment_status, p_status, coalesce(p_attribution, '{}'::jsonb), p_receipt_url
  )
  on conflict (checkout_session_id) do update set
    payment_intent_id = coalesce(excluded.payment_intent_id, public.stripe_orders.payment_intent_id),
    payment_status = excluded.payment_status,
    status = excluded.status,
    amount_subtotal = excluded.amount_subtotal,
    amount_total = excluded.amount_total,
    receipt_url = coalesce(excluded.receipt_url, public.stripe_orders.receipt_url)
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
comment on function public.record_stripe_event(text, text, text, text, uuid, text, text, bigint, bigint, text, text, public.order_status, jsonb, text, text, text) is
  'Records one Stripe event, the order it concerns and the e-mail it calls for, once. For the Stripe webhook (service role) only.';
revoke execute on function public.record_stripe_event(text, text, text, text, uuid, text, text, bigint, bigint, text, text, public.order_status, jsonb, text, text, text)
  from public, anon, authenticated;
grant execute on function public.record_stripe_event(text, text, text, text, uuid, text, text, bigint, bigint, text, text, public.order_status, jsonb, text, text, text)
  to service_role;

-- 5. One sender per e-mail -----------------------------------------------------------------------
-- The order e-mails of a session that a delivery may send now, marked as being sent: queued ones,
-- and ones a delivery claimed more than two minutes ago without finishing (it died mid-send; the
-- provider's idempotency key keeps a second send from reaching the buyer twice). Each comes with
-- what its e-mail says: the order, the buyer's address, whether they have used their account yet,
-- and the set-password link kept for them (section 7), so that sending takes no further reads.
create function public.claim_order_emails(p_checkout_session_id text)
  returns table (
    kind public.order_email_kind,
    attempts int,
    product_key text,
    amount_total bigint,
    currency text,
    email text,
    confirmed boolean,
    link_token_hash text
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
    case when b.link_created_at > now() - interval '45 minutes' then b.link_token_hash end
  from claimed c
  join public.stripe_orders o on o.checkout_session_id = p_checkout_session_id
  join public.stripe_customers sc on sc.customer_id = o.customer_id
  join auth.users u on u.id = sc.user_id
  left join public.buyer_invites b on b.email = lower(u.email)
$$;
revoke execute on function public.claim_order_emails(text) from public, anon, authenticated;
grant execute on function public.claim_order_emails(text) to service_role;

-- Ends a claim: sent, or back in the queue with the error (failed after too many attempts).
create function public.finish_order_email(
  p_checkout_session_id text,
  p_kind public.order_email_kind,
  p_provider_id text default null,
  p_error text default null,
  p_max_attempts int default 8
) returns text
  language sql set search_path = ''
as $$
  update public.order_emails
  set status = case
        when p_error is null then 'sent'
        when attempts >= p_max_attempts then 'failed'
        else 'queued' end,
      sent_at = case when p_error is null then now() end,
      provider_id = coalesce(p_provider_id, provider_id),
      last_error = left(p_error, 1000),
      claimed_at = null
  where checkout_session_id = p_checkout_session_id and kind = p_kind and status = 'sending'
  returning status
$$;
revoke execute on function public.finish_order_email(text, public.order_email_kind, text, text, int) from public, anon, authenticated;
grant execute on function public.finish_order_email(text, public.order_email_kind, text, text, int) to service_role;

-- 6. Already bought? ------------------------------------------------------------------------------
-- 'owned' when the account with this e-mail has a completed order for the program, 'processing'
-- when its payment is still clearing, else null. For the checkout function (service role) only.
create function public.buyer_order_state(p_email text, p_product_key text) returns text
  language sql stable security definer set search_path = ''
as $$
  select case
    when bool_or(o.status = 'completed') then 'owned'
    when bool_or(o.status = 'pending' and o.payment_status = 'unpaid') then 'processing'
  end
  from public.stripe_orders o
  join public.stripe_customers c on c.customer_id = o.customer_id and c.deleted_at is null
  join auth.users u on u.id = c.user_id
  where u.email = lower(p_email) and o.product_key = p_product_key and o.deleted_at is null
$$;
revoke execute on function public.buyer_order_state(text, text) from public, anon, authenticated;
grant execute on function public.buyer_order_state(text, text) to service_role;

-- 7. One set-password link at a time ---------------------------------------------------------------
-- A new buyer's access e-mail carries their set-password link (Auth's invite link, made with the
-- admin generateLink, which sends nothing). Auth keeps one such token per account: making a new
-- link kills the last one. So the webhook keeps the link in buyer_invites, per address: the one
-- made with the account (record_stripe_event), then, once that is 45 minutes old, a new one made
-- by one delivery at a time (these two functions). Every e-mail to the buyer meanwhile (a retry,
-- a second program bought) carries the same link and is the same message, so the provider's
-- idempotency key holds.
-- {"hash": …} to use, or {"claimed": true} when the caller is to make a new link (and keep it
-- with keep_set_password_link), or {"claimed": false} while another caller is making one.
create function public.set_password_link(p_email text) returns jsonb
  language plpgsql set search_path = ''
as $$
declare
  row public.buyer_invites;
begin
  insert into public.buyer_invites (email) values (lower(p_email)) on conflict (email) do nothing;
  select * into row from public.buyer_invites where email = lower(p_email) for update;
  if row.link_token_hash is not null and row.link_created_at > now() - interval '45 minutes' then
    return jsonb_build_object('hash', row.link_token_hash);
  end if;
  if row.link_claimed_at is null or row.link_claimed_at < now() - interval '1 minute' then
    update public.buyer_invites set link_claimed_at = now() where email = row.email;
    return jsonb_build_object('claimed', true);
  end if;
  return jsonb_build_object('claimed', false);
end
$$;
revoke execute on function public.set_password_link(text) from public, anon, authenticated;
grant execute on function public.set_password_link(text) to service_role;

create function public.keep_set_password_link(p_email text, p_hash text) returns void
  language sql set search_path = ''
as $$
  update public.buyer_invites
  set link_token_hash = p_hash, link_created_at = now(), link_claimed_at = null
  where email = lower(p_email)
$$;
revoke execute on function public.keep_set_password_link(text, text) from public, anon, authenticated;
grant execute on function public.keep_set_password_link(text, text) to service_role;
