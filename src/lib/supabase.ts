/**
 * The one browser supabase client (docs/architecture.md, Client state). Only the pages that act on
 * the session import it (login, forgot and reset password, checkout, portal); marketing pages
 * never load supabase-js. Importing it makes supabase-js the driver of the session store: its
 * `onAuthStateChange`, subscribed once here, reports every auth event to `$auth`/`$authEvent`.
 */
import { createClient } from "@supabase/supabase-js";
import { PUBLIC_SUPABASE_ANON_KEY, PUBLIC_SUPABASE_URL } from "astro:env/client";
import { applyAuthEvent, type AuthEvent } from "~/stores/session";
import { browserStorage, rememberMeStorage } from "./auth-storage";
import type { Database } from "./database";
import { sessionStorageKey } from "./session-key";
import { acceptsSessionFromUrl } from "./url-session";

const storageKey = sessionStorageKey(PUBLIC_SUPABASE_URL);

/** Where the session is kept: the login form's Remember me chooses (src/lib/auth-storage.ts). */
export const authStorage = rememberMeStorage(
  browserStorage("localStorage"),
  browserStorage("sessionStorage"),
  storageKey,
);

export const supabase = createClient<Database>(PUBLIC_SUPABASE_URL, PUBLIC_SUPABASE_ANON_KEY, {
  auth: {
    storageKey,
    storage: authStorage,
    persistSession: true,
    autoRefreshToken: true,
    // A session in the address is taken on the reset page alone, from Auth's redirect of a reset or
    // an invite, and never over another account's (src/lib/url-session.ts); it then signs in and
    // reports PASSWORD_RECOVERY for a reset. Like the session a reset link's Continue opens, it is
    // kept for this tab only. The site never starts a PKCE flow, so no `?code=` is exchanged either
    // (auth-js does so only with a code verifier it stored itself).
    detectSessionInUrl: (url, params) => {
      const accepted = acceptsSessionFromUrl(url, params, authStorage.getItem(storageKey));
      if (accepted) authStorage.remember(false);
      return accepted;
    },
  },
});

// Never call supabase from inside this callback: auth-js holds its lock while it runs.
supabase.auth.onAuthStateChange((event, session) => applyAuthEvent(event as AuthEvent, session?.user ?? null));
