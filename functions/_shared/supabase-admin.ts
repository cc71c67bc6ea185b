/**
 * The service-role supabase-js client (WARNING: it bypasses row level security and can act on
 * every account; only server functions hold its key), and a client acting as a function's caller.
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

/** The caller's access token, from `Authorization: Bearer …` (supabase-js `functions.invoke` sends it); "" without one. */
export function bearerToken(request: Request): string {
  return /^Bearer\s+(\S+)$/i.exec(request.headers.get("authorization") ?? "")?.[1] ?? "";
}

/**
 * A supabase-js client acting as the caller, under their own token: the database's rules (row
 * level security, `is_staff`, `can_read_download`) decide what it may read, as they would for the
 * caller's browser. One per request: the token is the caller's.
 */
export function callerClient(env: Env, token: string): SupabaseClient {
  const { SUPABASE_URL, SUPABASE_ANON_KEY } = required(env, ["SUPABASE_URL", "SUPABASE_ANON_KEY"]);
  return createClient(SUPABASE_URL, SUPABASE_ANON_KEY, {
    auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
    global: { headers: { authorization: `Bearer ${token}` } },
  });
}
