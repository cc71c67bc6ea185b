/**
 * The /forgot-password form (docs/product.md, Account access; States and transitions; Messages and
 * errors): the e-mail, then 'Check Your Email'.
 * Auth answers the same whether or not the account exists, so the confirmation reveals nothing.
 */
import { isAuthApiError } from "@supabase/supabase-js";
import { useState, type SubmitEvent } from "react";
import { supabase } from "~/lib/supabase";
import { blockButtonClass, Message, SubmitButton, TextField, useHydrated } from "~/components/ui/form";

export default function ForgotPasswordForm() {
  const hydrated = useHydrated();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [sentTo, setSentTo] = useState<string | null>(null);

  async function send(event: SubmitEvent<HTMLFormElement>) {
    event.preventDefault();
    // Read from the form, not from state: what a visitor typed before the script ran counts too.
    const address = String(new FormData(event.currentTarget).get("email") ?? "").trim();
    setBusy(true);
    setError(null);
    try {
      const { error: failure } = await supabase.auth.resetPasswordForEmail(address, {
        redirectTo: new URL("/reset-password", window.location.origin).href,
      });
      if (failure) {
        // Auth's own answers (a rate limit, a malformed address) as worded; an outage, the general message.
        const answered = isAuthApiError(failure) && failure.status < 500 && failure.message;
        if (!answered) console.error("Password reset request failed", failure);
        setError(answered ? failure.message : "An error occurred");
      } else setSentTo(address);
    } catch (failure) {
      console.error("Password reset request failed", failure);
      setError("An error occurred");
    } finally {
      setBusy(false);
    }
  }

  if (sentTo) {
    return (
      <div className="text-center" role="status">
        <h2 className="text-2xl font-bold text-white" tabIndex={-1} ref={(h) => h?.focus()}>
          Check Your Email
        </h2>
        <p className="mt-4 text-slate-300">
          If an account exists for <strong className="text-white">{sentTo}</strong>, we have sent it a link to reset the
          password. The link works once and expires in an hour.
        </p>
        <a href="/login" className={`${blockButtonClass} mt-8`}>
          Back to Login
        </a>
      </div>
    );
  }

  return (
    <form method="post" onSubmit={send} className="space-y-5">
      <Message text={error} tone="error" />
      <TextField label="Email" type="email" name="email" autoComplete="email" required />
      <SubmitButton busy={busy} disabled={!hydrated}>
        Send Reset Link
      </SubmitButton>
    </form>
  );
}
