/**
 * `/auth/v1`: the part of Supabase Auth (GoTrue) the product calls, speaking its wire format:
 * password sign-in and refresh-token rotation, get and update the user, sign out, password
 * recovery by e-mailed link (verified by the link itself, GET, or by `verifyOtp`, POST), the
 * admin calls the Stripe webhook uses (create user, generate link), and the JWKS that verifies
 * access tokens. Passwords are bcrypt hashes; tokens are real JWTs; sign-in and recovery are
 * rate limited; recovery answers the same for known and unknown addresses.
 * Dev and test only: production is Supabase Auth.
 */
import { createHash, randomBytes, randomUUID } from "node:crypto";
import bcrypt from "bcryptjs";
import type { Sql } from "./db.ts";
import { bearer, type Context, gateway, isAllowedRedirect, json, readBody } from "./http.ts";
import type { TokenClaims } from "./jwt.ts";

const MIN_PASSWORD_LENGTH = 6;
const BCRYPT_COST = 10;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
/** Compared against when the address is unknown, so both answers take as long. */
const DUMMY_HASH = bcrypt.hashSync("not-a-password", BCRYPT_COST);

interface UserRow {
  id: string;
  email: string;
  encrypted_password: string | null;
  email_confirmed_at: string | null;
  recovery_sent_at: string | null;
  last_sign_in_at: string | null;
  raw_app_meta_data: Record<string, unknown>;
  raw_user_meta_data: Record<string, unknown>;
  created_at: string;
  updated_at: string;
}

const USER_COLUMNS = `id, email, encrypted_password, email_confirmed_at, recovery_sent_at, last_sign_in_at,
  raw_app_meta_data, raw_user_meta_data, created_at, updated_at`;

/** GoTrue's error answer; supabase-js reads `error_code` and `msg`. */
function authError(status: number, code: string, message: string, extra: Record<string, unknown> = {}): Response {
  return json({ code: status, error_code: code, msg: message, ...extra }, status);
}

const iso = (value: string | Date | null) => (value ? new Date(value).toISOString() : undefined);

/** The user as GoTrue answers it. */
function userJson(user: UserRow) {
  return {
    id: user.id,
    aud: "authenticated",
    role: "authenticated",
    email: user.email,
    email_confirmed_at: iso(user.email_confirmed_at),
    phone: "",
    confirmed_at: iso(user.email_confirmed_at),
    recovery_sent_at: iso(user.recovery_sent_at),
    last_sign_in_at: iso(user.last_sign_in_at),
    app_metadata: { provider: "email", providers: ["email"], ...user.raw_app_meta_data },
    user_metadata: user.raw_user_meta_data ?? {},
    identities: [],
    created_at: iso(user.created_at),
    updated_at: iso(user.updated_at),
    is_anonymous: false,
  };
}

/** A sliding-window counter per key, for the rate limits. */
class RateLimiter {
  private hits = new Map<string, number[]>();
  /** Records a hit; answers false when `key` already had `max` hits in the last `windowSeconds`. */
  allow(key: string, max: number, windowSeconds: number): boolean {
    const now = Date.now();
    const recent = (this.hits.get(key) ?? []).filter((t) => now - t < windowSeconds * 1000);
    if (recent.length >= max) {
      this.hits.set(key, recent);
      return false;
    }
    recent.push(now);
    this.hits.set(key, recent);
    return true;
  }
}
const limiters = new WeakMap<Context["config"], RateLimiter>();
const limiter = (context: Context) => {
  let found = limiters.get(context.config);
  if (!found) limiters.set(context.config, (found = new RateLimiter()));
  return found;
};

async function readJson(request: Request, context: Context): Promise<Record<string, unknown> | Response> {
  try {
    const text = new TextDecoder().decode(await readBody(request, Math.min(context.config.maxBodyBytes, 1 << 20)));
    const body = JSON.parse(text || "{}") as unknown;
    if (!body || typeof body !== "object" || Array.isArray(body)) throw new Error("not an object");
    return body as Record<string, unknown>;
  } catch {
    return authError(400, "bad_json", "Could not parse request body as JSON");
  }
}

const normaliseEmail = (value: unknown) => (typeof value === "string" ? value.trim().toLowerCase() : "");

function weakPassword(password: unknown): Response | null {
  if (typeof password !== "string" || password.length < MIN_PASSWORD_LENGTH) {
    return authError(422, "weak_password", `Password should be at least ${MIN_PASSWORD_LENGTH} characters.`, {
      weak_password: { reasons: ["length"] },
    });
  }
  return null;
}

async function findUser(sql: Sql, where: "id" | "email", value: string): Promise<UserRow | undefined> {
  const { rows } = await sql.query<UserRow>(`select ${USER_COLUMNS} from auth.users where ${where} = $1`, [value]);
  return rows[0];
}

/** Opens a session for `user`: a signed access token and a refresh token. */
async function issueSession(sql: Sql, context: Context, user: UserRow, method: string, sessionId?: string) {
  const now = Math.floor(Date.now() / 1000);
  if (!sessionId) {
    sessionId = randomUUID();
    await sql.query("insert into auth.sessions (id, user_id) values ($1, $2)", [sessionId, user.id]);
  }
  const refreshToken = randomBytes(24).toString("base64url");
  await sql.query("insert into auth.refresh_tokens (token, user_id, session_id) values ($1, $2, $3)", [
    refreshToken,
    user.id,
    sessionId,
  ]);
  const expiresIn = context.config.jwtExpiry;
  const app = userJson(user).app_metadata;
  const claims: TokenClaims = {
    aud: "authenticated",
    exp: now + expiresIn,
    iat: now,
    iss: `${context.config.url}/auth/v1`,
    sub: user.id,
    email: user.email,
    phone: "",
    app_metadata: app,
    user_metadata: user.raw_user_meta_data ?? {},
    role: "authenticated",
    aal: "aal1",
    amr: [{ method, timestamp: now }],
    session_id: sessionId,
    is_anonymous: false,
  };
  return {
    access_token: context.signer.sign(claims),
    token_type: "bearer",
    expires_in: expiresIn,
    expires_at: now + expiresIn,
    refresh_token: refreshToken,
    user: userJson(user),
  };
}

/** The signed-in user behind the bearer token, or GoTrue's refusal. */
async function currentUser(
  request: Request,
  context: Context,
): Promise<{ user: UserRow; claims: TokenClaims } | Response> {
  const token = bearer(request);
  if (!token) return authError(401, "no_authorization", "This endpoint requires a valid Bearer token");
  const verified = context.signer.verify(token);
  if (!verified.ok) {
    const why = verified.reason === "expired" ? "token has invalid claims: token is expired" : "signature is invalid";
    return authError(403, "bad_jwt", `invalid JWT: unable to parse or verify signature, ${why}`);
  }
  const { claims } = verified;
  if (!claims.sub) return authError(403, "bad_jwt", "invalid claim: missing sub claim");
  const session = await context.db.query("select 1 from auth.sessions where id = $1 and user_id = $2", [
    String(claims.session_id ?? ""),
    claims.sub,
  ]);
  if (session.rows.length === 0) {
    return authError(403, "session_not_found", "Session from session_id claim in JWT does not exist");
  }
  const user = await findUser(context.db, "id", claims.sub);
  if (!user) return authError(403, "user_not_found", "User from sub claim in JWT does not exist");
  return { user, claims };
}

function requireServiceRole(request: Request, context: Context): Response | null {
  const token = bearer(request);
  const verified = token ? context.signer.verify(token) : undefined;
  if (!verified?.ok || verified.claims.role !== "service_role") return authError(403, "not_admin", "User not allowed");
  return null;
}

const sha256 = (value: string) => createHash("sha256").update(value).digest("hex");

/** Creates a recovery token for `user`, replacing any earlier one, and answers the link that carries it. */
async function recoveryLink(context: Context, user: UserRow, redirectTo: string | null) {
  const token = randomBytes(28).toString("hex");
  await context.db.transaction(async (tx) => {
    await tx.query("delete from auth.one_time_tokens where user_id = $1 and token_type = 'recovery_token'", [user.id]);
    await tx.query(
      "insert into auth.one_time_tokens (user_id, token_type, token_hash, relates_to) values ($1, 'recovery_token', $2, $3)",
      [user.id, sha256(token), user.email],
    );
    await tx.query("update auth.users set recovery_sent_at = now() where id = $1", [user.id]);
  });
  const redirect = redirectTo && isAllowedRedirect(redirectTo, context.config) ? redirectTo : context.config.url;
  const link = new URL(`${context.config.url}/auth/v1/verify`);
  link.searchParams.set("token", token);
  link.searchParams.set("type", "recovery");
  link.searchParams.set("redirect_to", redirect);
  return { token, link: link.toString(), redirect };
}

/** Spends a recovery token: answers the user it was for, or null when unknown, used or expired. */
async function spendRecoveryToken(context: Context, token: string): Promise<UserRow | null> {
  return context.db.transaction(async (tx) => {
    const { rows } = await tx.query<{ user_id: string; created_at: string }>(
      "delete from auth.one_time_tokens where token_hash = $1 and token_type = 'recovery_token' returning user_id, created_at",
      [sha256(token)],
    );
    const row = rows[0];
    if (!row) return null;
    if (Date.now() - new Date(row.created_at).getTime() > context.config.otpExpiry * 1000) return null;
    await tx.query(
      "update auth.users set email_confirmed_at = coalesce(email_confirmed_at, now()), last_sign_in_at = now() where id = $1",
      [row.user_id],
    );
    return (await findUser(tx, "id", row.user_id)) ?? null;
  });
}

function recoveryMail(link: string) {
  const text = [
    "Someone asked to set or reset the password of your Advisor Accelerator account.",
    "",
    `Choose your password here: ${link}`,
    "",
    "The link works once and expires in an hour. If you did not ask for it, ignore this e-mail: your password stays as it is.",
  ].join("\n");
  const html =
    `<p>Someone asked to set or reset the password of your Advisor Accelerator account.</p>` +
    `<p><a href="${link.replace(/&/g, "&amp;").replace(/"/g, "&quot;")}">Choose your password</a></p>` +
    `<p>The link works once and expires in an hour. If you did not ask for it, ignore this e-mail: your password stays as it is.</p>`;
  return { subject: "Set your Advisor Accelerator password", text, html };
}

export async function handleAuth(request: Request, context: Context): Promise<Response> {
  const url = new URL(request.url);
  const path = url.pathname.slice("/auth/v1".length) || "/";
  const method = request.method;
  const headers = { "x-supabase-api-version": "2024-01-01" };
  const response = await dispatch(path, method, url, request, context);
  for (const [name, value] of Object.entries(headers)) response.headers.set(name, value);
  return response;
}

async function dispatch(path: string, method: string, url: URL, request: Request, context: Context): Promise<Response> {
  // Open routes: the e-mailed link, the public keys, the health check.
  if (path === "/verify" && method === "GET") return verifyLink(url, context);
  if (path === "/.well-known/jwks.json" && method === "GET") return json(context.signer.jwks());
  if (path === "/health" && method === "GET") {
    return json({ version: "local", name: "GoTrue", description: "Local stand-in for Supabase Auth" });
  }

  const key = gateway(request, context);
  if (key instanceof Response) return key;

  if (path === "/settings" && method === "GET") {
    return json({ external: { email: true, phone: false }, disable_signup: true, mailer_autoconfirm: false });
  }
  if (path === "/signup" && method === "POST")
    return authError(422, "signup_disabled", "Signups not allowed for this instance");
  if (path === "/token" && method === "POST") {
    const grant = url.searchParams.get("grant_type");
    if (grant === "password") return signIn(request, context);
    if (grant === "refresh_token") return refresh(request, context);
    return authError(400, "unsupported_grant_type", "unsupported_grant_type");
  }
  if (path === "/user" && method === "GET") {
    const current = await currentUser(request, context);
    return current instanceof Response ? current : json(userJson(current.user));
  }
  if (path === "/user" && method === "PUT") return updateUser(request, context);
  if (path === "/logout" && method === "POST") return logout(url, request, context);
  if (path === "/recover" && method === "POST") return recover(url, request, context);
  if (path === "/verify" && method === "POST") return verifyToken(request, context);
  if (path === "/admin/users" && method === "POST") return adminCreateUser(request, context);
  if (path === "/admin/generate_link" && method === "POST") return adminGenerateLink(request, context);
  return authError(404, "not_found", "Not found");
}

async function signIn(request: Request, context: Context): Promise<Response> {
  const body = await readJson(request, context);
  if (body instanceof Response) return body;
  const email = normaliseEmail(body.email);
  const password = typeof body.password === "string" ? body.password : "";
  if (!email) return authError(400, "validation_failed", "missing email or phone");
  const { signInPerWindow, signInWindowSeconds } = context.config.rateLimits;
  if (!limiter(context).allow(`sign-in|${context.ip}|${email}`, signInPerWindow, signInWindowSeconds)) {
    return authError(429, "over_request_rate_limit", "Request rate limit reached");
  }
  const user = await findUser(context.db, "email", email);
  const matches = await bcrypt.compare(password, user?.encrypted_password ?? DUMMY_HASH);
  if (!user || !user.encrypted_password || !matches) {
    return authError(400, "invalid_credentials", "Invalid login credentials");
  }
  const session = await context.db.transaction(async (tx) => {
    await tx.query("update auth.users set last_sign_in_at = now() where id = $1", [user.id]);
    return issueSession(tx, context, { ...user, last_sign_in_at: new Date().toISOString() }, "password");
  });
  return json(session);
}

async function refresh(request: Request, context: Context): Promise<Response> {
  const body = await readJson(request, context);
  if (body instanceof Response) return body;
  const token = typeof body.refresh_token === "string" ? body.refresh_token : "";
  if (!token) return authError(400, "validation_failed", "refresh_token required");
  const outcome = await context.db.transaction(async (tx) => {
    const { rows } = await tx.query<{ user_id: string; session_id: string; revoked: boolean }>(
      "select user_id, session_id, revoked from auth.refresh_tokens where token = $1 for update",
      [token],
    );
    const row = rows[0];
    if (!row) return authError(400, "refresh_token_not_found", "Invalid Refresh Token: Refresh Token Not Found");
    if (row.revoked) {
      // A spent token used again means it leaked: end the whole session, as Supabase does.
      await tx.query("delete from auth.sessions where id = $1", [row.session_id]);
      return "reused" as const;
    }
    await tx.query("update auth.refresh_tokens set revoked = true, updated_at = now() where token = $1", [token]);
    const user = await findUser(tx, "id", row.user_id);
    if (!user) return authError(400, "refresh_token_not_found", "Invalid Refresh Token: Refresh Token Not Found");
    const session = await issueSession(tx, context, user, "token_refresh", row.session_id);
    await tx.query("update auth.refresh_tokens set parent = $1 where token = $2", [token, session.refresh_token]);
    return json(session);
  });
  if (outcome === "reused") return authError(400, "refresh_token_already_used", "Invalid Refresh Token: Already Used");
  return outcome;
}

async function updateUser(request: Request, context: Context): Promise<Response> {
  const current = await currentUser(request, context);
  if (current instanceof Response) return current;
  const body = await readJson(request, context);
  if (body instanceof Response) return body;
  if (body.email !== undefined || body.phone !== undefined) {
    return authError(422, "validation_failed", "Changing the e-mail address or phone is not available");
  }
  const { user } = current;
  let hash: string | undefined;
  if (body.password !== undefined) {
    const weak = weakPassword(body.password);
    if (weak) return weak;
    if (user.encrypted_password && (await bcrypt.compare(String(body.password), user.encrypted_password))) {
      return authError(422, "same_password", "New password should be different from the old password.");
    }
    hash = await bcrypt.hash(String(body.password), BCRYPT_COST);
  }
  const data = body.data && typeof body.data === "object" && !Array.isArray(body.data) ? body.data : undefined;
  await context.db.query(
    `update auth.users set
       encrypted_password = coalesce($2, encrypted_password),
       raw_user_meta_data = coalesce(raw_user_meta_data, '{}'::jsonb) || coalesce($3::jsonb, '{}'::jsonb),
       updated_at = now()
     where id = $1`,
    [user.id, hash ?? null, data ? JSON.stringify(data) : null],
  );
  return json(userJson((await findUser(context.db, "id", user.id))!));
}

async function logout(url: URL, request: Request, context: Context): Promise<Response> {
  const current = await currentUser(request, context);
  if (current instanceof Response) return current;
  const scope = url.searchParams.get("scope") ?? "global";
  const { user, claims } = current;
  if (scope === "local") await context.db.query("delete from auth.sessions where id = $1", [claims.session_id]);
  else if (scope === "others") {
    await context.db.query("delete from auth.sessions where user_id = $1 and id <> $2", [user.id, claims.session_id]);
  } else await context.db.query("delete from auth.sessions where user_id = $1", [user.id]);
  return new Response(null, { status: 204 });
}

async function recover(url: URL, request: Request, context: Context): Promise<Response> {
  const body = await readJson(request, context);
  if (body instanceof Response) return body;
  const email = normaliseEmail(body.email);
  if (!EMAIL.test(email))
    return authError(400, "validation_failed", "Unable to validate email address: invalid format");
  // The limit applies to every address alike, so it tells nothing about which ones have accounts.
  const window = context.config.rateLimits.recoverWindowSeconds;
  if (!limiter(context).allow(`recover|${email}`, 1, window)) {
    return authError(
      429,
      "over_email_send_rate_limit",
      `For security purposes, you can only request this after ${window} seconds.`,
    );
  }
  const user = await findUser(context.db, "email", email);
  if (user) {
    const { link } = await recoveryLink(context, user, url.searchParams.get("redirect_to"));
    context.mail.send({ to: user.email, ...recoveryMail(link) });
  }
  return json({});
}

/** The e-mailed link: spends the token and redirects with the session (or the error) in the fragment. */
async function verifyLink(url: URL, context: Context): Promise<Response> {
  const requested = url.searchParams.get("redirect_to");
  const redirect = requested && isAllowedRedirect(requested, context.config) ? requested : context.config.url;
  const type = url.searchParams.get("type");
  const token = url.searchParams.get("token") ?? "";
  const user = type === "recovery" && token ? await spendRecoveryToken(context, token) : null;
  const fragment = new URLSearchParams();
  if (!user) {
    fragment.set("error", "access_denied");
    fragment.set("error_code", "otp_expired");
    fragment.set("error_description", "Email link is invalid or has expired");
  } else {
    const session = await context.db.transaction((tx) => issueSession(tx, context, user, "otp"));
    fragment.set("access_token", session.access_token);
    fragment.set("expires_at", String(session.expires_at));
    fragment.set("expires_in", String(session.expires_in));
    fragment.set("refresh_token", session.refresh_token);
    fragment.set("token_type", "bearer");
    fragment.set("type", "recovery");
  }
  return new Response(null, { status: 303, headers: { location: `${redirect.split("#")[0]}#${fragment}` } });
}

/** `verifyOtp({ type: 'recovery', token_hash })`: spends the token and answers the session. */
async function verifyToken(request: Request, context: Context): Promise<Response> {
  const body = await readJson(request, context);
  if (body instanceof Response) return body;
  if (body.type !== "recovery") return authError(400, "validation_failed", "Unsupported verification type");
  const token = typeof body.token_hash === "string" ? body.token_hash : "";
  if (!token) return authError(400, "validation_failed", "Verify requires a token_hash");
  const user = await spendRecoveryToken(context, token);
  if (!user) return authError(403, "otp_expired", "Email link is invalid or has expired");
  return json(await context.db.transaction((tx) => issueSession(tx, context, user, "otp")));
}

async function adminCreateUser(request: Request, context: Context): Promise<Response> {
  const refused = requireServiceRole(request, context);
  if (refused) return refused;
  const body = await readJson(request, context);
  if (body instanceof Response) return body;
  const email = normaliseEmail(body.email);
  if (!EMAIL.test(email))
    return authError(400, "validation_failed", "Unable to validate email address: invalid format");
  if (body.password !== undefined) {
    const weak = weakPassword(body.password);
    if (weak) return weak;
  }
  const hash = typeof body.password === "string" ? await bcrypt.hash(body.password, BCRYPT_COST) : null;
  const meta = (value: unknown) =>
    JSON.stringify(value && typeof value === "object" && !Array.isArray(value) ? value : {});
  const { rows } = await context.db.query<UserRow>(
    `insert into auth.users (email, encrypted_password, email_confirmed_at, raw_app_meta_data, raw_user_meta_data)
     values ($1, $2, case when $3 then now() end, '{"provider": "email", "providers": ["email"]}'::jsonb || $4::jsonb, $5::jsonb)
     on conflict (email) do nothing
     returning ${USER_COLUMNS}`,
    [email, hash, body.email_confirm === true, meta(body.app_metadata), meta(body.user_metadata)],
  );
  if (!rows[0]) return authError(422, "email_exists", "A user with this email address has already been registered");
  return json(userJson(rows[0]));
}

async function adminGenerateLink(request: Request, context: Context): Promise<Response> {
  const refused = requireServiceRole(request, context);
  if (refused) return refused;
  const body = await readJson(request, context);
  if (body instanceof Response) return body;
  if (body.type !== "recovery") return authError(422, "validation_failed", "Only recovery links are available");
  const user = await findUser(context.db, "email", normaliseEmail(body.email));
  if (!user) return authError(404, "user_not_found", "User with this email not found");
  const redirectTo = typeof body.redirect_to === "string" ? body.redirect_to : null;
  const { token, link, redirect } = await recoveryLink(context, user, redirectTo);
  return json({
    ...userJson((await findUser(context.db, "id", user.id))!),
    action_link: link,
    email_otp: "",
    hashed_token: token,
    redirect_to: redirect,
    verification_type: "recovery",
  });
}
