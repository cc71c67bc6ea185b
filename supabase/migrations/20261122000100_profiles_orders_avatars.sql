-- Profiles, Stripe customers and orders, processed Stripe events, the caller's order view, and
-- the avatars bucket. Row level security is on for every table; policies are named for what
-- they allow. Only the service role (the Stripe webhook) writes customers, orders and events.

-- The life of a purchase: pending until paid (or a delayed payment settles), then completed;
-- canceled when the session expires unpaid, failed when a delayed payment is declined,
-- refunded under the 30-day guarantee.
create type public.order_status as enum ('pending', 'completed', 'canceled', 'refunded', 'failed');

create function public.touch_updated_at() returns trigger language plpgsql as $$
begin
  new.updated_at := now();
  return new;
end
$$;

-- profiles ------------------------------------------------------------------------------------
-- One row per user: the contact details the portal's settings form edits. The e-mail address is
-- the account's (auth.users) and is not stored here.
create table public.profiles (
  id uuid primary key references auth.users (id) on delete cascade,
  full_name text check (char_length(full_name) <= 200),
  address text check (char_length(address) <= 200),
  address_2 text check (char_length(address_2) <= 200),
  city text check (char_length(city) <= 100),
  state text check (char_length(state) <= 100),
  country text check (char_length(country) <= 100),
  zip text check (char_length(zip) <= 20),
  avatar_url text check (char_length(avatar_url) <= 1000),
  updated_at timestamptz not null default now()
);
comment on table public.profiles is 'Contact details of each user, edited in the portal. Owner only.';

create trigger profiles_touch_updated_at before update on public.profiles
  for each row execute function public.touch_updated_at();

alter table public.profiles enable row level security;

create policy "Users read their own profile" on public.profiles
  for select to authenticated using (id = auth.uid());
create policy "Users create their own profile" on public.profiles
  for insert to authenticated with check (id = auth.uid());
create policy "Users update their own profile" on public.profiles
  for update to authenticated using (id = auth.uid()) with check (id = auth.uid());

revoke all on public.profiles from anon;
revoke delete, truncate, references, trigger on public.profiles from authenticated;

-- stripe_customers ----------------------------------------------------------------------------
-- The Stripe customer of each user, written by the webhook.
create table public.stripe_customers (
  user_id uuid primary key references auth.users (id) on delete cascade,
  customer_id text not null unique check (customer_id ~ '^cus_[A-Za-z0-9]+$'),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  deleted_at timestamptz
);
comment on table public.stripe_customers is 'Stripe customer id per user. Users read their own; only the service role writes.';

create trigger stripe_customers_touch_updated_at before update on public.stripe_customers
  for each row execute function public.touch_updated_at();

alter table public.stripe_customers enable row level security;

create policy "Users read their own customer record" on public.stripe_customers
  for select to authenticated using (user_id = auth.uid() and deleted_at is null);

revoke all on public.stripe_customers from anon;
revoke insert, update, delete, truncate, references, trigger on public.stripe_customers from authenticated;

-- stripe_orders -------------------------------------------------------------------------------
-- One row per Checkout Session, created and advanced by the webhook.
create table public.stripe_orders (
  id bigint generated always as identity primary key,
  checkout_session_id text not null unique check (checkout_session_id ~ '^cs_[A-Za-z0-9_]+$'),
  payment_intent_id text check (payment_intent_id ~ '^pi_[A-Za-z0-9_]+$'),
  customer_id text not null references public.stripe_customers (customer_id),
  product_key text not null check (product_key ~ '^[A-Z][A-Z0-9_]*$'),
  amount_subtotal bigint not null check (amount_subtotal >= 0),
  amount_total bigint not null check (amount_total >= 0),
  currency text not null check (currency ~ '^[a-z]{3}$'),
  payment_status text not null check (payment_status in ('paid', 'unpaid', 'no_payment_required')),
  status public.order_status not null default 'pending',
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  deleted_at timestamptz
);
comment on table public.stripe_orders is 'Orders, one per Checkout Session. Users read their own through stripe_user_orders; only the service role writes.';

create index stripe_orders_customer_id_idx on public.stripe_orders (customer_id);

create trigger stripe_orders_touch_updated_at before update on public.stripe_orders
  for each row execute function public.touch_updated_at();

alter table public.stripe_orders enable row level security;

create policy "Users read their own orders" on public.stripe_orders
  for select to authenticated using (
    deleted_at is null
    and customer_id in (
      select customer_id from public.stripe_customers where user_id = auth.uid() and deleted_at is null
    )
  );

revoke all on public.stripe_orders from anon;
revoke insert, update, delete, truncate, references, trigger on public.stripe_orders from authenticated;

-- stripe_events -------------------------------------------------------------------------------
-- Ids of Stripe events already processed, so a redelivered event changes nothing.
create table public.stripe_events (
  id text primary key check (id ~ '^evt_[A-Za-z0-9_]+$'),
  type text not null,
  processed_at timestamptz not null default now()
);
comment on table public.stripe_events is 'Processed Stripe event ids. Service role only.';

alter table public.stripe_events enable row level security;
revoke all on public.stripe_events from anon, authenticated;

-- stripe_user_orders --------------------------------------------------------------------------
-- The caller's orders: the spec's columns plus the program bought. security_invoker makes the
-- tables' policies apply to the caller, and the filter keeps it to the caller even for roles
-- that bypass them.
create view public.stripe_user_orders with (security_invoker = true) as
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
  o.created_at as order_date
from public.stripe_orders o
join public.stripe_customers c on c.customer_id = o.customer_id
where c.user_id = auth.uid() and c.deleted_at is null and o.deleted_at is null;

revoke all on public.stripe_user_orders from anon;
revoke insert, update, delete, truncate, references, trigger on public.stripe_user_orders from authenticated;
grant select on public.stripe_user_orders to authenticated;

-- avatars -------------------------------------------------------------------------------------
-- Public read of single files (the public URL); no listing; PNG, JPEG or WebP up to 2 MB; each
-- user writes only under the folder named by their id.
insert into storage.buckets (id, name, public, file_size_limit, allowed_mime_types)
values ('avatars', 'avatars', true, 2097152, array['image/png', 'image/jpeg', 'image/webp'])
on conflict (id) do update set
  public = excluded.public,
  file_size_limit = excluded.file_size_limit,
  allowed_mime_types = excluded.allowed_mime_types;

create policy "Users read their own avatar objects" on storage.objects
  for select to authenticated using (
    bucket_id = 'avatars' and (storage.foldername(name))[1] = auth.uid()::text
  );
create policy "Users upload avatars to their own folder" on storage.objects
  for insert to authenticated with check (
    bucket_id = 'avatars' and (storage.foldername(name))[1] = auth.uid()::text
  );
create policy "Users overwrite avatars in their own folder" on storage.objects
  for update to authenticated
  using (bucket_id = 'avatars' and (storage.foldername(name))[1] = auth.uid()::text)
  with check (bucket_id = 'avatars' and (storage.foldername(name))[1] = auth.uid()::text);
create policy "Users delete avatars in their own folder" on storage.objects
  for delete to authenticated using (
    bucket_id = 'avatars' and (storage.foldername(name))[1] = auth.uid()::text
  );
