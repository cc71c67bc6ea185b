/**
 * The session supabase-js persisted, read without supabase-js: what the header's account button
 * on marketing pages needs to show Login or Portal. Kept apart from the session store (and from
 * every module the supabase pages load) so that the button's script stays small and inline.
 */

/** Who a persisted session belongs to. */
export interface PersistedUser {
  id: string;
  email?: string;
}

/**
 * Reads a persisted supabase-js session. A session counts while it has a user and either a
 * refresh token (supabase-js renews it) or an access token that has not expired.
 */
export function userFromPersistedSession(raw: string | null, nowSeconds = Date.now() / 1000): PersistedUser | null {
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

/**
 * Calls `onChange` with the persisted session's user now and whenever another tab signs in or
 * out. A session kept for this browsing session only (Remember me unchecked) is in sessionStorage
 * and wins over one in localStorage. Returns the function that stops watching.
 */
export function watchPersistedSession(key: string, onChange: (user: PersistedUser | null) => void): () => void {
  const read = (): string | null => {
    try {
      return window.sessionStorage.getItem(key) ?? window.localStorage.getItem(key);
    } catch {
      // Storage blocked (privacy mode): nobody can be signed in on this device.
      return null;
    }
  };
  onChange(userFromPersistedSession(read()));
  const onStorage = (event: StorageEvent) => {
    // Other tabs share localStorage only.
    if (event.storageArea !== window.localStorage || (event.key !== key && event.key !== null)) return;
    onChange(userFromPersistedSession(read()));
  };
  window.addEventListener("storage", onStorage);
  return () => window.removeEventListener("storage", onStorage);
}
