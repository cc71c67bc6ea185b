-- The desk's Offers view shows a paid offer's plan as the buyer's purchase history does ("2 of 6
-- paid, next $6,000 on March 1", past due since …): admins read a plan by the offer it pays
-- (payment_plans' policy "Admins read every plan"; a customer reads only their own, by order).
grant select (offer_id) on public.payment_plans to authenticated;
