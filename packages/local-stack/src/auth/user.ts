/**
 * `GET /user` and `PUT /user`, as GoTrue's api/user.go answers them: the signed-in user, and
 * `updateUser` for the password (checked for length as GoTrue's api/password.go checks it; a new
 * one ends the user's other sessions and spends their e-mailed links) and the user's metadata.
 * Changing the e-mail address or phone is not offered. Dev and test only.
 */
import bcrypt from "bcryptjs";
import { type Context, json } from "../http.ts";
import { currentUser } from "./auth.ts";
import { AuthError } from "./errors.ts";
import { readJson, text } from "./helpers.ts";
import { validEmail } from "./mail.ts";
import { limit } from "./rate-limit.ts";
import { BCRYPT_COST, ensureEmailIdentity, storePassword, UUID, userById, userJson } from "./users.ts";

/** `getUser` (GoTrue's `UserGet`): the user behind the bearer token. */
export async function getUser(request: Request, context: Context): Promise<Response> {
  return json(userJson((await currentUser(request, context)).user));
}

function checkPasswordStrength(password: string, context: Context) {
  const min = context.config.auth.minimumPasswordLength;
  if ([...password].length < min) {
    throw new AuthError(422, "weak_password", `Password should be at least ${min} characters.`, {
      weak_password: { reasons: ["length"] },
    });
  }
}

/** `updateUser` (GoTrue's `UserUpdate`): the password and the user's metadata. */
export async function updateUser(request: Request, context: Context): Promise<Response> {
  limit(context, "otp");
  const body = await readJson(request);
  const { user, claims } = await currentUser(request, context);
  // GoTrue's `validateUserUpdateParams` checks a given address first (`validateEmail`), and
  // compares it lower-cased: the user's own address in other letters is no change.
  const email = typeof body.email === "string" && body.email !== "" ? validEmail(body.email) : "";
  if ((email !== "" && email !== user.email) || (typeof body.phone === "string" && body.phone !== "")) {
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
