-- Stripe events held for review, and the business told by e-mail. The webhook grants a program
-- only for what the program costs: a Checkout Session whose amount or currency is not the
-- program's price (the catalogue's, or an older price of the program's own Stripe product during a
-- price change) gets no order and no access. And a refund that failed (refund.failed) left the
-- buyer unpaid. Either event is kept here for someone to act on (functions/stripe-webhook/process.ts
-- `holdForReview`). One row per event, so a redelivery adds nothing.
create table public.stripe_payment_reviews (
  event_id text primary key check (char_length(event_id) <= 255),
  event_type text not null check (char_length(event_type) <= 100),
  checkout_session_id text not null check (char_length(checkout_session_id) <= 255),
  customer_id text check (char_length(customer_id) <= 255),
  email text check (char_length(email) <= 320),
  product_key text not null check (char_length(product_key) <= 100),
  amount_total bigint,
  currency text check (char_length(currency) <= 10),
  expected_amount bigint not null,
  expected_currency text not null check (char_length(expected_currency) <= 10),
  reason text not null check (char_length(reason) <= 1000),
  created_at timestamptz not null default now(),
  -- The business's e-mail about it (functions/_shared/emails.ts paymentReviewEmail): sent, or why
  -- not yet (Stripe delivers the event again, and that delivery sends it).
  notified_at timestamptz,
  notify_error text check (char_length(notify_error) <= 1000),
  -- Set by whoever settled it (refunded the buyer, or granted the program by hand).
  resolved_at timestamptz,
  resolution text check (char_length(resolution) <= 1000)
);
comment on table public.stripe_payment_reviews is
  'Stripe events whose payment was not the program''s price: no order or access was granted. For the business to settle (docs/operations.md, Checkout and payments). Service role only.';
create index stripe_payment_reviews_open_idx on public.stripe_payment_reviews (created_at)
  where resolved_at is null;

alter table public.stripe_payment_reviews enable row level security;
create policy "No client reads or writes payment reviews" on public.stripe_payment_reviews
  for all to anon, authenticated using (false) with check (false);
revoke all on public.stripe_payment_reviews from anon, authenticated, service_role;
grant select, insert, update on public.stripe_payment_reviews to service_role;
