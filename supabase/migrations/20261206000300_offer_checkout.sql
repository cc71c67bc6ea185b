-- The offer's checkout (functions/offer/handler.ts, docs/coached-offers.md): the applicant chooses
-- a way to pay on the offer's page, and the function opens a Stripe Checkout Session for it. The
-- offer keeps its latest session and the option it was for: a new choice expires the session
-- before it at Stripe, so an offer never has two payable sessions, and the webhook finds the offer
-- a payment belongs to by its session.
alter table public.coached_offers
  add column checkout_session_id text unique check (checkout_session_id ~ '^cs_(test|live)_[A-Za-z0-9]+$'),
  add column chosen_option text check (chosen_option ~ '^(in_full|plan:[0-9]{1,2})$');
comment on column public.coached_offers.checkout_session_id is
  'The latest Stripe Checkout Session opened for the offer; an earlier one is expired at Stripe first.';
comment on column public.coached_offers.chosen_option is
  'The way to pay that session is for: in_full, or plan:<index in payment.options>.';
grant select (checkout_session_id, chosen_option) on public.coached_offers to authenticated;
