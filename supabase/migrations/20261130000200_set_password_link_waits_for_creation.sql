-- A new buyer's set-password link, made once (20261127000100_after_payment.sql, section 7).
-- The delivery that creates the buyer's account makes their link with it (the admin invite) and
-- keeps it when it records its event. Between the two, the account already exists: a concurrent
-- delivery for the same buyer that found it could reach its access e-mail first, see no link yet,
-- and make a second one, which kills the first (Auth keeps one token per account), so some of the
-- buyer's e-mails carried a dead link. While the address is claimed for creating the account
-- (buyer_invites: no user_id yet, claimed within the two minutes claim_buyer_invite honours), a
-- caller now waits for that link instead of making one. A row this function adds for an account
-- the webhook did not create is claimed for its link in the same statement, so it never reads as
-- an account being created.
create or replace function public.set_password_link(p_email text) returns jsonb
  language plpgsql set search_path = ''
as $$
declare
  row public.buyer_invites;
begin
  insert into public.buyer_invites (email, link_claimed_at) values (lower(p_email), now())
  on conflict (email) do nothing;
  if found then
    return jsonb_build_object('claimed', true);
  end if;
  select * into row from public.buyer_invites where email = lower(p_email) for update;
  if row.link_token_hash is not null and row.link_created_at > now() - interval '45 minutes' then
    return jsonb_build_object('hash', row.link_token_hash);
  end if;
  if row.user_id is null and row.link_claimed_at is null and row.claimed_at > now() - interval '2 minutes' then
    return jsonb_build_object('claimed', false);
  end if;
  if row.link_claimed_at is null or row.link_claimed_at < now() - interval '1 minute' then
    update public.buyer_invites set link_claimed_at = now() where email = row.email;
    return jsonb_build_object('claimed', true);
  end if;
  return jsonb_build_object('claimed', false);
end
$$;
revoke execute on function public.set_password_link(text) from public, anon, authenticated;
grant execute on function public.set_password_link(text) to service_role;
