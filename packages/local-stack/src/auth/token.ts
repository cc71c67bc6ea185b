/**
 * `POST /token`, as GoTrue's api/token.go and api/token_refresh.go answer it: the grant named by
 * `grant_type`, under the `/token` rate limit. `password` is `signInWithPassword` (refused for an
 * unconfirmed e-mail); `refresh_token` is `refreshSession` with refresh tokens of GoTrue's second
 * algorithm (packages/local-stack/src/auth/refresh-token.ts), which tells a current token from a
 * replayed or leaked one. Both answer a session (packages/local-stack/src/auth/sessions.ts). Dev
 * and test only.
 */
import bcrypt from "bcryptjs";
import { type Context, json } from "../http.ts";
import { AuthError } from "./errors.ts";
import { readJson, text } from "./helpers.ts";
import { limit } from "./rate-limit.ts";
import { encodeRefreshToken, parseRefreshToken, signedWith } from "./refresh-token.ts";
import { issueSession, sessionAnswer, type SessionRow } from "./sessions.ts";
import { banned, userByEmail, userById } from "./users.ts";

/** GoTrue's `Token`: the grants this stand-in knows, each under the `/token` limiter. */
export async function token(url: URL, request: Request, context: Context): Promise<Response> {
  const grant = url.searchParams.get("grant_type");
  if (grant !== "password" && grant !== "refresh_token") {
    throw new AuthError(400, "invalid_credentials", "unsupported_grant_type");
  }
  limit(context, "token");
  return grant === "password" ? signIn(request, context) : refresh(request, context);
}

/** `signInWithPassword` (GoTrue's `ResourceOwnerPasswordGrant`). */
async function signIn(request: Request, context: Context): Promise<Response> {
  const body = await readJson(request);
  const email = text(body.email);
  const phone = text(body.phone);
  const password = text(body.password);
  if (email && phone) {
    throw new AuthError(400, "validation_failed", "Only an email address or phone number should be provided on login.");
  }
  if (!email) throw new AuthError(400, "validation_failed", "missing email or phone");
  const invalid = new AuthError(400, "invalid_credentials", "Invalid login credentials");
  const user = await userByEmail(context.db, email);
  if (!user || !user.encrypted_password) throw invalid;
  if (banned(user)) throw new AuthError(400, "user_banned", "User is banned");
  if (!(await bcrypt.compare(password, user.encrypted_password))) throw invalid;
  if (!user.confirmed_at) throw new AuthError(400, "email_not_confirmed", "Email not confirmed");
  return json(await context.db.transaction((tx) => issueSession(tx, context, user, "password", request)));
}

/** `refreshSession` (GoTrue's `RefreshTokenGrant`, second algorithm). */
async function refresh(request: Request, context: Context): Promise<Response> {
  const body = await readJson(request);
  const presented = text(body.refresh_token);
  if (!presented) return json({ error: "invalid_request", error_description: "refresh_token required" }, 400);
  const invalidFormat = new AuthError(400, "validation_failed", "Refresh token is not valid");
  if (presented.length < 12) throw invalidFormat;
  if (presented.length === 12 && !/^[a-z0-9]{12}$/.test(presented)) throw invalidFormat;
  const notFound = new AuthError(400, "refresh_token_not_found", "Invalid Refresh Token: Refresh Token Not Found");
  // A 12-character token is GoTrue's first algorithm; this stack never issues one.
  if (presented.length === 12) throw notFound;
  const token = parseRefreshToken(presented);
  if (!token) throw invalidFormat;
  const started = Date.now();
  const { auth } = context.config;

  const answer = await context.db.transaction(async (tx) => {
    const { rows } = await tx.query<SessionRow>(
      `select id, user_id, not_after, refresh_token_hmac_key, refresh_token_counter,
         extract(epoch from coalesce(refreshed_at at time zone 'utc', created_at)) * 1000 as last_refresh
       from auth.sessions where id = $1 for update`,
      [token.sessionId],
    );
    const session = rows[0];
    if (!session || session.refresh_token_hmac_key === null || session.refresh_token_counter === null) throw notFound;
    if (!signedWith(token, session.refresh_token_hmac_key)) throw notFound;
    const user = await userById(tx, session.user_id);
    if (!user) throw notFound;
    if (banned(user)) throw new AuthError(400, "user_banned", "Invalid Refresh Token: User Banned");
    if (session.not_after && new Date(session.not_after).getTime() < started) {
      throw new AuthError(400, "session_expired", "Invalid Refresh Token: Session Expired");
    }
    const current = Number(session.refresh_token_counter);
    const behind = current - token.counter;
    let counter: number;
    if (behind < 0) {
      throw new AuthError(400, "validation_failed", "Invalid Refresh Token: Not Issued By This Server");
    } else if (behind === 0) {
      counter = current + 1;
    } else {
      // The token before the current one (the client did not save the last answer), or any
      // older one within the reuse interval of the last refresh (concurrent tabs), gets the
      // current token again; any other reuse means the token leaked.
      const concurrent = Math.abs(started - Number(session.last_refresh)) < auth.refreshTokenReuseInterval * 1000;
      if (behind === 1 || concurrent) counter = current;
      else if (auth.refreshTokenRotation) return "reused" as const;
      else throw new AuthError(400, "refresh_token_already_used", "Invalid Refresh Token: Already Used");
    }
    await tx.query(
      `update auth.sessions set refresh_token_counter = $2, refreshed_at = timezone('utc', now()), updated_at = now(),
         user_agent = $3, ip = $4::inet where id = $1`,
      [session.id, counter, request.headers.get("user-agent"), context.ip.replace(/^::ffff:/, "") || null],
    );
    const refreshToken = encodeRefreshToken({ sessionId: session.id, counter }, session.refresh_token_hmac_key);
    return sessionAnswer(tx, context, user, session.id, refreshToken);
  });
  if (answer === "reused") {
    // Committed apart from the refusal, as GoTrue commits it: the session is gone for good.
    await context.db.query("delete from auth.sessions where id = $1", [token.sessionId]);
    throw new AuthError(400, "refresh_token_already_used", "Invalid Refresh Token: Already Used");
  }
  return json(answer);
}
