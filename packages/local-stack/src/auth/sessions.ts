/**
 * The session store of the Auth stand-in, as GoTrue's api/token.go issues sessions: a new row in
 * auth.sessions with its refresh-token key and counter
 * (packages/local-stack/src/auth/refresh-token.ts) and the sign-in method in auth.mfa_amr_claims,
 * and the answer supabase-js keeps: an access token with the claims GoTrue puts in one, the refresh
 * token and the user. Dev and test only.
 */
import { randomUUID } from "node:crypto";
import type { Sql } from "../db.ts";
import type { Context } from "../http.ts";
import type { Claims } from "../jwt.ts";
import { encodeRefreshToken, newHmacKey } from "./refresh-token.ts";
import { AUDIENCE, userById, userJson, type UserRow } from "./users.ts";

export interface SessionRow {
  id: string;
  user_id: string;
  /** When the session was last refreshed (or created), in milliseconds since the epoch. */
  last_refresh: number | string;
  not_after: string | null;
  refresh_token_hmac_key: string | null;
  refresh_token_counter: number | string | null;
}

/** An access token for the session, with the claims GoTrue puts in one. */
async function accessToken(sql: Sql, context: Context, user: UserRow, sessionId: string) {
  const now = Math.floor(Date.now() / 1000);
  const { rows: amr } = await sql.query<{ method: string; at: string }>(
    "select authentication_method as method, created_at as at from auth.mfa_amr_claims where session_id = $1 order by updated_at desc",
    [sessionId],
  );
  const expiresAt = now + context.config.auth.jwtExpiry;
  const claims: Claims = {
    aud: AUDIENCE,
    exp: expiresAt,
    iat: now,
    iss: `${context.config.url}/auth/v1`,
    sub: user.id,
    email: user.email,
    phone: "",
    app_metadata: user.raw_app_meta_data ?? {},
    user_metadata: user.raw_user_meta_data ?? {},
    role: "authenticated",
    aal: "aal1",
    amr: amr.map((entry) => ({ method: entry.method, timestamp: Math.floor(new Date(entry.at).getTime() / 1000) })),
    session_id: sessionId,
    is_anonymous: user.is_anonymous,
  };
  return { token: context.signer.sign(claims), expiresAt };
}

export async function sessionAnswer(
  sql: Sql,
  context: Context,
  user: UserRow,
  sessionId: string,
  refreshToken: string,
) {
  const { token, expiresAt } = await accessToken(sql, context, user, sessionId);
  return {
    access_token: token,
    token_type: "bearer",
    expires_in: expiresAt - Math.floor(Date.now() / 1000),
    expires_at: expiresAt,
    refresh_token: refreshToken,
    user: userJson(user),
  };
}

/** GoTrue's `IssueRefreshToken`: a new session for `user`, signed in by `method`. */
export async function issueSession(sql: Sql, context: Context, user: UserRow, method: string, request: Request) {
  const id = randomUUID();
  const key = newHmacKey();
  await sql.query(
    `insert into auth.sessions (id, user_id, created_at, updated_at, aal, refresh_token_hmac_key, refresh_token_counter, user_agent, ip)
     values ($1, $2, now(), now(), 'aal1', $3, 0, $4, $5::inet)`,
    [id, user.id, key, request.headers.get("user-agent"), context.ip.replace(/^::ffff:/, "") || null],
  );
  await sql.query(
    `insert into auth.mfa_amr_claims (id, session_id, created_at, updated_at, authentication_method)
     values ($1, $2, now(), now(), $3)
     on conflict (session_id, authentication_method) do update set updated_at = now()`,
    [randomUUID(), id, method],
  );
  await sql.query("update auth.users set last_sign_in_at = now(), updated_at = now() where id = $1", [user.id]);
  const fresh = (await userById(sql, user.id))!;
  return sessionAnswer(sql, context, fresh, id, encodeRefreshToken({ sessionId: id, counter: 0 }, key));
}
