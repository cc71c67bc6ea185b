/**
 * Sign-up, as GoTrue's api/signup.go has it: `POST /signup` is refused, as GoTrue refuses it when
 * sign-ups are disabled (accounts come from purchases, through the admin calls); what remains is
 * how a new user without a password is written (`SignupParams.ToUserModel` and `signupNewUser`),
 * which an invitation and an invite link use. Dev and test only.
 */
import { randomUUID } from "node:crypto";
import type { Sql } from "../db.ts";
import { AuthError } from "./errors.ts";
import { AUDIENCE, INSTANCE } from "./users.ts";

/** GoTrue's `Signup` with `disable_signup`: refused. */
export function signup(): Response {
  throw new AuthError(422, "signup_disabled", "Signups not allowed for this instance");
}

/**
 * GoTrue's `SignupParams.ToUserModel` and `signupNewUser` for an invite: no password, and the
 * e-mail identity with the claims {sub, email}, not yet verified. One statement.
 */
export async function insertInvitedUser(sql: Sql, email: string, data: Record<string, unknown>) {
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
