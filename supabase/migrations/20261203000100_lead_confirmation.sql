-- The visitor's confirmation of a consultation request (functions/leads/handler.ts,
-- functions/_shared/emails.ts `leadConfirmationEmail`): one short e-mail per stored lead, in the
-- business's own words, sent after the business's notification. Its status lives on the lead's
-- row beside the notification's, and the same pair of functions as the notification's
-- (20261128000100_leads.sql) lets one sender at a time send it, so a mail outage keeps it owed and
-- a later request sends it.

-- none: not owed (the leads kept before there was a confirmation, or a row written by hand: nobody
-- was told to expect one); pending: not sent yet (being sent, or waiting for another try:
-- confirm_error says why); sent; failed: given up, after repeated failures or a day unsent.
alter table public.leads
  add column confirm_status text not null default 'none'
    check (confirm_status in ('none', 'pending', 'sent', 'failed')),
  add column confirm_attempts int not null default 0,
  add column confirm_claimed_at timestamptz,
  add column confirm_error text check (char_length(confirm_error) <= 1000),
  add column confirm_provider_id text check (char_length(confirm_provider_id) <= 200),
  add column confirmed_at timestamptz;
comment on table public.leads is
  'Consultation requests from the lead pages (functions/leads), with first-touch attribution, the business notification''s status and the visitor confirmation''s. Service role only.';
create index leads_unconfirmed_idx on public.leads (created_at) where confirm_status = 'pending';

-- Up to `p_limit` leads whose confirmation is owed and that nobody is sending (claimed more than
-- two minutes ago, or never), oldest first, claimed for the caller. A confirmation still unsent a
-- day after its request is given up first: it would arrive after the reply it promises.
create function public.claim_lead_confirmations(p_limit int default 3) returns setof public.leads
  language sql set search_path = ''
as $$
  update public.leads
  set confirm_status = 'failed',
      confirm_error = 'Not sent within a day of the request: no longer sent.',
      confirm_claimed_at = null
  where confirm_status = 'pending' and created_at < now() - interval '1 day'
    and (confirm_claimed_at is null or confirm_claimed_at < now() - interval '2 minutes');

  update public.leads
  set confirm_claimed_at = now(), confirm_attempts = confirm_attempts + 1
  where id in (
    select id from public.leads
    where confirm_status = 'pending'
      and (confirm_claimed_at is null or confirm_claimed_at < now() - interval '2 minutes')
    order by created_at
    limit least(greatest(p_limit, 0), 20)
    for update skip locked
  )
  returning *
$$;
revoke execute on function public.claim_lead_confirmations(int) from public, anon, authenticated;
grant execute on function public.claim_lead_confirmations(int) to service_role;

-- Ends a claim: sent, or owed again with the error (failed after `p_max_attempts`).
create function public.finish_lead_confirmation(
  p_id uuid,
  p_provider_id text default null,
  p_error text default null,
  p_max_attempts int default 8
) returns text
  language sql set search_path = ''
as $$
  update public.leads
  set confirm_status = case
        when p_error is null then 'sent'
        when confirm_attempts >= p_max_attempts then 'failed'
        else 'pending' end,
      confirmed_at = case when p_error is null then now() end,
      confirm_provider_id = coalesce(p_provider_id, confirm_provider_id),
      confirm_error = left(p_error, 1000),
      confirm_claimed_at = case when p_error is null then confirm_claimed_at end
  where id = p_id and confirm_status = 'pending'
  returning confirm_status
$$;
revoke execute on function public.finish_lead_confirmation(uuid, text, text, int) from public, anon, authenticated;
grant execute on function public.finish_lead_confirmation(uuid, text, text, int) to service_role;
