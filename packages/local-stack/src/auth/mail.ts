/**
 * The Auth stand-in's e-mails and links, as GoTrue's api/mail.go makes them: the e-mail address
 * check, the one-time code and the token hash links carry, the `/verify` link an e-mail's
 * `{{ .ConfirmationURL }}` is, the e-mails themselves (the templates in supabase/templates/ named
 * by supabase/config.toml, or GoTrue's defaults, rendered by
 * packages/local-stack/src/auth/template.ts into the outbox), the recovery and invite tokens they
 * leave on the user, and `POST /admin/generate_link`, which GoTrue keeps here too: the link and
 * code without the e-mail. Dev and test only.
 */
import { createHash, randomInt, randomUUID } from "node:crypto";
import type { Sql } from "../db.ts";
import { type Context, json } from "../http.ts";
import { requireAdmin } from "./auth.ts";
import { AuthError, databaseStep } from "./errors.ts";
import { isObjectOrNull, readJson, redirectFor, text } from "./helpers.ts";
import { isRedirectAllowed } from "./redirect.ts";
import { insertInvitedUser } from "./signup.ts";
import { htmlToText, renderTemplate } from "./template.ts";
import { userByEmail, userById, userJson, type UserRow, userSelect } from "./users.ts";

/**
 * The addresses GoTrue accepts: checkmail's `ValidateFormat` (github.com/badoux/checkmail at
 * d0a759655d62, the version supabase/auth's go.mod pins), which `validateEmail` calls on the
 * address as sent. Before the `@`, ASCII letters, digits and ``.!#$%&'*+/=?^_`{|}~-``; after it,
 * dot-separated labels of ASCII letters, digits and inner hyphens, at most 63 characters each, and
 * no dot needed (`admin@localhost` passes). Spaces, quotes, `:` and `;`, non-ASCII letters,
 * underscores in the domain and a trailing dot do not. It is the HTML standard's "valid e-mail
 * address", the rule a form's `type="email"` field applies.
 */
const EMAIL =
  /^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$/;

/** GoTrue's default invite e-mail (mailer/templatemailer `defaultInviteMail`), sent when supabase/config.toml names no template. */
const DEFAULT_INVITE = {
  subject: "You've been invited",
  content:
    "<h2>You've been invited</h2>\n\n<p>You've been invited to create an account. Follow the link below to accept.</p>\n" +
    '<p><a href="{{ .ConfirmationURL }}">Accept invitation</a></p>',
};

/** GoTrue's default recovery e-mail, sent when supabase/config.toml names no template. */
export const DEFAULT_RECOVERY = {
  subject: "Reset your password",
  content:
    "<h2>Reset your password</h2>\n\n<p>We received a request to reset your password. Follow the link below to choose a new one.</p>\n" +
    '<p><a href="{{ .ConfirmationURL }}">Reset password</a></p>\n<p>If you didn\'t request this, you can safely ignore this email.</p>',
};

/**
 * GoTrue's `validateEmail` (api/mail.go), which every endpoint taking an address calls (sign-up,
 * admin create and update, invite, generate link, recover, OTP, resend, verify, update user):
 * present, at most 255 bytes, of checkmail's format (`EMAIL`), all as sent, nothing trimmed; the
 * address is then lower-cased. A refusal is 400 `validation_failed` with checkmail's `ErrBadFormat`
 * text after GoTrue's prefix, the message auth-js's own tests expect.
 */
export function validEmail(value: unknown): string {
  const email = text(value);
  if (email === "") throw new AuthError(400, "validation_failed", "An email address is required");
  if (Buffer.byteLength(email) > 255) throw new AuthError(400, "validation_failed", "An email address is too long");
  if (!EMAIL.test(email)) {
    throw new AuthError(400, "validation_failed", "Unable to validate email address: invalid format");
  }
  return email.toLowerCase();
}

/** GoTrue's `GenerateTokenHash`: what links carry and what the database keeps. */
export const tokenHash = (email: string, otp: string) =>
  createHash("sha224")
    .update(email + otp)
    .digest("hex");
const otpCode = (digits: number) => String(randomInt(0, 10 ** digits)).padStart(digits, "0");

/** Starts a recovery for `user`: a new one-time token replaces any earlier one. Answers the token and its hash. */
export async function startRecovery(sql: Sql, context: Context, user: UserRow) {
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
export function confirmationUrl(context: Context, hash: string, type: string, redirectTo: string) {
  const redirect = /[&=#]/.test(redirectTo) ? encodeURIComponent(redirectTo) : redirectTo;
  return `${context.config.url}/auth/v1/verify?token=${encodeURIComponent(hash)}&type=${type}&redirect_to=${redirect}`;
}

/** Renders an auth e-mail from its template with GoTrue's fields (mailer/templatemailer) and sends it to the user. */
export function sendAuthMail(
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

/**
 * GoTrue's `sendInvite` (api/mail.go): a new one-time code, the invite e-mail from
 * `[auth.email.template.invite]` (or GoTrue's default), then the token hash kept as the user's
 * invite token (`storeInviteToken`).
 */
export async function sendInvite(
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

/**
 * `auth.admin.generateLink` (GoTrue's `adminGenerateLink`, api/mail.go): the link, the code and
 * its hash, with the user; no e-mail is sent. `recovery` starts a recovery (404 for an unknown
 * address). `invite` does what an invite does without the e-mail: a new address gets a user
 * without a password (as `Invite`), an unconfirmed user a new confirmation token that replaces
 * the last, `invited_at` now; a confirmed user is refused with `email_exists`. GoTrue's other
 * types (signup, magiclink, email changes) are not implemented here.
 */
export async function adminGenerateLink(request: Request, context: Context): Promise<Response> {
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
