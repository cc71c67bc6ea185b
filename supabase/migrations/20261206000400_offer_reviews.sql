-- A payment held for review may be for a coached offer that was never sent, or for a way to pay
-- it was not sent with (functions/stripe-webhook/process.ts `offerProblem`): then nothing says what
-- it should have been, and the review keeps no expected amount rather than a made-up one.
alter table public.stripe_payment_reviews alter column expected_amount drop not null;
comment on column public.stripe_payment_reviews.expected_amount is
  'What the payment should have been: the program''s price, or the coached offer''s amount; null when no sent offer says.';
