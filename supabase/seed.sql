-- Demo data: one customer who bought Growth Mindset Mastery, is three lessons into its course
-- (and part-way through the fourth lesson's video), and has an AI Advisor Accelerator payment
-- pending. `npm start` applies it to a new local database, and `supabase db reset` to a
-- Supabase CLI database, so both give the same demo. Sign in as demo@advisoraccelerator.com with
-- the password advisor-demo-2026.
--
-- The user row is written as Supabase Auth writes one, because Auth reads it back the same way:
-- the zero instance id, the 'authenticated' audience and role, a bcrypt password, a confirmed
-- address, empty strings (not nulls) in the token columns it reads as text, and the e-mail
-- identity every password user has.
insert into auth.users (
  instance_id, id, aud, role, email, encrypted_password, email_confirmed_at,
  confirmation_token, recovery_token, email_change_token_new, email_change,
  raw_app_meta_data, raw_user_meta_data, created_at, updated_at
)
values (
  '00000000-0000-0000-0000-000000000000',
  '5f0d1c2e-8a3b-4c6d-9e7f-0a1b2c3d4e5f',
  'authenticated',
  'authenticated',
  'demo@advisoraccelerator.com',
  extensions.crypt('advisor-demo-2026', extensions.gen_salt('bf', 10)),
  now() - interval '40 days',
  '', '', '', '',
  '{"provider": "email", "providers": ["email"]}',
  '{"email_verified": true}',
  now() - interval '40 days',
  now() - interval '40 days'
)
on conflict (id) do nothing;

insert into auth.identities (provider_id, user_id, identity_data, provider, last_sign_in_at, created_at, updated_at)
values (
  '5f0d1c2e-8a3b-4c6d-9e7f-0a1b2c3d4e5f',
  '5f0d1c2e-8a3b-4c6d-9e7f-0a1b2c3d4e5f',
  '{"sub": "5f0d1c2e-8a3b-4c6d-9e7f-0a1b2c3d4e5f", "email": "demo@advisoraccelerator.com", "email_verified": true, "phone_verified": false}',
  'email',
  now() - interval '40 days',
  now() - interval '40 days',
  now() - interval '40 days'
)
on conflict (provider_id, provider) do nothing;

insert into public.profiles (id, full_name, city, state, country)
values ('5f0d1c2e-8a3b-4c6d-9e7f-0a1b2c3d4e5f', 'Dana Whitaker', 'Austin', 'TX', 'United States')
on conflict (id) do nothing;

insert into public.stripe_customers (user_id, customer_id)
values ('5f0d1c2e-8a3b-4c6d-9e7f-0a1b2c3d4e5f', 'cus_DemoCustomer01')
on conflict (customer_id) do nothing;

insert into public.stripe_orders (
  checkout_session_id, payment_intent_id, customer_id, product_key,
  amount_subtotal, amount_total, currency, payment_status, status, created_at
)
values
  ('cs_test_demo_growth_mindset', 'pi_demo_growth_mindset', 'cus_DemoCustomer01', 'GROWTH_MINDSET',
   30000, 30000, 'usd', 'paid', 'completed', now() - interval '40 days'),
  ('cs_test_demo_ai_accelerator', null, 'cus_DemoCustomer01', 'AI_ACCELERATOR',
   1500000, 1500000, 'usd', 'unpaid', 'pending', now() - interval '1 day')
on conflict (checkout_session_id) do nothing;

-- Progress in the Growth Mindset course: module 1 done, the video of module 2's first lesson
-- watched to 1:35. The lessons themselves arrive with `npm run course:publish` (npm start runs it).
insert into public.lesson_progress (user_id, lesson_id, completed, video_position)
values
  ('5f0d1c2e-8a3b-4c6d-9e7f-0a1b2c3d4e5f', 'growth-mindset/find-your-production-ceiling-belief', true, 0),
  ('5f0d1c2e-8a3b-4c6d-9e7f-0a1b2c3d4e5f', 'growth-mindset/put-money-beliefs-on-trial', true, 0),
  ('5f0d1c2e-8a3b-4c6d-9e7f-0a1b2c3d4e5f', 'growth-mindset/score-your-top-producer-week', true, 0),
  ('5f0d1c2e-8a3b-4c6d-9e7f-0a1b2c3d4e5f', 'growth-mindset/name-your-call-reluctance', false, 95)
on conflict (user_id, lesson_id) do nothing;

-- The team: one demo admin, who signs in at /login as team@advisoraccelerator.com with the password
-- advisor-team-2026 and opens the desk (/desk). Written as Auth writes a user, as above; made staff
-- as `npm run staff -- add … --role admin` makes anyone staff.
insert into auth.users (
  instance_id, id, aud, role, email, encrypted_password, email_confirmed_at,
  confirmation_token, recovery_token, email_change_token_new, email_change,
  raw_app_meta_data, raw_user_meta_data, created_at, updated_at
)
values (
  '00000000-0000-0000-0000-000000000000',
  '7a1e4b2c-3d5f-4e6a-8b9c-0d1e2f3a4b5c',
  'authenticated',
  'authenticated',
  'team@advisoraccelerator.com',
  extensions.crypt('advisor-team-2026', extensions.gen_salt('bf', 10)),
  now() - interval '90 days',
  '', '', '', '',
  '{"provider": "email", "providers": ["email"]}',
  '{"email_verified": true}',
  now() - interval '90 days',
  now() - interval '90 days'
)
on conflict (id) do nothing;

insert into auth.identities (provider_id, user_id, identity_data, provider, last_sign_in_at, created_at, updated_at)
values (
  '7a1e4b2c-3d5f-4e6a-8b9c-0d1e2f3a4b5c',
  '7a1e4b2c-3d5f-4e6a-8b9c-0d1e2f3a4b5c',
  '{"sub": "7a1e4b2c-3d5f-4e6a-8b9c-0d1e2f3a4b5c", "email": "team@advisoraccelerator.com", "email_verified": true, "phone_verified": false}',
  'email',
  now() - interval '90 days',
  now() - interval '90 days',
  now() - interval '90 days'
)
on conflict (provider_id, provider) do nothing;

insert into public.profiles (id, full_name)
values ('7a1e4b2c-3d5f-4e6a-8b9c-0d1e2f3a4b5c', 'Team Admin (demo)')
on conflict (id) do nothing;

insert into public.staff (user_id, role)
values ('7a1e4b2c-3d5f-4e6a-8b9c-0d1e2f3a4b5c', 'admin')
on conflict (user_id) do nothing;
