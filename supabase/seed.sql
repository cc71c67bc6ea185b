-- Demo data for local development: one customer who bought Growth Mindset Mastery and has an
-- AI Advisor Accelerator payment pending. Sign in as demo@advisoraccelerator.com with the
-- password printed by `npm start` (the local stack sets it; this file only creates the rows).
insert into auth.users (id, email, email_confirmed_at, raw_app_meta_data)
values (
  '5f0d1c2e-8a3b-4c6d-9e7f-0a1b2c3d4e5f',
  'demo@advisoraccelerator.com',
  now(),
  '{"provider": "email", "providers": ["email"]}'
)
on conflict (id) do nothing;

insert into public.profiles (id, full_name, city, state, country)
values ('5f0d1c2e-8a3b-4c6d-9e7f-0a1b2c3d4e5f', 'Dana Whitaker', 'Austin', 'TX', 'United States')
on conflict (id) do nothing;

insert into public.stripe_customers (user_id, customer_id)
values ('5f0d1c2e-8a3b-4c6d-9e7f-0a1b2c3d4e5f', 'cus_DemoCustomer01')
on conflict (user_id) do nothing;

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
