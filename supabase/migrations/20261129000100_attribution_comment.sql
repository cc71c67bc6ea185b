-- The shape of a visit's first-touch attribution now lives in packages/shared/checkout-request.ts,
-- which the site and the functions both import; the column's description points there.
comment on column public.stripe_orders.attribution is
  'First-touch attribution of the visit that bought: utm_*, referrer, landing_page (packages/shared/checkout-request.ts).';
