/**
 * `/verify`, as GoTrue's api/verify.go answers it: an e-mailed link (GET, the link itself, which
 * redirects with the session or the error in the fragment) or `verifyOtp` (POST, with the token
 * hash or with the e-mail and the code). Either finds the user the token was issued to, refuses
 * an expired or spent one, spends it (confirming the address; an invited user without a password
 * gets a random one) and signs the user in. Dev and test only.
 */
import { randomBytes } from "node:crypto";
import bcrypt from "bcryptjs";
import type { Sql } from "../db.ts";
import { type Context, json } from "../http.ts";
import { AuthError } from "./errors.ts";
import { readJson, redirectFor, text } from "./helpers.ts";
import { tokenHash, validEmail } from "./mail.ts";
import { limit } from "./rate-limit.ts";
import { issueSession } from "./sessions.ts";
import { BCRYPT_COST, banned, confirm, storePassword, userByEmail, userById, type UserRow } from "./users.ts";

/** What each e-mailed link's type spends (GoTrue's `verifyTokenHash`): the one-time tokens of that kind. */
const TOKEN_TYPES: Record<string, string[]> = {
  signup: ["confirmation_token"],
  invite: ["confirmation_token"],
  recovery: ["recovery_token"],
  magiclink: ["recovery_token"],
  email: ["confirmation_token", "recovery_token"],
  email_change: ["email_change_token_current", "email_change_token_new"],
};

interface Tokens {
  confirmation_token: string | null;
  recovery_token: string | null;
}

const tokensOf = async (sql: Sql, id: string) =>
  (await sql.query<Tokens>("select confirmation_token, recovery_token from auth.users where id = $1", [id])).rows[0]!;

/** GoTrue's `isOtpExpired`: `otp_expiry` seconds after the link was sent. */
const isExpired = (sentAt: string | null, context: Context) =>
  Date.now() > (sentAt ? new Date(sentAt).getTime() : 0) + context.config.auth.email.otpExpiry * 1000;

/**
 * GoTrue's `verifyTokenHash`: the user a link's token hash was issued to, found through
 * auth.one_time_tokens, if the link has not expired; and the type it verifies as (`email`
 * becomes `signup` or `magiclink`, by the token it matched).
 */
async function userForTokenHash(sql: Sql, context: Context, type: string, hash: string) {
  const kinds = TOKEN_TYPES[type];
  if (!kinds) throw new AuthError(400, "validation_failed", "Invalid email verification type");
  const { rows } = await sql.query<{ user_id: string }>(
    `select user_id from auth.one_time_tokens where token_hash = $1 and token_type in (${kinds.map((k) => `'${k}'`).join(", ")}) limit 1`,
    [hash],
  );
  const expired = new AuthError(403, "otp_expired", "Email link is invalid or has expired");
  const user = rows[0] && (await userById(sql, rows[0].user_id));
  if (!user) throw expired;
  if (banned(user)) throw new AuthError(403, "user_banned", "User is banned");
  if (type === "email_change") {
    throw new AuthError(422, "validation_failed", "Changing the e-mail address is not available in the local stack");
  }
  let verified = type;
  let sentAt = kinds[0] === "confirmation_token" ? user.confirmation_sent_at : user.recovery_sent_at;
  if (type === "email") {
    const recovery = (await tokensOf(sql, user.id)).recovery_token === hash;
    verified = recovery ? "magiclink" : "signup";
    sentAt = recovery ? user.recovery_sent_at : user.confirmation_sent_at;
  }
  if (isExpired(sentAt, context)) throw expired;
  return { user, type: verified };
}

/**
 * GoTrue's `verifyUserAndToken`: the user of `email` when the e-mailed code matches the token
 * the user row keeps for that type (`email` tries the confirmation token, then the recovery one).
 */
async function userForCode(sql: Sql, context: Context, type: string, email: string, hash: string) {
  const invalid = new AuthError(403, "otp_expired", "Token has expired or is invalid");
  const user = await userByEmail(sql, email);
  if (!user) throw invalid;
  if (banned(user)) throw new AuthError(403, "user_banned", "User is banned");
  const tokens = await tokensOf(sql, user.id);
  // GoTrue's `isOtpValid`: a token is set, not expired, and equal (PKCE tokens carry a prefix).
  const valid = (expected: string | null, sentAt: string | null) =>
    !!expected && !!sentAt && !isExpired(sentAt, context) && (hash === expected || `pkce_${hash}` === expected);
  const confirmation = valid(tokens.confirmation_token, user.confirmation_sent_at);
  const recovery = valid(tokens.recovery_token, user.recovery_sent_at);
  if (type === "email" && (confirmation || recovery)) return { user, type: confirmation ? "signup" : "magiclink" };
  if ((type === "signup" || type === "invite") && confirmation) return { user, type };
  if ((type === "recovery" || type === "magiclink") && recovery) return { user, type };
  throw invalid;
}

/**
 * GoTrue's `signupVerify`: an invited user without a password gets a random one first (the
 * application then asks them to choose theirs), then the address is confirmed, on the user and
 * on its e-mail identity.
 */
async function signupVerify(sql: Sql, user: UserRow) {
  if (!user.encrypted_password && user.invited_at) {
    await storePassword(sql, user, await bcrypt.hash(randomBytes(48).toString("base64url"), BCRYPT_COST), null);
  }
  await confirm(sql, user);
  await sql.query(
    `update auth.identities set identity_data = identity_data || '{"email_verified": true}'::jsonb, updated_at = now()
     where user_id = $1 and email = $2`,
    [user.id, user.email],
  );
}

/** GoTrue's `recoverVerify`: spends the user's links and confirms an unconfirmed address. */
async function recoverVerify(sql: Sql, user: UserRow) {
  await sql.query("update auth.users set recovery_token = '' where id = $1", [user.id]);
  await sql.query("delete from auth.one_time_tokens where user_id = $1", [user.id]);
  if (!user.email_confirmed_at) await confirm(sql, user);
}

/** Spends a verified link or code and signs its user in (the tail of GoTrue's `verifyGet` and `verifyPost`). */
async function spendAndSignIn(sql: Sql, context: Context, user: UserRow, type: string, request: Request) {
  if (type === "signup" || type === "invite") await signupVerify(sql, user);
  else await recoverVerify(sql, user);
  return issueSession(sql, context, (await userById(sql, user.id))!, "otp", request);
}

/** Go's `url.Values.Encode`: keys sorted, spaces as `+`. */
function encodeValues(values: Record<string, string>): string {
  return Object.keys(values)
    .sort()
    .map((key) => `${encodeURIComponent(key)}=${encodeURIComponent(values[key]!).replace(/%20/g, "+")}`)
    .join("&");
}

/** GoTrue's OAuth error names, by HTTP status. */
const OAUTH_ERRORS: Record<number, string> = {
  400: "invalid_request",
  401: "unauthorized_client",
  403: "access_denied",
  500: "server_error",
  503: "temporarily_unavailable",
};

/** The e-mailed link (GET `/verify`, GoTrue's `verifyGet`): spends the token and redirects with the session, or the error, in the fragment. */
export async function verifyLink(url: URL, request: Request, context: Context): Promise<Response> {
  limit(context, "verify");
  const redirectTo = redirectFor(request, context);
  const type = url.searchParams.get("type") ?? "";
  const token = url.searchParams.get("token") ?? "";
  if (!type) throw new AuthError(400, "validation_failed", "Verify requires a verification type");
  if (!token) throw new AuthError(400, "validation_failed", "Verify requires a token or a token hash");
  const base = redirectTo.split("#")[0]!;
  try {
    const { session, verified } = await context.db.transaction(async (tx) => {
      const found = await userForTokenHash(tx, context, type, token);
      return { session: await spendAndSignIn(tx, context, found.user, found.type, request), verified: found.type };
    });
    const fragment = encodeValues({
      access_token: session.access_token,
      expires_at: String(session.expires_at),
      expires_in: String(session.expires_in),
      refresh_token: session.refresh_token,
      sb: "",
      token_type: "bearer",
      type: verified,
    });
    return new Response(null, { status: 303, headers: { location: `${base}#${fragment}` } });
  } catch (error) {
    if (!(error instanceof AuthError)) throw error;
    const values: Record<string, string> = { error_code: error.code, error_description: error.message, sb: "" };
    if (OAUTH_ERRORS[error.status]) values.error = OAUTH_ERRORS[error.status]!;
    return new Response(null, { status: 303, headers: { location: `${base}#${encodeValues(values)}` } });
  }
}

/** `verifyOtp` (POST `/verify`, GoTrue's `verifyPost`): with `token_hash`, or with `email` and the code; answers the session. */
export async function verifyPost(request: Request, context: Context): Promise<Response> {
  limit(context, "verify");
  const body = await readJson(request);
  const type = text(body.type);
  if (!type) throw new AuthError(400, "validation_failed", "Verify requires a verification type");
  const token = text(body.token);
  const hash = text(body.token_hash);
  if ((!token && !hash) || (token && hash)) {
    throw new AuthError(400, "validation_failed", "Verify requires either a token or a token hash");
  }
  let email = "";
  if (token) {
    if (text(body.phone) || !text(body.email)) {
      throw new AuthError(
        400,
        "validation_failed",
        "Only an email address or phone number should be provided on verify",
      );
    }
    // GoTrue's `verifyPost` answers any refusal of `validateEmail` with this 422.
    try {
      email = validEmail(body.email);
    } catch {
      throw new AuthError(422, "validation_failed", "Invalid email format");
    }
  } else if (text(body.email) || text(body.phone) || text(body.redirect_to)) {
    throw new AuthError(400, "validation_failed", "Only the token_hash and type should be provided");
  }
  const session = await context.db.transaction(async (tx) => {
    const found = token
      ? await userForCode(tx, context, type, email, tokenHash(email, token))
      : await userForTokenHash(tx, context, type, hash);
    return spendAndSignIn(tx, context, found.user, found.type, request);
  });
  return json(session);
}
