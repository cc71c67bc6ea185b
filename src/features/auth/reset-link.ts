/**
 * What the reset page makes of its address (docs/product.md, States and transitions, Reset password):
 * - `?token_hash=…&type=recovery` (the e-mailed reset link, supabase/templates/recovery.html) or
 *   `type=invite` (a buyer's set-password link, supabase/templates/invite.html): a Continue
 *   step, so a mail scanner that opens the link does not spend the one-time token;
 * - an error (`error_description`, `error` or `error_code`, in the query or the fragment, as Auth
 *   redirects with them): the error view, showing the description as text;
 * - `#access_token=…&type=recovery` or `type=invite` (Auth's own redirect): supabase-js signs in
 *   from it (reporting PASSWORD_RECOVERY for a recovery), unless another account is signed in on
 *   the device (src/lib/url-session.ts): `account` names the link's, so the page can tell;
 * - nothing: the page waits for the session, and without one shows the no-token error.
 */
import { accountOf } from "~/lib/url-session";

export const DEFAULT_LINK_ERROR = "The password reset link is invalid or has expired. Please request a new one.";
export const NO_TOKEN_ERROR = "Invalid or expired reset link. Please request a new password reset.";

/**
 * A buyer's set-password link that cannot be used (spent, or older than Auth's hour:
 * supabase/config.toml `otp_expiry`), in words for someone who never had a password: the spec's
 * reset wording would ask them to reset one. The forgot-password page sends a new link.
 */
export const INVITE_LINK_ERROR =
  "This link has expired. Links work once and for an hour. Enter your e-mail on the password page and we will send a new one.";

/**
 * What the link is for, as Auth names the one-time token (`verifyOtp`'s `type`): resetting a
 * forgotten password, or choosing the first one of an account made for a buyer.
 */
export type LinkType = "recovery" | "invite";

export type ResetLink =
  | { kind: "error"; message: string }
  | { kind: "token-hash"; tokenHash: string; type: LinkType }
  | { kind: "fragment"; type: LinkType; account: string | null }
  | { kind: "none" };

/** The link's type; a token hash without one is a recovery, as the page always read it. */
function linkType(type: string | null, fallback: LinkType | null): LinkType | null {
  if (type === "recovery" || type === "invite") return type;
  return type === null ? fallback : null;
}

/** Query and fragment parameters together, the query winning, as supabase-js reads them. */
function parameters(url: URL): URLSearchParams {
  const merged = new URLSearchParams(url.hash.startsWith("#") ? url.hash.slice(1) : "");
  url.searchParams.forEach((value, key) => merged.set(key, value));
  return merged;
}

export function readResetLink(href: string): ResetLink {
  const params = parameters(new URL(href));
  // URLSearchParams already reads "+" as a space, the way Auth encodes the description.
  const description = params.get("error_description")?.trim();
  if (description) return { kind: "error", message: description };
  if (params.has("error") || params.has("error_code")) return { kind: "error", message: DEFAULT_LINK_ERROR };
  const tokenHash = params.get("token_hash");
  const tokenType = linkType(params.get("type"), "recovery");
  if (tokenHash && tokenType) return { kind: "token-hash", tokenHash, type: tokenType };
  const sessionType = linkType(params.get("type"), null);
  const accessToken = params.get("access_token");
  if (accessToken && sessionType) return { kind: "fragment", type: sessionType, account: accountOf(accessToken) };
  return { kind: "none" };
}

export const MIN_PASSWORD_LENGTH = 6;

/** The rule, said under the field before anything is typed (docs/product.md, Validation rules). */
export const PASSWORD_HINT = `At least ${MIN_PASSWORD_LENGTH} characters.`;

/** The new password's problem, in the spec's words, or null when it may be sent. */
export function passwordProblem(password: string, confirmation: string): string | null {
  if (password !== confirmation) return "Passwords do not match";
  if (password.length < MIN_PASSWORD_LENGTH) return `Password must be at least ${MIN_PASSWORD_LENGTH} characters long`;
  return null;
}
