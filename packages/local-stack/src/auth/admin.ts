/**
 * `/admin/users`, as GoTrue's api/admin.go answers it: the admin calls the Stripe webhook makes
 * with the service key (`auth.admin.createUser`, `getUserById`, `deleteUser`), each refused without
 * an admin role. `generateLink` is in packages/local-stack/src/auth/mail.ts and `inviteUserByEmail`
 * in packages/local-stack/src/auth/invite.ts, where GoTrue keeps them. Dev and test only.
 */
import { randomBytes, randomUUID } from "node:crypto";
import bcrypt from "bcryptjs";
import { type Context, json } from "../http.ts";
import { requireAdmin } from "./auth.ts";
import { AuthError, databaseStep } from "./errors.ts";
import { readJson, text } from "./helpers.ts";
import { validEmail } from "./mail.ts";
import {
  AUDIENCE,
  BCRYPT_COST,
  ensureEmailIdentity,
  INSTANCE,
  UUID,
  userByEmail,
  userById,
  userJson,
  type UserRow,
} from "./users.ts";

/** `auth.admin.createUser`: no password means a random one, as GoTrue does; no strength check. */
export async function adminCreateUser(request: Request, context: Context): Promise<Response> {
  requireAdmin(request, context);
  const body = await readJson(request);
  if (!text(body.email) && !text(body.phone)) {
    throw new AuthError(400, "validation_failed", "Cannot create a user without either an email or phone");
  }
  // GoTrue's `adminUserCreate` checks the address (`validateEmail`) before the phone.
  const email = text(body.email) ? validEmail(body.email) : "";
  if (text(body.phone))
    throw new AuthError(422, "validation_failed", "Phone users are not available in the local stack");
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

/** The user an admin call names, or GoTrue's 404. */
async function adminTarget(id: string, context: Context): Promise<UserRow> {
  if (!UUID.test(id)) throw new AuthError(400, "validation_failed", "user_id must be an UUID");
  const user = await userById(context.db, id);
  if (!user) throw new AuthError(404, "user_not_found", "User not found");
  return user;
}

/** `auth.admin.getUserById`. */
export async function adminGetUser(id: string, request: Request, context: Context): Promise<Response> {
  requireAdmin(request, context);
  return json(userJson(await adminTarget(id, context)));
}

/** `auth.admin.deleteUser` (hard delete): the database decides what goes with the user. */
export async function adminDeleteUser(id: string, request: Request, context: Context): Promise<Response> {
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
