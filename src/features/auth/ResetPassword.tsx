/**
 * The /reset-password page (docs/product.md §4 Reset password, §8): verifying, then the error view,
 * the Continue step of an e-mailed link, the new-password form, or success and /login 3 seconds later.
 * A buyer's set-password link (`type=invite`) goes the same way, worded for a new account.
 */
import { useEffect, useMemo, useState, type SubmitEvent } from "react";
import { authStorage, supabase } from "../../lib/supabase";
import { useAtom } from "../../lib/useAtom";
import { $auth, $authEvent, type AuthEvent, type AuthState } from "../../stores/session";
import {
  DEFAULT_LINK_ERROR,
  NO_TOKEN_ERROR,
  passwordProblem,
  readResetLink,
  MIN_PASSWORD_LENGTH,
  type LinkType,
  type ResetLink,
} from "./reset-link";
import { AUTH_HEADING_ID, Message, PasswordField, Spinner, SubmitButton, useHydrated } from "./ui";

/** Seconds from success to /login (docs/product.md §9). */
export const REDIRECT_SECONDS = 3;

/** The words that differ between resetting a password and choosing a new account's first one. */
const COPY = {
  recovery: {
    heading: null,
    title: null,
    continueText: "For your security, this link works once. Press Continue to choose your new password.",
    password: "New password",
    confirmation: "Confirm new password",
    submit: "Update Password",
    done: "Password updated",
    doneText: "Your new password is set.",
  },
  invite: {
    heading: "Set Your Password",
    title: "Set your password",
    continueText:
      "Welcome! Your account is ready. For your security, this link works once. Press Continue to choose your password.",
    password: "Password",
    confirmation: "Confirm password",
    submit: "Set Password",
    done: "Password set",
    doneText: "Your password is set, and your account is ready.",
  },
} as const satisfies Record<LinkType, Record<string, string | null>>;
type Copy = (typeof COPY)[LinkType];

type Phase =
  | { name: "verifying" }
  | { name: "continue"; tokenHash: string; type: LinkType }
  | { name: "form" }
  | { name: "error"; message: string }
  | { name: "success" };

/** The view for the address and what supabase-js has reported so far. */
function phaseFor(link: ResetLink | null, auth: AuthState, event: AuthEvent | null): Phase {
  if (!link) return { name: "verifying" };
  if (link.kind === "error") return { name: "error", message: link.message };
  if (link.kind === "token-hash") return { name: "continue", tokenHash: link.tokenHash, type: link.type };
  // A recovery event or a session opens the form; no session, the error.
  if (event === "PASSWORD_RECOVERY" || auth.status === "signed-in") return { name: "form" };
  if (auth.status === "signed-out")
    return { name: "error", message: link.kind === "fragment" ? DEFAULT_LINK_ERROR : NO_TOKEN_ERROR };
  return { name: "verifying" };
}

const buttonClass =
  "inline-flex items-center justify-center gap-2 rounded-lg bg-violet-600 px-5 py-3 font-semibold text-white hover:bg-violet-500 disabled:cursor-not-allowed disabled:opacity-60";

export default function ResetPassword() {
  const auth = useAtom($auth, { status: "loading" });
  const event = useAtom($authEvent, null);
  // The address is read in the browser only (the page is static), once.
  const hydrated = useHydrated();
  const link = useMemo(() => (hydrated ? readResetLink(window.location.href) : null), [hydrated]);
  // What the person did here (Continue, a new password) outranks what the address said.
  const [outcome, setOutcome] = useState<Phase | null>(null);
  const phase = outcome ?? phaseFor(link, auth, event);
  const copy = COPY[link && "type" in link ? link.type : "recovery"];
  usePageWording(copy);

  return (
    <div aria-live="polite">
      {phase.name === "verifying" && <Verifying />}
      {phase.name === "continue" && (
        <ContinueStep
          tokenHash={phase.tokenHash}
          type={phase.type}
          copy={copy}
          onVerified={() => setOutcome({ name: "form" })}
          onFailed={(message) => setOutcome({ name: "error", message })}
        />
      )}
      {phase.name === "error" && <LinkError message={phase.message} />}
      {phase.name === "form" && <NewPasswordForm copy={copy} onDone={() => setOutcome({ name: "success" })} />}
      {phase.name === "success" && <Success copy={copy} />}
    </div>
  );
}

function Verifying() {
  return (
    <div role="status" className="flex flex-col items-center gap-4 py-8 text-slate-300">
      <Spinner className="size-8 text-violet-300" />
      <p>Verifying your reset link…</p>
    </div>
  );
}

/**
 * An invite renames the page: its heading (AuthLayout's h1, `AUTH_HEADING_ID`) and the tab's title,
 * which the static build wrote for a reset. A reset keeps them.
 */
function usePageWording(copy: Copy) {
  useEffect(() => {
    if (!copy.heading || !copy.title) return;
    const heading = document.getElementById(AUTH_HEADING_ID);
    if (heading) heading.textContent = copy.heading;
    const brand = document.title.split(" | ").at(-1);
    document.title = brand && brand !== document.title ? `${copy.title} | ${brand}` : copy.title;
  }, [copy]);
}

/** The e-mailed link's step: the one-time token is spent only when the person presses Continue. */
function ContinueStep({
  tokenHash,
  type,
  copy,
  onVerified,
  onFailed,
}: {
  tokenHash: string;
  type: LinkType;
  copy: Copy;
  onVerified: () => void;
  onFailed: (message: string) => void;
}) {
  const [busy, setBusy] = useState(false);

  async function verify() {
    setBusy(true);
    try {
      // The session this link opens is kept for this tab only.
      authStorage.remember(false);
      const { error } = await supabase.auth.verifyOtp({ token_hash: tokenHash, type });
      if (error) {
        onFailed(error.message || DEFAULT_LINK_ERROR);
        return;
      }
      // The token is spent: keep it out of the address bar and the history.
      window.history.replaceState(null, "", window.location.pathname);
      onVerified();
    } catch (error) {
      console.error("Verifying the reset link failed", error);
      onFailed(DEFAULT_LINK_ERROR);
    }
  }

  return (
    <div className="text-center">
      <p className="text-slate-300">{copy.continueText}</p>
      <button type="button" onClick={verify} disabled={busy} aria-busy={busy} className={`${buttonClass} mt-8 w-full`}>
        {busy && <Spinner />}
        Continue
      </button>
    </div>
  );
}

function LinkError({ message }: { message: string }) {
  return (
    <div className="text-center">
      <h2 className="text-2xl font-bold text-white">This link can't be used</h2>
      {/* Text from the address: rendered as text, never as HTML. */}
      <p role="alert" className="mt-4 text-slate-300">
        {message}
      </p>
      <a href="/forgot-password" className={`${buttonClass} mt-8`}>
        Request New Reset Link
      </a>
    </div>
  );
}

function NewPasswordForm({ copy, onDone }: { copy: Copy; onDone: () => void }) {
  const [password, setPassword] = useState("");
  const [confirmation, setConfirmation] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  async function save(event: SubmitEvent<HTMLFormElement>) {
    event.preventDefault();
    const problem = passwordProblem(password, confirmation);
    setError(problem);
    if (problem) return;
    setBusy(true);
    try {
      const { error: failure } = await supabase.auth.updateUser({ password });
      if (failure) {
        setError(failure.message || "An error occurred while resetting your password");
        setBusy(false);
        return;
      }
      onDone();
    } catch (failure) {
      console.error("Updating the password failed", failure);
      setError("An error occurred while resetting your password");
      setBusy(false);
    }
  }

  return (
    <form method="post" onSubmit={save} className="space-y-5" noValidate>
      <Message text={error} tone="error" />
      <PasswordField
        label={copy.password}
        name="new-password"
        autoComplete="new-password"
        required
        minLength={MIN_PASSWORD_LENGTH}
        value={password}
        onChange={(e) => setPassword(e.target.value)}
      />
      <PasswordField
        label={copy.confirmation}
        name="confirm-password"
        autoComplete="new-password"
        required
        value={confirmation}
        onChange={(e) => setConfirmation(e.target.value)}
      />
      <SubmitButton busy={busy}>{copy.submit}</SubmitButton>
    </form>
  );
}

/** Success: the link's session ends here, and the person signs in with the new password. */
function Success({ copy }: { copy: Copy }) {
  useEffect(() => {
    void supabase.auth.signOut({ scope: "local" }).then(({ error }) => {
      if (error) console.error("Signing out after the reset failed", error);
    });
    const timer = window.setTimeout(() => window.location.assign("/login"), REDIRECT_SECONDS * 1000);
    return () => window.clearTimeout(timer);
  }, []);
  return (
    <div role="status" className="text-center">
      <h2 className="text-2xl font-bold text-white">{copy.done}</h2>
      <p className="mt-4 text-slate-300">
        {copy.doneText} Taking you to the login page in {REDIRECT_SECONDS} seconds…
      </p>
      <a href="/login" className={`${buttonClass} mt-8`}>
        Go to Login
      </a>
    </div>
  );
}
