/**
 * The session store: one source of truth for "who is signed in" (docs/architecture.md, Client state).
 *
 * On marketing pages it is fed by the session supabase-js persisted (in sessionStorage when the
 * visitor signed in without "Remember me", else in localStorage, src/lib/auth-storage.ts) and by
 * `storage` events from other tabs, so the header knows Login vs Portal without loading
 * supabase-js. On the pages that load supabase-js, its `onAuthStateChange` drives the store
 * (src/lib/supabase.ts, the one listener).
 */
import { atom, onMount } from "nanostores";
import { sessionStorageKey } from "../lib/session-key";

export { sessionStorageKey };

export interface SessionUser {
  id: string;
  email?: string;
  /** When the account was created (ISO 8601), known where supabase-js drives the store. */
  createdAt?: string;
}

/** The auth events the store follows (docs/product.md §4). */
export type AuthEvent =
  | "INITIAL_SESSION"
  | "SIGNED_IN"
  | "SIGNED_OUT"
  | "TOKEN_REFRESHED"
  | "USER_UPDATED"
  | "PASSWORD_RECOVERY"
  | "MFA_CHALLENGE_VERIFIED";

export type AuthState = { status: "loading" } | { status: "signed-in"; user: SessionUser } | { status: "signed-out" };

export const $auth = atom<AuthState>({ status: "loading" });

/** The last auth event supabase-js reported on this page (the reset page waits for PASSWORD_RECOVERY). */
export const $authEvent = atom<AuthEvent | null>(null);

/**
 * Reads a persisted supabase-js session. A session counts while it has a user and either a
 * refresh token (supabase-js renews it) or an access token that has not expired.
 */
export function userFromPersistedSession(raw: string | null, nowSeconds = Date.now() / 1000): SessionUser | null {
  if (!raw) return null;
  let session: unknown;
  try {
    session = JSON.parse(raw);
  } catch {
    return null;
  }
  if (!session || typeof session !== "object") return null;
  const s = session as Record<string, unknown>;
  const user = s.user as Record<string, unknown> | undefined;
  if (!user || typeof user.id !== "string" || !user.id) return null;
  const renewable = typeof s.refresh_token === "string" && s.refresh_token.length > 0;
  const unexpired = typeof s.expires_at === "number" && s.expires_at > nowSeconds;
  if (!renewable && !unexpired) return null;
  return { id: user.id, email: typeof user.email === "string" ? user.email : undefined };
}

export function setSignedIn(user: SessionUser): void {
  $auth.set({ status: "signed-in", user });
}

export function setSignedOut(): void {
  $auth.set({ status: "signed-out" });
}

/** Applies one supabase-js auth event: who is signed in after it, and which event it was. */
export function applyAuthEvent(
  event: AuthEvent,
  user: { id: string; email?: string; created_at?: string } | null,
): void {
  $authEvent.set(event);
  if (user) setSignedIn({ id: user.id, email: user.email, createdAt: user.created_at });
  else setSignedOut();
}

/** Set by pages where supabase-js drives the store, so the persisted-session reader stays out. */
let drivenBySupabase = false;

export function markDrivenBySupabase(): void {
  drivenBySupabase = true;
}

function applyPersisted(raw: string | null): void {
  const user = userFromPersistedSession(raw);
  if (user) setSignedIn(user);
  else setSignedOut();
}

onMount($auth, () => {
  if (drivenBySupabase || typeof window === "undefined") return;
  // Computed by the build, so the page carries the key and not the project's URL.
  const key = __SESSION_STORAGE_KEY__;
  let raw: string | null = null;
  try {
    // A session kept for this browsing session only (Remember me unchecked) is in sessionStorage.
    raw = window.sessionStorage.getItem(key) ?? window.localStorage.getItem(key);
  } catch {
    // Storage blocked (privacy mode): nobody can be signed in on this device.
  }
  applyPersisted(raw);
  const onStorage = (event: StorageEvent) => {
    // Other tabs share localStorage only; this tab's sessionStorage session does not change there.
    if (event.storageArea !== window.localStorage || (event.key !== key && event.key !== null)) return;
    applyPersisted(window.sessionStorage.getItem(key) ?? event.newValue);
  };
  window.addEventListener("storage", onStorage);
  return () => window.removeEventListener("storage", onStorage);
});
