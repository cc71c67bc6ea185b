/**
 * The service-role supabase-js client. WARNING: it bypasses row level security and can act on
 * every account; only server functions hold its key, and only for what the webhook records.
 */
import { createClient, type SupabaseClient } from "@supabase/supabase-js";
import { type Env, required } from "./env.ts";

const clients = new Map<string, SupabaseClient>();

export function adminClient(env: Env): SupabaseClient {
  const { SUPABASE_URL, SUPABASE_SERVICE_ROLE_KEY } = required(env, ["SUPABASE_URL", "SUPABASE_SERVICE_ROLE_KEY"]);
  const id = `${SUPABASE_URL}|${SUPABASE_SERVICE_ROLE_KEY}`;
  let client = clients.get(id);
  if (!client) {
    client = createClient(SUPABASE_URL, SUPABASE_SERVICE_ROLE_KEY, {
      auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
    });
    clients.set(id, client);
  }
  return client;
}
