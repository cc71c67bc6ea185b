-- Coached offers (docs/coached-offers.md): the offer an admin sends an applicant after the
-- consultation call, which the applicant opens with a single-use link and pays in full, by
-- instalments or with the monthly membership.
--
-- 1. `coached_offers`: one row per offer sent. The payment options are kept as they were when it
--    was sent (content/offers.yaml may change later; a sent offer does not). The link's token is
--    kept as its SHA-256 only, so the database never holds a link that works. A price other than
--    the content's carries its reason. Written by the functions (the service role) only.
-- 2. `desk_offers`: what admins read on the desk, with the offer's state: sent, opened, paid,
--    expired or withdrawn. Coaches, customers and visitors read nothing.
-- 3. `desk_withdraw_offer`: the one write the desk makes, by an admin, to an offer not yet paid.

-- 1. Offers ----------------------------------------------------------------------------------------
create table public.coached_offers (
  id uuid primary key default gen_random_uuid(),
  -- The consultation request it answers (kept when the lead is deleted: the offer was sent).
  lead_id uuid references public.leads (id) on delete set null,
  -- The offer's key in content/offers.yaml, and the program it enrols in (its checkout key).
  offer_key text not null check (offer_key ~ '^[a-z0-9]+(-[a-z0-9]+)*$'),
  product_key text not null check (product_key ~ '^[A-Z][A-Z0-9_]*$'),
  name text not null check (char_length(name) between 1 and 200),
  email text not null check (char_length(email) <= 320 and email ~ '^[^@[:space:]]+@[^@[:space:]]+$'),
  -- The cohort it holds a seat in (null for a program without cohorts).
  cohort_start date,
  -- What content priced it at when sent, what the offer asks, and why, when the two differ.
  list_price_cents integer not null check (list_price_cents > 0),
  price_cents integer not null check (price_cents > 0),
  price_reason text check (char_length(price_reason) between 1 and 500),
  -- How it can be paid, as sent (packages/shared/offer-options.ts OfferPayment): {"options":
  -- [{"kind": "in_full" | "plan", ...}, ...], "membership": {...} | null, "terms": "..."}.
  payment jsonb not null check (
    jsonb_typeof(payment) = 'object'
    and jsonb_typeof(payment -> 'options') = 'array'
    and jsonb_array_length(payment -> 'options') >= 1
  ),
  token_hash bytea not null unique check (octet_length(token_hash) = 32),
  created_at timestamptz not null default now(),
  created_by uuid references auth.users (id) on delete set null,
  expires_at timestamptz not null,
  opened_at timestamptz,
  paid_at timestamptz,
  withdrawn_at timestamptz,
  withdrawn_by uuid references auth.users (id) on delete set null,
  constraint coached_offers_price_reason check (price_cents = list_price_cents or price_reason is not null),
  constraint coached_offers_expiry check (expires_at > created_at),
  constraint coached_offers_paid_or_withdrawn check (paid_at is null or withdrawn_at is null)
);
comment on table public.coached_offers is
  'Coached offers sent to applicants (docs/coached-offers.md). Written by the functions only; admins read them through desk_offers.';
comment on column public.coached_offers.token_hash is
  'SHA-256 of the offer link''s token: the link itself is only in the applicant''s e-mail.';
create index coached_offers_created_idx on public.coached_offers (created_at desc);
create index coached_offers_lead_idx on public.coached_offers (lead_id);

alter table public.coached_offers enable row level security;
revoke all on public.coached_offers from anon, authenticated, service_role;
grant select, insert, update on public.coached_offers to service_role;
-- Everything but the token's hash.
grant select (
  id, lead_id, offer_key, product_key, name, email, cohort_start, list_price_cents, price_cents,
  price_reason, payment, created_at, created_by, expires_at, opened_at, paid_at, withdrawn_at, withdrawn_by
) on public.coached_offers to authenticated;
create policy "Admins read offers" on public.coached_offers
  for select to authenticated using ((select public.is_staff('admin')));

-- 2. The desk's view ------------------------------------------------------------------------------
create view public.desk_offers with (security_invoker = true) as
select
  o.id, o.lead_id, o.offer_key, o.product_key, o.name, o.email, o.cohort_start,
  o.list_price_cents, o.price_cents, o.price_reason, o.payment,
  o.created_at, o.created_by, o.expires_at, o.opened_at, o.paid_at, o.withdrawn_at, o.withdrawn_by,
  case
    when o.paid_at is not null then 'paid'
    when o.withdrawn_at is not null then 'withdrawn'
    when o.expires_at <= now() then 'expired'
    when o.opened_at is not null then 'opened'
    else 'sent'
  end as status
from public.coached_offers o;
comment on view public.desk_offers is
  'Offers sent, with their state (sent, opened, paid, expired, withdrawn), for admins.';
revoke all on public.desk_offers from anon, authenticated, service_role;
grant select on public.desk_offers to authenticated, service_role;

-- 3. Withdrawing ----------------------------------------------------------------------------------
-- A function rather than an UPDATE grant, so that anyone but an admin is refused outright (403).
create function public.desk_withdraw_offer(p_id uuid) returns jsonb
  language plpgsql security definer set search_path = ''
as $$
declare
  v_offer public.coached_offers;
begin
  if not public.is_staff('admin') then
    raise exception 'Only the team''s admins withdraw offers' using errcode = '42501';
  end if;
  select * into v_offer from public.coached_offers where id = p_id for update;
  if v_offer.id is null then
    raise exception 'No offer %', p_id using errcode = 'PT404';
  end if;
  if v_offer.paid_at is not null then
    raise exception 'This offer is paid; refund the payment instead' using errcode = 'PT409';
  end if;
  if v_offer.withdrawn_at is null then
    update public.coached_offers set withdrawn_at = now(), withdrawn_by = auth.uid()
    where id = p_id returning * into v_offer;
  end if;
  return jsonb_build_object('id', v_offer.id, 'withdrawn_at', v_offer.withdrawn_at, 'withdrawn_by', v_offer.withdrawn_by);
end
$$;
revoke execute on function public.desk_withdraw_offer(uuid) from public, anon;
grant execute on function public.desk_withdraw_offer(uuid) to authenticated;
