/**
 * Which addresses may sign someone in (supabase-js's `detectSessionInUrl`, src/lib/supabase.ts).
 * supabase-js takes a session from any address that carries one, `#access_token=…&refresh_token=…`
 * (or the same in the query), on every page that loads it: a link to `/portal#access_token=…`
 * with an attacker's tokens would sign the visitor in to the attacker's account, and what they
 * then enter lands there (login CSRF). Only one page expects a session in its address: the reset
 * page, where Auth's own redirect arrives after a reset or a new buyer's set-password link
 * (docs/operations.md, Accounts and the portal). Its e-mailed links carry a token hash, which the
 * page spends with verifyOtp when the person presses Continue; this is the fallback form.
 *
 * And a session already on the device is never replaced by one from an address: a link for
 * another account is refused, and the reset page says so and offers to sign out first
 * (src/features/auth/ResetPassword.tsx).
 */
import { claimsOf } from "../../packages/shared/jwt.ts";

/** The one page that takes a session from its address. */
export const URL_SESSION_PATH = "/reset-password";

/** What Auth's redirect to that page is for: a reset, or a new buyer's first password (src/features/auth/reset-link.ts). */
const URL_SESSION_TYPES: ReadonlySet<string> = new Set(["recovery", "invite"]);

/** The account a session's access token names (its `sub`, unverified: Auth checks the token when it is used). */
export function accountOf(accessToken: string | undefined): string | null {
  const sub = accessToken ? claimsOf(accessToken)?.sub : undefined;
  return typeof sub === "string" && sub ? sub : null;
}

/**
 * The account of the session supabase-js persisted, while it can still be used: it has a refresh
 * token, or an access token that has not expired (as src/features/auth/persisted-session.ts reads
 * it; not imported from there, which would take the marketing pages' inline account button script
 * into a chunk shared with supabase-js's pages).
 */
function storedAccount(stored: string | null, nowSeconds = Date.now() / 1000): string | null {
  let session: unknown;
  try {
    session = stored ? JSON.parse(stored) : null;
  } catch {
    return null;
  }
  if (!session || typeof session !== "object") return null;
  const { user, refresh_token, expires_at } = session as Record<string, unknown>;
  const id = user && typeof user === "object" ? (user as Record<string, unknown>).id : undefined;
  const usable =
    (typeof refresh_token === "string" && refresh_token !== "") ||
    (typeof expires_at === "number" && expires_at > nowSeconds);
  return typeof id === "string" && id !== "" && usable ? id : null;
}

/**
 * Whether supabase-js may sign in from this address: the reset page, Auth's redirect of a reset
 * or an invite, and no other account's session on the device (`stored`: the persisted session, as
 * supabase-js keeps it). An error in the address is not a session: the reset page shows it.
 */
export function acceptsSessionFromUrl(
  url: URL,
  params: Readonly<Record<string, string | undefined>>,
  stored: string | null,
): boolean {
  if (url.pathname !== URL_SESSION_PATH) return false;
  if (!URL_SESSION_TYPES.has(params.type ?? "")) return false;
  const account = accountOf(params.access_token);
  if (!account) return false;
  const current = storedAccount(stored);
  return current === null || current === account;
}
