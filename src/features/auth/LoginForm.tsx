/**
 * The /login form (docs/product.md, Account access; Messages and errors): e-mail, password with
 * show/hide, Remember me, Sign In.
 */
import { isAuthApiError } from "@supabase/supabase-js";
import { useState, type SubmitEvent } from "react";
import { authStorage, supabase } from "~/lib/supabase";
import { useAtom } from "~/lib/useAtom";
import { $auth } from "~/stores/session";
import { returnPath } from "./next";
import { Message, PasswordField, SubmitButton, TextField, useHydrated } from "~/components/ui/form";

export default function LoginForm() {
  const hydrated = useHydrated();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const auth = useAtom($auth, { status: "loading" });

  async function signIn(event: SubmitEvent<HTMLFormElement>) {
    event.preventDefault();
    // Read from the form, not from state: what a visitor typed before the script ran counts too.
    const form = new FormData(event.currentTarget);
    setBusy(true);
    setError(null);
    try {
      authStorage.remember(form.get("remember") === "on");
      const { error: failure } = await supabase.auth.signInWithPassword({
        email: String(form.get("email") ?? "").trim(),
        password: String(form.get("password") ?? ""),
      });
      if (failure) {
        // Auth's own answers (wrong password, unconfirmed e-mail, rate limit) are shown as Auth words
        // them; a network failure or an outage gets the general message.
        const answered = isAuthApiError(failure) && failure.status < 500 && failure.message;
        if (!answered) console.error("Sign-in failed", failure);
        setError(answered ? failure.message : "An error occurred during login");
        setBusy(false);
        return;
      }
      window.location.assign(returnPath(new URLSearchParams(window.location.search).get("next")));
    } catch (failure) {
      console.error("Sign-in failed", failure);
      setError("An error occurred during login");
      setBusy(false);
    }
  }

  return (
    <form method="post" onSubmit={signIn} className="space-y-5">
      {auth.status === "signed-in" && !busy && (
        // Signed in already (another tab, a remembered session): the portal is one click away, and
        // the form stays for signing in as someone else.
        <p className="rounded-lg border border-violet-400/30 bg-violet-950/40 px-4 py-3 text-sm text-slate-200">
          You are signed in{auth.user.email ? ` as ${auth.user.email}` : ""}.{" "}
          <a href="/portal" className="font-semibold text-violet-300 hover:text-violet-200 hover:underline">
            Go to your portal
          </a>
        </p>
      )}
      <Message text={error} tone="error" />
      <TextField label="Email" type="email" name="email" autoComplete="username" required />
      <PasswordField label="Password" name="password" autoComplete="current-password" required />
      <div className="flex items-center justify-between gap-4 text-sm">
        <label className="inline-flex items-center gap-2 text-slate-300">
          <input
            type="checkbox"
            name="remember"
            defaultChecked
            className="size-4 rounded border-white/30 bg-slate-950 accent-violet-500"
          />
          Remember me
        </label>
        <a href="/forgot-password" className="font-medium text-violet-300 hover:text-violet-200 hover:underline">
          Forgot Password?
        </a>
      </div>
      <SubmitButton busy={busy} disabled={!hydrated}>
        Sign In
      </SubmitButton>
    </form>
  );
}
