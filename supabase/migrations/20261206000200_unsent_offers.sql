-- An offer whose e-mail could not be sent is taken back by the function that sent it
-- (functions/send-offer/handler.ts): nobody holds its link, so the desk must not list it as sent.
-- Only the service role deletes, and only that function does.
grant delete on public.coached_offers to service_role;
