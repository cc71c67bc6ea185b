-- Hardening of the first migration, for a project created today:
-- 1. Explicit grants. A new Supabase project no longer grants the API roles anything on new
--    tables in `public`; each role gets exactly what the product needs, and a signed-in user
--    writes only the profile columns the settings form edits.
-- 2. Policies call `(select auth.uid())`, evaluated once per query instead of once per row.
-- 3. Avatars: one file per user, `{userId}/{userId}.{png|jpg|jpeg|webp}`, declared as one of the
--    three image types; nothing else may be uploaded to the public bucket.
-- 4. A profile's avatar_url is empty or the user's own avatar's public URL.
-- 5. `updated_at` is the database's, on insert as on update; the trigger function has a fixed
--    search_path.
-- 6. Deleting a buyer's account keeps their Stripe customer and orders (for the books), no longer
--    tied to a user.
-- 7. Processed Stripe events: an explicit policy says no client may read or write them.

-- 5. updated_at --------------------------------------------------------------------------------
create or replace function public.touch_updated_at() returns trigger
  language plpgsql
  set search_path = ''
as $$
begin
  new.updated_at := now();
  return new;
end
$$;
revoke execute on function public.touch_updated_at() from public, anon, authenticated, service_role;

drop trigger profiles_touch_updated_at on public.profiles;
create trigger profiles_touch_updated_at before insert or update on public.profiles
  for each row execute function public.touch_updated_at();

-- 1. Grants ------------------------------------------------------------------------------------
revoke all on public.profiles, public.stripe_customers, public.stripe_orders, public.stripe_events,
  public.stripe_user_orders from anon, authenticated, service_role;

-- The settings form reads the profile and saves it by upsert (insert, or update on conflict):
-- the id and the contact fields, never updated_at.
grant select on public.profiles to authenticated;
grant insert (id, full_name, address, address_2, city, state, country, zip, avatar_url),
  update (id, full_name, address, address_2, city, state, country, zip, avatar_url)
  on public.profiles to authenticated;

-- Users read their own customer record and orders (policies below); the view is how the
-- portal reads orders.
grant select on public.stripe_customers, public.stripe_orders, public.stripe_user_orders to authenticated;

-- The Stripe webhook (service role) records customers, orders and processed events.
grant select, insert, update on public.stripe_customers, public.stripe_orders, public.stripe_events to service_role;
grant select on public.stripe_user_orders to service_role;

-- 2. Policies, evaluated once per query ----------------------------------------------------------
drop policy "Users read their own profile" on public.profiles;
drop policy "Users create their own profile" on public.profiles;
drop policy "Users update their own profile" on public.profiles;
create policy "Users read their own profile" on public.profiles
  for select to authenticated using (id = (select auth.uid()));
create policy "Users create their own profile" on public.profiles
  for insert to authenticated with check (id = (select auth.uid()));
create policy "Users update their own profile" on public.profiles
  for update to authenticated using (id = (select auth.uid())) with check (id = (select auth.uid()));

drop policy "Users read their own customer record" on public.stripe_customers;
create policy "Users read their own customer record" on public.stripe_customers
  for select to authenticated using (user_id = (select auth.uid()) and deleted_at is null);

drop policy "Users read their own orders" on public.stripe_orders;
create policy "Users read their own orders" on public.stripe_orders
  for select to authenticated using (
    deleted_at is null
    and customer_id in (
      select customer_id from public.stripe_customers where user_id = (select auth.uid()) and deleted_at is null
    )
  );

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
  o.created_at as order_date
from public.stripe_orders o
join public.stripe_customers c on c.customer_id = o.customer_id
where c.user_id = (select auth.uid()) and c.deleted_at is null and o.deleted_at is null;

-- 7. Processed events: service role only, said explicitly.
create policy "No client reads or writes processed events" on public.stripe_events
  for all to anon, authenticated using (false) with check (false);

-- 3. Avatars -----------------------------------------------------------------------------------
-- Storage checks an upload by writing the object's row as the uploader, with the declared
-- content type in metadata->>'mimetype'. The bucket alone would take `image/png/x` (it compares
-- only type and subtype), so the policies name the exact types.
drop policy "Users read their own avatar objects" on storage.objects;
drop policy "Users upload avatars to their own folder" on storage.objects;
drop policy "Users overwrite avatars in their own folder" on storage.objects;
drop policy "Users delete avatars in their own folder" on storage.objects;

-- Reading their own object is what lets an upload replace it (Storage's upsert returns the row).
create policy "Users read their own avatar" on storage.objects
  for select to authenticated using (
    bucket_id = 'avatars'
    and name ~ ('^' || (select auth.uid())::text || '/' || (select auth.uid())::text || '\.(png|jpg|jpeg|webp)$')
  );
create policy "Users upload their own avatar" on storage.objects
  for insert to authenticated with check (
    bucket_id = 'avatars'
    and name ~ ('^' || (select auth.uid())::text || '/' || (select auth.uid())::text || '\.(png|jpg|jpeg|webp)$')
    and metadata ->> 'mimetype' in ('image/png', 'image/jpeg', 'image/webp')
  );
create policy "Users replace their own avatar" on storage.objects
  for update to authenticated
  using (
    bucket_id = 'avatars'
    and name ~ ('^' || (select auth.uid())::text || '/' || (select auth.uid())::text || '\.(png|jpg|jpeg|webp)$')
  )
  with check (
    bucket_id = 'avatars'
    and name ~ ('^' || (select auth.uid())::text || '/' || (select auth.uid())::text || '\.(png|jpg|jpeg|webp)$')
    and metadata ->> 'mimetype' in ('image/png', 'image/jpeg', 'image/webp')
  );
create policy "Users delete their own avatar" on storage.objects
  for delete to authenticated using (
    bucket_id = 'avatars'
    and name ~ ('^' || (select auth.uid())::text || '/' || (select auth.uid())::text || '\.(png|jpg|jpeg|webp)$')
  );

-- 4. avatar_url --------------------------------------------------------------------------------
-- The public URL of the user's own avatar on a Supabase project (or the local stack), with an
-- optional cache-busting query. A project on a custom domain adds its host here in a migration.
alter table public.profiles add constraint profiles_avatar_url_is_own_avatar check (
  avatar_url is null
  or avatar_url ~ (
    '^(https://[a-z0-9]+\.supabase\.co|http://(localhost|127\.0\.0\.1)(:[0-9]{1,5})?)/storage/v1/object/public/avatars/'
    || id::text || '/' || id::text || '\.(png|jpg|jpeg|webp)(\?[A-Za-z0-9=&._-]{0,100})?$'
  )
);

-- 6. Account deletion keeps the books ----------------------------------------------------------
-- Orders reference the Stripe customer, which outlives the user: the customer's user_id is
-- cleared when the account is deleted, and the customer id becomes the key.
alter table public.stripe_customers drop constraint stripe_customers_pkey;
alter table public.stripe_customers alter column user_id drop not null;
alter table public.stripe_customers add constraint stripe_customers_pkey primary key (customer_id);
alter table public.stripe_customers add constraint stripe_customers_user_id_key unique (user_id);
alter table public.stripe_customers drop constraint stripe_customers_user_id_fkey;
alter table public.stripe_customers add constraint stripe_customers_user_id_fkey
  foreign key (user_id) references auth.users (id) on delete set null;
comment on table public.stripe_customers is
  'Stripe customer per user; user_id is cleared when the account is deleted, the orders stay. Users read their own; only the service role writes.';
