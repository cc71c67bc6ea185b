/**
 * `POST /invite`, as GoTrue's api/invite.go answers it: `auth.admin.inviteUserByEmail`, which the
 * Stripe webhook calls with the service key for a buyer without an account. The invite e-mail and
 * its token come from packages/local-stack/src/auth/mail.ts; its link is verified by
 * packages/local-stack/src/auth/verify.ts. Dev and test only.
 */
import { type Context, json } from "../http.ts";
import { requireAdmin } from "./auth.ts";
import { AuthError, databaseStep } from "./errors.ts";
import { isObjectOrNull, readJson, redirectFor } from "./helpers.ts";
import { sendInvite, validEmail } from "./mail.ts";
import { insertInvitedUser } from "./signup.ts";
import { userByEmail, userJson, type UserRow } from "./users.ts";

/**
 * `auth.admin.inviteUserByEmail` (GoTrue's `Invite`, api/invite.go): a new address gets a user
 * without a password and the invite e-mail; an unconfirmed user is sent the invite again; a
 * confirmed one is refused. GoTrue's `sendInvite` has no per-user `max_frequency`, and its
 * `sendEmail` skips the global e-mail limiter while the mailer autoconfirms
 * (`enable_confirmations = false`), so nothing here limits invites beyond the admin key.
 */
export async function invite(request: Request, context: Context): Promise<Response> {
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
