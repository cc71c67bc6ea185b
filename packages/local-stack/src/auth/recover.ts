/**
 * `POST /recover`, as GoTrue's api/recover.go answers it: `resetPasswordForEmail` sends the
 * recovery e-mail (packages/local-stack/src/auth/mail.ts) to an address with an account, at most
 * once per `max_frequency`, and answers the same whether or not the address has one. The link it
 * sends is verified by packages/local-stack/src/auth/verify.ts. Dev and test only.
 */
import { type Context, json } from "../http.ts";
import { AuthError } from "./errors.ts";
import { readJson, redirectFor, text } from "./helpers.ts";
import { confirmationUrl, DEFAULT_RECOVERY, sendAuthMail, startRecovery, validEmail } from "./mail.ts";
import { limit } from "./rate-limit.ts";
import { userByEmail } from "./users.ts";

/** `resetPasswordForEmail` (GoTrue's `Recover`): the same answer whether or not the address has an account. */
export async function recover(request: Request, context: Context): Promise<Response> {
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
