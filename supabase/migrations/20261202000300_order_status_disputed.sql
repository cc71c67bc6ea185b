-- An order whose payment the buyer disputed with their bank (a chargeback): no access while the
-- dispute is open or after it is lost; `completed` again when the business wins it
-- (supabase/migrations/20261202000400_disputes.sql). A value of its own file: Postgres lets a new
-- enum value be used only once the transaction that added it has committed.
alter type public.order_status add value if not exists 'disputed' after 'completed';
