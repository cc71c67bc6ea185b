/**
 * `/auth/v1`: the part of Supabase Auth (GoTrue) the product calls, speaking its wire format and
 * following its rules, read from its source: password sign-in (refused for an unconfirmed
 * e-mail), refresh tokens of GoTrue's second algorithm (local/auth/refresh-token.ts), get and
 * update the user (a new password ends the user's other sessions and spends their e-mailed
 * links), sign out, password recovery and invitations by e-mailed link (the templates in
 * supabase/templates/, verified by the link itself, GET, or by `verifyOtp`, POST), the admin
 * calls the Stripe webhook uses (create, invite, delete, generate link), and the JWKS. Users are
 * found as GoTrue finds them (instance, audience, lower-case e-mail), so rows written by hand
 * must be complete, as on the platform. Rate limits are GoTrue's token buckets per client
 * address, sized by `[auth.rate_limit]` in supabase/config.toml. Dev and test only: production
 * is Supabase Auth.
 */
import { createHash, randomBytes, randomInt, randomUUID } from "node:crypto";
import bcrypt from "bcryptjs";
import type { StackConfig } from "../config.ts";
import type { Sql } from "../db.ts";
import { bearer, type Context, gateway, json, readBody } from "../http.ts";
import type { Claims } from "../jwt.ts";
import { encodeRefreshToken, newHmacKey, parseRefreshToken, signedWith } from "./refresh-token.ts";
import { isRedirectAllowed, referrer } from "./redirect.ts";
import { htmlToText, renderTemplate } from "./template.ts";

const BCRYPT_COST = 10;
/** GoTrue's `uuid.Nil`: the instance every user of a project belongs to. */
const INSTANCE = "00000000-0000-0000-0000-000000000000";
const AUDIENCE = "authenticated";
/** GoTrue reads at most 1 MB of a request body. */
const MAX_BODY = 1 << 20;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** The admin roles of GoTrue's default configuration. */
const ADMIN_ROLES = ["service_role", "supabase_admin"];

/** GoTrue's default invite e-mail (mailer/templatemailer `defaultInviteMail`), sent when supabase/config.toml names no template. */
const DEFAULT_INVITE = {
  subject: "You've been invited",
  content:
    "<h2>You've been invited</h2>\n\n<p>You've been invited to create an account. Follow the link below to accept.</p>\n" +
    '<p><a href="{{ .ConfirmationURL }}">Accept invitation</a></p>',
};

/** GoTrue's default recovery e-mail, sent when supabase/config.toml names no template. */
const DEFAULT_RECOVERY = {
  subject: "Reset your password",
  content:
    "<h2>Reset your password</h2>\n\n<p>We received a request to reset your password. Follow the link below to choose a new one.</p>\n" +
    '<p><a href="{{ .ConfirmationURL }}">Reset password</a></p>\n<p>If you didn\'t request this, you can safely ignore this email.</p>',
};

interface UserRow {
  id: string;
  email: string;
  encrypted_password: string | null;
  email_confirmed_at: string | null;
  confirmed_at: string | null;
  invited_at: string | null;
  confirmation_sent_at: string | null;
  recovery_sent_at: string | null;
  last_sign_in_at: string | null;
  banned_until: string | null;
  raw_app_meta_data: Record<string, unknown> | null;
  raw_user_meta_data: Record<string, unknown> | null;
  created_at: string;
  updated_at: string;
  is_anonymous: boolean;
  identities: IdentityRow[];
}

interface IdentityRow {
  id: string;
  provider_id: string;
  user_id: string;
  identity_data: Record<string, unknown>;
  provider: string;
  last_sign_in_at: string | null;
  created_at: string | null;
  updated_at: string | null;
  email: string | null;
}

interface SessionRow {
  id: string;
  user_id: string;
  /** When the session was last refreshed (or created), in milliseconds since the epoch. */
  last_refresh: number | string;
  not_after: string | null;
  refresh_token_hmac_key: string | null;
  refresh_token_counter: number | string | null;
}

/** GoTrue's error answer; supabase-js reads `error_code` and `msg`. */
class AuthError extends Error {
  readonly status: number;
  readonly code: string;
  readonly extra: Record<string, unknown>;
  constructor(status: number, code: string, message: string, extra: Record<string, unknown> = {}) {
    super(message);
    this.status = status;
    this.code = code;
    this.extra = extra;
  }
  response(): Response {
    return json({ code: this.status, error_code: this.code, msg: this.message, ...this.extra }, this.status);
  }
}

const iso = (value: string | Date | null | undefined) => (value ? new Date(value).toISOString() : undefined);

function identityJson(identity: IdentityRow) {
  return {
    identity_id: identity.id,
    id: identity.provider_id,
    user_id: identity.user_id,
    identity_data: identity.identity_data,
    provider: identity.provider,
    last_sign_in_at: iso(identity.last_sign_in_at),
    created_at: iso(identity.created_at),
    updated_at: iso(identity.updated_at),
    email: identity.email ?? undefined,
  };
}

/** The user as GoTrue answers it. */
function userJson(user: UserRow) {
  return {
    id: user.id,
    aud: AUDIENCE,
    role: "authenticated",
    email: user.email,
    email_confirmed_at: iso(user.email_confirmed_at),
    invited_at: iso(user.invited_at),
    phone: "",
    confirmation_sent_at: iso(user.confirmation_sent_at),
    confirmed_at: iso(user.confirmed_at),
    recovery_sent_at: iso(user.recovery_sent_at),
    last_sign_in_at: iso(user.last_sign_in_at),
    app_metadata: user.raw_app_meta_data ?? {},
    user_metadata: user.raw_user_meta_data ?? {},
    identities: user.identities.map(identityJson),
    created_at: iso(user.created_at),
    updated_at: iso(user.updated_at),
    is_anonymous: user.is_anonymous,
  };
}

/**
 * GoTrue's rate limiters (tollbooth): per client address, a bucket of `burst` requests that
 * refills at `perFiveMinutes` / 300 a second.
 */
class TokenBuckets {
  private buckets = new Map<string, { tokens: number; at: number }>();
  private readonly perFiveMinutes: number;
  private readonly burst = 30;
  constructor(perFiveMinutes: number) {
    this.perFiveMinutes = perFiveMinutes;
  }
  take(key: string): boolean {
    const now = Date.now() / 1000;
    const bucket = this.buckets.get(key) ?? { tokens: this.burst, at: now };
    bucket.tokens = Math.min(this.burst, bucket.tokens + (now - bucket.at) * (this.perFiveMinutes / 300));
    bucket.at = now;
    this.buckets.set(key, bucket);
    if (bucket.tokens < 1) return false;
    bucket.tokens -= 1;
    return true;
  }
}

interface Limiters {
  token: TokenBuckets;
  otp: TokenBuckets;
  verify: TokenBuckets;
}
const limiters = new WeakMap<StackConfig, Limiters>();
function limit(context: Context, which: keyof Limiters) {
  let found = limiters.get(context.config);
  if (!found) {
    const { rateLimit } = context.config.auth;
    found = {
      token: new TokenBuckets(rateLimit.tokenRefresh),
      otp: new TokenBuckets(rateLimit.signInSignUps),
      verify: new TokenBuckets(rateLimit.tokenVerifications),
    };
    limiters.set(context.config, found);
  }
  if (!found[which].take(context.ip)) throw new AuthError(429, "over_request_rate_limit", "Request rate limit reached");
}

async function readJson(request: Request): Promise<Record<string, unknown>> {
  let body: unknown;
  try {
    const text = new TextDecoder().decode(await readBody(request, MAX_BODY));
    body = JSON.parse(text || "{}");
  } catch {
    throw new AuthError(400, "bad_json", "Could not parse request body as JSON");
  }
  if (!body || typeof body !== "object" || Array.isArray(body)) {
    throw new AuthError(400, "bad_json", "Could not parse request body as JSON");
  }
  return body as Record<string, unknown>;
}

const text = (value: unknown) => (typeof value === "string" ? value : "");

/** GoTrue's `validateEmail` (api/mail.go): present, at most 255 characters, well formed; lower-cased. */
function validEmail(value: unknown): string {
  const email = text(value).trim().toLowerCase();
  if (email === "") throw new AuthError(400, "validation_failed", "An email address is required");
  if (email.length > 255) throw new AuthError(400, "validation_failed", "An email address is too long");
  if (!EMAIL.test(email)) {
    throw new AuthError(400, "validation_failed", "Unable to validate email address: invalid format");
  }
  return email;
}

function checkPasswordStrength(password: string, context: Context) {
  const min = context.config.auth.minimumPasswordLength;
  if ([...password].length < min) {
    throw new AuthError(422, "weak_password", `Password should be at least ${min} characters.`, {
      weak_password: { reasons: ["length"] },
    });
  }
}

/** A user row with its identities, from auth.users or from a statement's RETURNING (`from`). */
const userSelect = (from = "auth.users") => `select u.id, u.email, u.encrypted_password, u.email_confirmed_at,
    u.confirmed_at, u.invited_at, u.confirmation_sent_at, u.recovery_sent_at,
    u.last_sign_in_at, u.banned_until, u.raw_app_meta_data, u.raw_user_meta_data, u.created_at, u.updated_at,
    u.is_anonymous,
    coalesce((select json_agg(i order by i.created_at) from auth.identities i where i.user_id = u.id), '[]') as identities
  from ${from} u`;
const USER = userSelect();

/** GoTrue's `FindUserByEmailAndAudience`. */
async function userByEmail(sql: Sql, email: string): Promise<UserRow | undefined> {
  const { rows } = await sql.query<UserRow>(
    `${USER} where u.instance_id = $1 and lower(u.email) = $2 and u.aud = $3 and u.is_sso_user = false limit 1`,
    [INSTANCE, email.toLowerCase(), AUDIENCE],
  );
  return rows[0];
}

/** GoTrue's `FindUserByID`. */
async function userById(sql: Sql, id: string): Promise<UserRow | undefined> {
  if (!UUID.test(id)) return undefined;
  const { rows } = await sql.query<UserRow>(`${USER} where u.instance_id = $1 and u.id = $2`, [INSTANCE, id]);
  return rows[0];
}

const banned = (user: UserRow) => !!user.banned_until && new Date(user.banned_until).getTime() > Date.now();

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

async function sessionAnswer(sql: Sql, context: Context, user: UserRow, sessionId: string, refreshToken: string) {
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
async function issueSession(sql: Sql, context: Context, user: UserRow, method: string, request: Request) {
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

/** The signed-in user and session behind the bearer token (GoTrue's `requireAuthentication`). */
async function currentUser(request: Request, context: Context): Promise<{ user: UserRow; claims: Claims }> {
  const token = bearer(request);
  if (!token) throw new AuthError(401, "no_authorization", "This endpoint requires a valid Bearer token");
  const verified = context.signer.verify(token);
  if (!verified.ok) {
    const why =
      verified.reason === "expired"
        ? "token has invalid claims: token is expired"
        : verified.reason === "signature"
          ? "token signature is invalid"
          : "token is malformed";
    throw new AuthError(403, "bad_jwt", `invalid JWT: unable to parse or verify signature, ${why}`);
  }
  const { claims } = verified;
  if (!claims.sub) throw new AuthError(403, "bad_jwt", "invalid claim: missing sub claim");
  if (!UUID.test(claims.sub)) throw new AuthError(400, "bad_jwt", "invalid claim: sub claim must be a UUID");
  const user = await userById(context.db, claims.sub);
  if (!user) throw new AuthError(403, "user_not_found", "User from sub claim in JWT does not exist");
  const sessionId = typeof claims.session_id === "string" ? claims.session_id : "";
  if (sessionId && sessionId !== INSTANCE) {
    if (!UUID.test(sessionId)) throw new AuthError(403, "bad_jwt", "invalid claim: session_id claim must be a UUID");
    const { rows } = await context.db.query("select 1 from auth.sessions where id = $1", [sessionId]);
    if (rows.length === 0) {
      throw new AuthError(403, "session_not_found", "Session from session_id claim in JWT does not exist");
    }
  }
  return { user, claims };
}

/** GoTrue's `requireAdmin`: a bearer JWT whose role is an admin role. */
function requireAdmin(request: Request, context: Context) {
  const token = bearer(request);
  if (!token) throw new AuthError(401, "no_authorization", "This endpoint requires a valid Bearer token");
  const verified = context.signer.verify(token);
  if (!verified.ok) throw new AuthError(403, "bad_jwt", "invalid JWT: unable to parse or verify signature");
  if (!ADMIN_ROLES.includes(verified.claims.role)) throw new AuthError(403, "not_admin", "User not allowed");
}

export async function handleAuth(request: Request, context: Context): Promise<Response> {
  const url = new URL(request.url);
  const path = url.pathname.slice("/auth/v1".length) || "/";
  let response: Response;
  try {
    response = await dispatch(path, request.method, url, request, context);
  } catch (error) {
    if (!(error instanceof AuthError)) throw error;
    response = error.response();
  }
  response.headers.set("x-supabase-api-version", "2024-01-01");
  return response;
}

async function dispatch(path: string, method: string, url: URL, request: Request, context: Context): Promise<Response> {
  // Open routes (Supabase's gateway lets them through without an API key): the e-mailed link,
  // the public keys, the health check.
  if (path === "/verify" && method === "GET") return verifyLink(url, request, context);
  if (path === "/.well-known/jwks.json" && method === "GET") return json(context.signer.jwks());
  if (path === "/health" && method === "GET") {
    return json({ version: "local", name: "GoTrue", description: "Local stand-in for Supabase Auth" });
  }

  const key = gateway(request, context);
  if (key instanceof Response) return key;

  if (path === "/settings" && method === "GET") {
    return json({
      external: { email: true, phone: false },
      disable_signup: true,
      mailer_autoconfirm: !context.config.auth.email.enableConfirmations,
      phone_autoconfirm: false,
      sms_provider: "",
      saml_enabled: false,
    });
  }
  if (path === "/signup" && method === "POST") {
    throw new AuthError(422, "signup_disabled", "Signups not allowed for this instance");
  }
  if (path === "/token" && method === "POST") {
    const grant = url.searchParams.get("grant_type");
    if (grant !== "password" && grant !== "refresh_token") {
      throw new AuthError(400, "invalid_credentials", "unsupported_grant_type");
    }
    limit(context, "token");
    return grant === "password" ? signIn(request, context) : refresh(request, context);
  }
  if (path === "/user" && method === "GET") return json(userJson((await currentUser(request, context)).user));
  if (path === "/user" && method === "PUT") return updateUser(request, context);
  if (path === "/logout" && method === "POST") return logout(url, request, context);
  if (path === "/recover" && method === "POST") return recover(request, context);
  if (path === "/verify" && method === "POST") return verifyPost(request, context);
  if (path === "/admin/users" && method === "POST") return adminCreateUser(request, context);
  if (path === "/invite" && method === "POST") return invite(request, context);
  const adminUser = /^\/admin\/users\/([^/]+)$/.exec(path);
  if (adminUser && method === "GET") return adminGetUser(decodeURIComponent(adminUser[1]!), request, context);
  if (adminUser && method === "DELETE") return adminDeleteUser(decodeURIComponent(adminUser[1]!), request, context);
  if (path === "/admin/generate_link" && method === "POST") return adminGenerateLink(request, context);
  throw new AuthError(404, "not_found", "Not Found");
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

/** `updateUser` (GoTrue's `UserUpdate`): the password and the user's metadata. */
async function updateUser(request: Request, context: Context): Promise<Response> {
  limit(context, "otp");
  const body = await readJson(request);
  const { user, claims } = await currentUser(request, context);
  if (
    (typeof body.email === "string" && body.email !== "" && body.email !== user.email) ||
    (typeof body.phone === "string" && body.phone !== "")
  ) {
    throw new AuthError(
      422,
      "validation_failed",
      "Changing the e-mail address or phone is not available in the local stack",
    );
  }
  if (body.app_metadata !== undefined) {
    throw new AuthError(403, "not_admin", "Updating app_metadata requires admin privileges");
  }
  let hash: string | undefined;
  if (body.password !== undefined && body.password !== null) {
    const password = text(body.password);
    checkPasswordStrength(password, context);
    if (password !== "" && user.encrypted_password && (await bcrypt.compare(password, user.encrypted_password))) {
      throw new AuthError(422, "same_password", "New password should be different from the old password.");
    }
    hash = await bcrypt.hash(password, BCRYPT_COST);
  }
  const data = body.data && typeof body.data === "object" && !Array.isArray(body.data) ? body.data : undefined;
  await context.db.transaction(async (tx) => {
    if (hash !== undefined) {
      // Whoever knew the old password may have started links and sessions: spend the links and
      // end every other session.
      const sessionId =
        typeof claims.session_id === "string" && UUID.test(claims.session_id) ? claims.session_id : null;
      await storePassword(tx, user, hash, sessionId);
      if (!user.encrypted_password) await ensureEmailIdentity(tx, user);
    }
    if (data) {
      await tx.query(
        `update auth.users set raw_user_meta_data = coalesce(raw_user_meta_data, '{}'::jsonb) || $2::jsonb, updated_at = now()
         where id = $1`,
        [user.id, JSON.stringify(data)],
      );
    }
  });
  return json(userJson((await userById(context.db, user.id))!));
}

async function ensureEmailIdentity(sql: Sql, user: UserRow) {
  await sql.query(
    `insert into auth.identities (provider_id, user_id, identity_data, provider, created_at, updated_at)
     values ($1, $2, $3::jsonb, 'email', now(), now()) on conflict (provider_id, provider) do nothing`,
    [
      user.id,
      user.id,
      JSON.stringify({
        sub: user.id,
        email: user.email,
        email_verified: !!user.email_confirmed_at,
        phone_verified: false,
      }),
    ],
  );
}

/** `signOut` (GoTrue's `Logout`): this session, the others, or all of them (the default). */
async function logout(url: URL, request: Request, context: Context): Promise<Response> {
  const { user, claims } = await currentUser(request, context);
  const scope = url.searchParams.get("scope") ?? "global";
  const sessionId = typeof claims.session_id === "string" && UUID.test(claims.session_id) ? claims.session_id : null;
  if (scope === "local") await context.db.query("delete from auth.sessions where id = $1", [sessionId]);
  else if (scope === "others") {
    await context.db.query("delete from auth.sessions where user_id = $1 and id is distinct from $2", [
      user.id,
      sessionId,
    ]);
  } else await context.db.query("delete from auth.sessions where user_id = $1", [user.id]);
  return new Response(null, { status: 204 });
}

/**
 * Where a call asks the browser to be sent back to (GoTrue's `GetReferrer`): the `redirect_to`
 * header or query parameter, else the Referer, when allowed; else `site_url`.
 */
function redirectFor(request: Request, context: Context): string {
  const { auth } = context.config;
  const requested = request.headers.get("redirect_to") || new URL(request.url).searchParams.get("redirect_to");
  return referrer(requested, request.headers.get("referer"), auth.siteUrl, auth.additionalRedirectUrls);
}

/** GoTrue's `GenerateTokenHash`: what links carry and what the database keeps. */
const tokenHash = (email: string, otp: string) =>
  createHash("sha224")
    .update(email + otp)
    .digest("hex");
const otpCode = (digits: number) => String(randomInt(0, 10 ** digits)).padStart(digits, "0");

/** Starts a recovery for `user`: a new one-time token replaces any earlier one. Answers the token and its hash. */
async function startRecovery(sql: Sql, context: Context, user: UserRow) {
  const otp = otpCode(context.config.auth.email.otpLength);
  const hash = tokenHash(user.email, otp);
  await sql.query("update auth.users set recovery_token = $2, recovery_sent_at = now() where id = $1", [user.id, hash]);
  await sql.query("delete from auth.one_time_tokens where user_id = $1 and token_type = 'recovery_token'", [user.id]);
  await sql.query(
    `insert into auth.one_time_tokens (id, user_id, token_type, token_hash, relates_to) values ($1, $2, 'recovery_token', $3, $4)`,
    [randomUUID(), user.id, hash, user.email.toLowerCase()],
  );
  return { otp, hash };
}

/** The link an e-mail's `{{ .ConfirmationURL }}` is: GoTrue's `/verify` with the token hash. */
function confirmationUrl(context: Context, hash: string, type: string, redirectTo: string) {
  const redirect = /[&=#]/.test(redirectTo) ? encodeURIComponent(redirectTo) : redirectTo;
  return `${context.config.url}/auth/v1/verify?token=${encodeURIComponent(hash)}&type=${type}&redirect_to=${redirect}`;
}

/** Renders an auth e-mail from its template with GoTrue's fields (mailer/templatemailer) and sends it to the user. */
function sendAuthMail(
  context: Context,
  template: { subject: string; content: string },
  user: Pick<UserRow, "email" | "raw_user_meta_data">,
  fields: { ConfirmationURL: string; Token: string; TokenHash: string; RedirectTo: string },
) {
  const data = {
    SiteURL: context.config.auth.siteUrl,
    Email: user.email,
    Data: user.raw_user_meta_data ?? {},
    ...fields,
  };
  const html = renderTemplate(template.content, data);
  context.mail.send({ to: user.email, subject: renderTemplate(template.subject, data), html, text: htmlToText(html) });
}

/** `resetPasswordForEmail` (GoTrue's `Recover`): the same answer whether or not the address has an account. */
async function recover(request: Request, context: Context): Promise<Response> {
  limit(context, "otp");
  const body = await readJson(request);
  if (!text(body.email)) throw new AuthError(400, "validation_failed", "Password recovery requires an email");
  const email = validEmail(body.email);
  const { auth } = context.config;
  const redirectTo = redirectFor(request, context);
  const user = await userByEmail(context.db, email);
  if (!user) return json({});
  if (user.recovery_sent_at) {
    const wait = new Date(user.recovery_sent_at).getTime() + auth.email.maxFrequency * 1000 - Date.now();
    if (wait > 0) {
      throw new AuthError(
        429,
        "over_email_send_rate_limit",
        `For security purposes, you can only request this after ${Math.floor(wait / 1000)} seconds.`,
      );
    }
  }
  await context.db.transaction(async (tx) => {
    const { otp, hash } = await startRecovery(tx, context, user);
    sendAuthMail(context, auth.email.templates.recovery ?? DEFAULT_RECOVERY, user, {
      ConfirmationURL: confirmationUrl(context, hash, "recovery", redirectTo),
      Token: otp,
      TokenHash: hash,
      RedirectTo: redirectTo,
    });
  });
  return json({});
}

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

/** GoTrue's `User.UpdatePassword`: a new password spends every e-mailed token; with no session named, every session ends. */
async function storePassword(sql: Sql, user: UserRow, hash: string, keepSession: string | null) {
  await sql.query(
    `update auth.users set encrypted_password = $2, confirmation_token = '', confirmation_sent_at = null,
       recovery_token = '', recovery_sent_at = null, email_change_token_current = '', email_change_token_new = '',
       email_change_sent_at = null, phone_change_token = '', phone_change_sent_at = null, reauthentication_token = '',
       reauthentication_sent_at = null, updated_at = now()
     where id = $1`,
    [user.id, hash],
  );
  await sql.query("delete from auth.one_time_tokens where user_id = $1", [user.id]);
  await sql.query("delete from auth.sessions where user_id = $1 and id is distinct from $2", [user.id, keepSession]);
}

/** GoTrue's `User.Confirm`: the address is confirmed and every one-time token spent. */
async function confirm(sql: Sql, user: UserRow) {
  await sql.query(
    `update auth.users set confirmation_token = '', email_confirmed_at = now(),
       raw_user_meta_data = coalesce(raw_user_meta_data, '{}'::jsonb) || '{"email_verified": true}'::jsonb
     where id = $1`,
    [user.id],
  );
  await sql.query("delete from auth.one_time_tokens where user_id = $1", [user.id]);
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
async function verifyLink(url: URL, request: Request, context: Context): Promise<Response> {
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
async function verifyPost(request: Request, context: Context): Promise<Response> {
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
    email = text(body.email).trim().toLowerCase();
    if (!EMAIL.test(email)) throw new AuthError(422, "validation_failed", "Invalid email format");
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

/** `auth.admin.createUser`: no password means a random one, as GoTrue does; no strength check. */
async function adminCreateUser(request: Request, context: Context): Promise<Response> {
  requireAdmin(request, context);
  const body = await readJson(request);
  if (!text(body.email) && !text(body.phone)) {
    throw new AuthError(400, "validation_failed", "Cannot create a user without either an email or phone");
  }
  if (text(body.phone))
    throw new AuthError(422, "validation_failed", "Phone users are not available in the local stack");
  const email = validEmail(body.email);
  if (await userByEmail(context.db, email)) {
    throw new AuthError(422, "email_exists", "A user with this email address has already been registered");
  }
  const password = text(body.password) || randomBytes(48).toString("base64url");
  const hash = await bcrypt.hash(password, BCRYPT_COST);
  const object = (value: unknown) => (value && typeof value === "object" && !Array.isArray(value) ? value : undefined);
  const id = randomUUID();
  // A concurrent call for the same address passes the check above too; the unique index on the
  // e-mail refuses the second insert, and GoTrue's `adminUserCreate` answers any failure of its
  // transaction with this 500.
  const failed = new AuthError(500, "unexpected_failure", "Database error creating new user");
  await context.db.transaction(async (tx) => {
    await databaseStep(failed, () =>
      tx.query(
        `insert into auth.users (instance_id, id, aud, role, email, encrypted_password, confirmation_token, recovery_token,
         email_change_token_new, email_change, raw_app_meta_data, raw_user_meta_data, created_at, updated_at)
       values ($1, $2, $3, 'authenticated', $4, $5, '', '', '', '', $6::jsonb, $7::jsonb, now(), now())`,
        [
          INSTANCE,
          id,
          AUDIENCE,
          email,
          hash,
          JSON.stringify({ provider: "email", providers: ["email"], ...object(body.app_metadata) }),
          JSON.stringify(object(body.user_metadata) ?? {}),
        ],
      ),
    );
    const user = (await userById(tx, id))!;
    await ensureEmailIdentity(tx, user);
    if (body.email_confirm === true) {
      await tx.query(
        `update auth.users set email_confirmed_at = now(),
           raw_user_meta_data = coalesce(raw_user_meta_data, '{}'::jsonb) || '{"email_verified": true}'::jsonb
         where id = $1`,
        [id],
      );
    }
  });
  return json(userJson((await userById(context.db, id))!));
}

/** Runs a database step, answering a database error (one with a SQLSTATE) as `failed`, as GoTrue wraps them. */
async function databaseStep<T>(failed: AuthError, step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code;
    if (!(error instanceof AuthError) && typeof code === "string" && /^[0-9A-Z]{5}$/.test(code)) throw failed;
    throw error;
  }
}

/**
 * `auth.admin.inviteUserByEmail` (GoTrue's `Invite`, api/invite.go): a new address gets a user
 * without a password and the invite e-mail; an unconfirmed user is sent the invite again; a
 * confirmed one is refused. GoTrue's `sendInvite` has no per-user `max_frequency`, and its
 * `sendEmail` skips the global e-mail limiter while the mailer autoconfirms
 * (`enable_confirmations = false`), so nothing here limits invites beyond the admin key.
 */
async function invite(request: Request, context: Context): Promise<Response> {
  requireAdmin(request, context);
  const body = await readJson(request);
  // GoTrue decodes the body into {email string, data object}: other JSON types there are bad_json.
  if ((body.email != null && typeof body.email !== "string") || !isObjectOrNull(body.data)) {
    throw new AuthError(400, "bad_json", "Could not parse request body as JSON");
  }
  const email = validEmail(body.email);
  const redirectTo = redirectFor(request, context);
  const existing = await userByEmail(context.db, email);
  const user = await context.db.transaction(async (tx) => {
    let user: Pick<UserRow, "id" | "email" | "raw_user_meta_data">;
    if (existing) {
      if (existing.email_confirmed_at) {
        throw new AuthError(422, "email_exists", "A user with this email address has already been registered");
      }
      user = existing;
    } else {
      // GoTrue's `signupNewUser`: a concurrent invite of the same new address passed the lookup
      // too, and the unique index on the e-mail refuses its insert with this 500.
      user = await databaseStep(new AuthError(500, "unexpected_failure", "Database error saving new user"), () =>
        insertInvitedUser(tx, email, (body.data as Record<string, unknown> | null) ?? {}),
      );
    }
    return sendInvite(tx, context, user, redirectTo);
  });
  return json(userJson(user));
}

const isObjectOrNull = (value: unknown) =>
  value === undefined || value === null || (typeof value === "object" && !Array.isArray(value));

/**
 * GoTrue's `SignupParams.ToUserModel` and `signupNewUser` for an invite: no password, and the
 * e-mail identity with the claims {sub, email}, not yet verified. One statement.
 */
async function insertInvitedUser(sql: Sql, email: string, data: Record<string, unknown>) {
  const id = randomUUID();
  await sql.query(
    `with inserted as (
       insert into auth.users (instance_id, id, aud, role, email, encrypted_password, confirmation_token, recovery_token,
         email_change_token_new, email_change, raw_app_meta_data, raw_user_meta_data, created_at, updated_at)
       values ($1, $2, $3, 'authenticated', $4, '', '', '', '', '', $5::jsonb, $6::jsonb, now(), now())
       returning id
     )
     insert into auth.identities (provider_id, user_id, identity_data, provider, last_sign_in_at, created_at, updated_at)
     select id, id, $7::jsonb, 'email', now(), now(), now() from inserted`,
    [
      INSTANCE,
      id,
      AUDIENCE,
      email,
      JSON.stringify({ provider: "email", providers: ["email"] }),
      JSON.stringify(data),
      JSON.stringify({ sub: id, email, email_verified: false, phone_verified: false }),
    ],
  );
  return { id, email, raw_user_meta_data: data };
}

/**
 * GoTrue's `sendInvite` (api/mail.go): a new one-time code, the invite e-mail from
 * `[auth.email.template.invite]` (or GoTrue's default), then the token hash kept as the user's
 * invite token (`storeInviteToken`).
 */
async function sendInvite(
  sql: Sql,
  context: Context,
  user: Pick<UserRow, "id" | "email" | "raw_user_meta_data">,
  redirectTo: string,
): Promise<UserRow> {
  const otp = otpCode(context.config.auth.email.otpLength);
  const hash = tokenHash(user.email, otp);
  sendAuthMail(context, context.config.auth.email.templates.invite ?? DEFAULT_INVITE, user, {
    ConfirmationURL: confirmationUrl(context, hash, "invite", redirectTo),
    Token: otp,
    TokenHash: hash,
    RedirectTo: redirectTo,
  });
  return storeInviteToken(sql, user, hash);
}

/**
 * An invite's token hash, kept on the user and in auth.one_time_tokens as its confirmation token
 * (replacing the last one: GoTrue's `CreateOneTimeToken` deletes it and inserts the new), with
 * `invited_at` and `confirmation_sent_at` (`sendInvite`, and `adminGenerateLink` for an invite).
 * One statement, which answers the user as it now is.
 */
async function storeInviteToken(sql: Sql, user: Pick<UserRow, "id" | "email">, hash: string): Promise<UserRow> {
  const { rows } = await sql.query<UserRow>(
    `with updated as (
       update auth.users set confirmation_token = $2, confirmation_sent_at = now(), invited_at = now()
       where id = $1 returning *
     ),
     token as (
       insert into auth.one_time_tokens (id, user_id, token_type, token_hash, relates_to)
       select $3, id, 'confirmation_token', $2, $4 from updated
       on conflict (user_id, token_type) do update
         set id = excluded.id, token_hash = excluded.token_hash, relates_to = excluded.relates_to,
           created_at = now(), updated_at = now()
     )
     ${userSelect("updated")}`,
    [user.id, hash, randomUUID(), user.email.toLowerCase()],
  );
  return rows[0]!;
}

/** The user an admin call names, or GoTrue's 404. */
async function adminTarget(id: string, context: Context): Promise<UserRow> {
  if (!UUID.test(id)) throw new AuthError(400, "validation_failed", "user_id must be an UUID");
  const user = await userById(context.db, id);
  if (!user) throw new AuthError(404, "user_not_found", "User not found");
  return user;
}

/** `auth.admin.getUserById`. */
async function adminGetUser(id: string, request: Request, context: Context): Promise<Response> {
  requireAdmin(request, context);
  return json(userJson(await adminTarget(id, context)));
}

/** `auth.admin.deleteUser` (hard delete): the database decides what goes with the user. */
async function adminDeleteUser(id: string, request: Request, context: Context): Promise<Response> {
  requireAdmin(request, context);
  await adminTarget(id, context);
  try {
    await context.db.query("delete from auth.users where id = $1", [id]);
  } catch (error) {
    console.error(error);
    throw new AuthError(500, "unexpected_failure", "Database error deleting user");
  }
  return json({});
}

/**
 * `auth.admin.generateLink` (GoTrue's `adminGenerateLink`, api/mail.go): the link, the code and
 * its hash, with the user; no e-mail is sent. `recovery` starts a recovery (404 for an unknown
 * address). `invite` does what an invite does without the e-mail: a new address gets a user
 * without a password (as `Invite`), an unconfirmed user a new confirmation token that replaces
 * the last, `invited_at` now; a confirmed user is refused with `email_exists`. GoTrue's other
 * types (signup, magiclink, email changes) are not implemented here.
 */
async function adminGenerateLink(request: Request, context: Context): Promise<Response> {
  requireAdmin(request, context);
  const body = await readJson(request);
  // GoTrue decodes the body into GenerateLinkParams: strings, and `data` an object.
  const strings = ["type", "email", "new_email", "password", "redirect_to"];
  if (strings.some((field) => body[field] != null && typeof body[field] !== "string") || !isObjectOrNull(body.data)) {
    throw new AuthError(400, "bad_json", "Could not parse request body as JSON");
  }
  const email = validEmail(body.email);
  const type = text(body.type);
  const { auth } = context.config;
  const requested = text(body.redirect_to);
  const redirectTo = isRedirectAllowed(requested, auth.siteUrl, auth.additionalRedirectUrls)
    ? requested
    : redirectFor(request, context);
  const user = await userByEmail(context.db, email);
  if (!user && ["recovery", "email_change_current", "email_change_new"].includes(type)) {
    throw new AuthError(404, "user_not_found", "User with this email not found");
  }
  let otp: string;
  let hash: string;
  let linked: UserRow;
  if (type === "recovery") {
    ({ otp, hash } = await context.db.transaction((tx) => startRecovery(tx, context, user!)));
    linked = (await userById(context.db, user!.id))!;
  } else if (type === "invite") {
    otp = otpCode(auth.email.otpLength);
    hash = tokenHash(email, otp);
    linked = await context.db.transaction(async (tx) => {
      if (user?.email_confirmed_at) {
        throw new AuthError(422, "email_exists", "A user with this email address has already been registered");
      }
      const invited =
        user ??
        (await databaseStep(new AuthError(500, "unexpected_failure", "Database error saving new user"), () =>
          insertInvitedUser(tx, email, (body.data as Record<string, unknown> | null) ?? {}),
        ));
      return storeInviteToken(tx, invited, hash);
    });
  } else if (["signup", "magiclink", "email_change_current", "email_change_new"].includes(type)) {
    throw new AuthError(422, "validation_failed", `Generating a ${type} link is not available in the local stack`);
  } else {
    throw new AuthError(400, "validation_failed", `Invalid email action link type requested: ${type}`);
  }
  return json({
    ...userJson(linked),
    action_link: confirmationUrl(context, hash, type, redirectTo),
    email_otp: otp,
    hashed_token: hash,
    redirect_to: redirectTo,
    verification_type: type,
  });
}
