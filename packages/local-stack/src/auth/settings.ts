/**
 * `GET /settings`, as GoTrue's api/settings.go answers it: which sign-in methods the instance
 * offers. Here only e-mail, with sign-ups off (accounts come from purchases, through the admin
 * calls) and `mailer_autoconfirm` following `enable_confirmations` in supabase/config.toml.
 * Dev and test only.
 */
import { type Context, json } from "../http.ts";

/** GoTrue's `Settings`. */
export function settings(context: Context): Response {
  return json({
    external: { email: true, phone: false },
    disable_signup: true,
    mailer_autoconfirm: !context.config.auth.email.enableConfirmations,
    phone_autoconfirm: false,
    sms_provider: "",
    saml_enabled: false,
  });
}
