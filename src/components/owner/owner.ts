/**
 * What a page that sells programs asks to know whether the visitor owns one (OwnerSwitch.astro):
 * the access token of the session supabase-js persisted, while it is still valid, and the programs
 * the caller's completed orders name, read from PostgREST with that token. No supabase-js.
 *
 * The session is read by the rule of src/features/auth/persisted-session.ts (sessionStorage, then
 * localStorage; a user and a usable session), tightened to what a request needs: an access token
 * that has not expired, since nothing here renews one. It is not imported from there: a module
 * this script shared with the header's account button would become a chunk of its own, and both
 * scripts, on every page, external modules instead of inline ones (as src/lib/url-session.ts notes).
 * tests/unit/owner.test.ts holds the two readings together.
 */

/**
 * The access token of a persisted supabase-js session, while it has a user and has not expired
 * (`expires_at`, in seconds); null otherwise. An expired one is not refreshed: the page keeps
 * selling the program, and the portal renews the session when the visitor goes there.
 */
export function accessTokenOf(raw: string | null, nowSeconds = Date.now() / 1000): string | null {
  try {
    // JSON.parse(null) is null, whose properties throw: nobody is signed in.
    const { user, access_token: token, expires_at: expires } = JSON.parse(raw!) as Record<string, unknown>;
    const id = (user as { id?: unknown } | null)?.id;
    return typeof id === "string" &&
      id &&
      typeof expires === "number" &&
      expires > nowSeconds &&
      typeof token === "string"
      ? token || null
      : null;
  } catch {
    return null;
  }
}

/** The access token of the session stored under `key`: sessionStorage first (Remember me unchecked), as supabase-js reads it. */
export function storedAccessToken(key: string, nowSeconds?: number): string | null {
  try {
    return accessTokenOf(sessionStorage.getItem(key) ?? localStorage.getItem(key), nowSeconds);
  } catch {
    // Storage blocked (privacy mode): nobody can be signed in on this device.
    return null;
  }
}

/**
 * The programs (checkout keys) the caller owns: their completed orders, as the member area's
 * access rule counts them (`has_program_access`, supabase/migrations/20261126000100_member_area.sql),
 * read through the view `stripe_user_orders` at `ordersUrl`, which row level security keeps to the
 * token's account. A refused token, a failed request or an answer that is not a list of orders
 * owns nothing.
 */
export async function ownedPrograms(
  ordersUrl: string,
  apiKey: string,
  accessToken: string,
  fetcher: typeof fetch = fetch,
): Promise<string[]> {
  try {
    const response = await fetcher(`${ordersUrl}?select=product_key&order_status=eq.completed`, {
      headers: { apikey: apiKey, Authorization: `Bearer ${accessToken}` },
    });
    if (!response.ok) return [];
    // Anything but a list of rows throws here.
    return ((await response.json()) as { product_key: string }[]).map((row) => row.product_key);
  } catch {
    return [];
  }
}
