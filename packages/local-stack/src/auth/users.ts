/**
 * The user store of the Auth stand-in, as GoTrue's models keep it (models/user.go,
 * models/identity.go): auth.users rows with their identities, found as GoTrue finds them
 * (instance, audience, lower-case e-mail), answered in GoTrue's JSON, and changed as its
 * `User.UpdatePassword` and `User.Confirm` change them. Dev and test only.
 */
import type { Sql } from "../db.ts";

export const BCRYPT_COST = 10;
/** GoTrue's `uuid.Nil`: the instance every user of a project belongs to. */
export const INSTANCE = "00000000-0000-0000-0000-000000000000";
export const AUDIENCE = "authenticated";
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface UserRow {
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

export interface IdentityRow {
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
export function userJson(user: UserRow) {
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

/** A user row with its identities, from auth.users or from a statement's RETURNING (`from`). */
export const userSelect = (from = "auth.users") => `select u.id, u.email, u.encrypted_password, u.email_confirmed_at,
    u.confirmed_at, u.invited_at, u.confirmation_sent_at, u.recovery_sent_at,
    u.last_sign_in_at, u.banned_until, u.raw_app_meta_data, u.raw_user_meta_data, u.created_at, u.updated_at,
    u.is_anonymous,
    coalesce((select json_agg(i order by i.created_at) from auth.identities i where i.user_id = u.id), '[]') as identities
  from ${from} u`;
const USER = userSelect();

/** GoTrue's `FindUserByEmailAndAudience`. */
export async function userByEmail(sql: Sql, email: string): Promise<UserRow | undefined> {
  const { rows } = await sql.query<UserRow>(
    `${USER} where u.instance_id = $1 and lower(u.email) = $2 and u.aud = $3 and u.is_sso_user = false limit 1`,
    [INSTANCE, email.toLowerCase(), AUDIENCE],
  );
  return rows[0];
}

/** GoTrue's `FindUserByID`. */
export async function userById(sql: Sql, id: string): Promise<UserRow | undefined> {
  if (!UUID.test(id)) return undefined;
  const { rows } = await sql.query<UserRow>(`${USER} where u.instance_id = $1 and u.id = $2`, [INSTANCE, id]);
  return rows[0];
}

export const banned = (user: UserRow) => !!user.banned_until && new Date(user.banned_until).getTime() > Date.now();

export async function ensureEmailIdentity(sql: Sql, user: UserRow) {
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

/** GoTrue's `User.UpdatePassword`: a new password spends every e-mailed token; with no session named, every session ends. */
export async function storePassword(sql: Sql, user: UserRow, hash: string, keepSession: string | null) {
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
export async function confirm(sql: Sql, user: UserRow) {
  await sql.query(
    `update auth.users set confirmation_token = '', email_confirmed_at = now(),
       raw_user_meta_data = coalesce(raw_user_meta_data, '{}'::jsonb) || '{"email_verified": true}'::jsonb
     where id = $1`,
    [user.id],
  );
  await sql.query("delete from auth.one_time_tokens where user_id = $1", [user.id]);
}
