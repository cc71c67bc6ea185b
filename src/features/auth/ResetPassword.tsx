/**
 * The /reset-password page (docs/product.md, States and transitions: Reset password; Messages and
 * errors): verifying, then the error view, the Continue step of an e-mailed link, the new-password
 * form (for the account the link signed in, with the password rule under the field), or success
 * and /login 3 seconds later.
 * A link never replaces another account's session silently: Auth's redirect form for another
 * account than the one signed in is refused (src/lib/url-session.ts) and the page offers to sign
 * out first; the Continue step of an e-mailed link says who is signed in before it is pressed.
 * A buyer's set-password link (`type=invite`) goes the same way, worded for a new account, except
 * at the end: the buyer is signed in already, so they go straight to the portal's first visit
 * (`FIRST_VISIT_PATH`) instead of signing in again; and a link that cannot be used says how to
 * get a new one in words for someone who never had a password.
 */
import { useEffect, useMemo, useState, type SubmitEvent } from "react";
import { authStorage, supabase } from "~/lib/supabase";
import { useAtom } from "~/lib/useAtom";
import { $auth, $authEvent, type AuthEvent, type AuthState } from "~/stores/session";
import { FIRST_VISIT_PATH } from "~/features/portal/logic";
import {
  DEFAULT_LINK_ERROR,
  INVITE_LINK_ERROR,
  NO_TOKEN_ERROR,
  passwordProblem,
  PASSWORD_HINT,
  readResetLink,
  MIN_PASSWORD_LENGTH,
  type LinkType,
  type ResetLink,
} from "./reset-link";
import {
  ActionButton,
  blockButtonClass,
  Message,
  PasswordField,
  Spinner,
  SubmitButton,
  useHydrated,
} from "~/components/ui/form";
import { AUTH_HEADING_ID } from "./ui";

/** Seconds from success to /login (docs/product.md, Business constants and limits). */
export const REDIRECT_SECONDS = 3;

/** The words that differ between resetting a password and choosing a new account's first one. */
const COPY = {
  recovery: {
    heading: null,
    title: null,
    continueText: "For your security, this link works once. Press Continue to choose your new password.",
    forAccount: "Choose a new password for",
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
    forAccount: "Choose a password for",
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
  | { name: "other-account"; email: string | null }
  | { name: "form" }
  | { name: "error"; message: string; type: LinkType }
  | { name: "success" };

/** The view for the address and what supabase-js has reported so far. */
function phaseFor(link: ResetLink | null, auth: AuthState, event: AuthEvent | null): Phase {
  if (!link) return { name: "verifying" };
  if (link.kind === "error") return { name: "error", message: link.message, type: "recovery" };
  if (link.kind === "token-hash") return { name: "continue", tokenHash: link.tokenHash, type: link.type };
  // Auth's redirect for another account than the one signed in here: refused, and said so.
  if (link.kind === "fragment" && auth.status === "signed-in" && auth.user.id !== link.account)
    return { name: "other-account", email: auth.user.email ?? null };
  // A recovery event or a session opens the form; no session, the error.
  if (event === "PASSWORD_RECOVERY" || auth.status === "signed-in") return { name: "form" };
  if (auth.status === "signed-out") {
    if (link.kind === "fragment" && link.type === "invite")
      return { name: "error", message: INVITE_LINK_ERROR, type: "invite" };
    return { name: "error", message: link.kind === "fragment" ? DEFAULT_LINK_ERROR : NO_TOKEN_ERROR, type: "recovery" };
  }
  return { name: "verifying" };
}

export default function ResetPassword() {
  const auth = useAtom($auth, { status: "loading" });
  const event = useAtom($authEvent, null);
  // The address is read in the browser only (the page is static), once.
  const hydrated = useHydrated();
  const link = useMemo(() => (hydrated ? readResetLink(window.location.href) : null), [hydrated]);
  // What the person did here (Continue, a new password) outranks what the address said.
  const [outcome, setOutcome] = useState<Phase | null>(null);
  const phase = outcome ?? phaseFor(link, auth, event);
  const type: LinkType = link && "type" in link ? link.type : "recovery";
  const copy = COPY[type];
  usePageWording(copy);
  // The account the link signed in to: the form says whose password it sets.
  const account = auth.status === "signed-in" ? (auth.user.email ?? null) : null;

  return (
    <div aria-live="polite">
      {phase.name === "verifying" && <Verifying />}
      {phase.name === "continue" && (
        <ContinueStep
          tokenHash={phase.tokenHash}
          type={phase.type}
          copy={copy}
          signedInAs={auth.status === "signed-in" ? (auth.user.email ?? "another account") : null}
          onVerified={() => setOutcome({ name: "form" })}
          onFailed={(message) => setOutcome({ name: "error", message, type: phase.type })}
        />
      )}
      {phase.name === "error" && <LinkError message={phase.message} type={phase.type} />}
      {phase.name === "other-account" && <OtherAccount email={phase.email} />}
      {phase.name === "form" && (
        <NewPasswordForm copy={copy} account={account} onDone={() => setOutcome({ name: "success" })} />
      )}
      {phase.name === "success" && <Success copy={copy} type={type} />}
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
  signedInAs,
  onVerified,
  onFailed,
}: {
  tokenHash: string;
  type: LinkType;
  copy: Copy;
  /** Who is signed in on this device already: the link opens its own account in their place. */
  signedInAs: string | null;
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
        // An invite's own words; a reset shows Auth's (docs/product.md, Messages and errors).
        onFailed(type === "invite" ? INVITE_LINK_ERROR : error.message || DEFAULT_LINK_ERROR);
        return;
      }
      // The token is spent: keep it out of the address bar and the history.
      window.history.replaceState(null, "", window.location.pathname);
      onVerified();
    } catch (error) {
      console.error("Verifying the reset link failed", error);
      onFailed(type === "invite" ? INVITE_LINK_ERROR : DEFAULT_LINK_ERROR);
    }
  }

  return (
    <div className="text-center">
      <p className="text-slate-300">{copy.continueText}</p>
      {signedInAs && (
        <p className="mt-4 rounded-lg border border-violet-400/30 bg-violet-950/40 px-4 py-3 text-sm text-slate-200">
          You are signed in as <span className="font-semibold text-white wrap-anywhere">{signedInAs}</span>. Continue
          signs you out of it on this device and opens the account this link was sent for.
        </p>
      )}
      <ActionButton onClick={verify} busy={busy}>
        Continue
      </ActionButton>
    </div>
  );
}

/**
 * Auth's redirect form for another account than the one signed in: the session here stays, and
 * the person chooses. Signing out reloads the page with the link still in the address, which then
 * opens its account (src/lib/url-session.ts).
 */
function OtherAccount({ email }: { email: string | null }) {
  const [busy, setBusy] = useState(false);

  async function signOutAndUseLink() {
    setBusy(true);
    const { error } = await supabase.auth.signOut({ scope: "local" });
    if (error) console.error("Signing out before using the link failed", error);
    window.location.reload();
  }

  return (
    <div className="text-center">
      <h2 className="text-2xl font-bold text-white">This link is for another account</h2>
      <p role="alert" className="mt-4 text-slate-300">
        You are signed in as <span className="font-semibold text-white wrap-anywhere">{email ?? "someone else"}</span>,
        and this link opens a different account. Nothing has changed. Sign out to use the link, or keep going as
        yourself.
      </p>
      <ActionButton onClick={signOutAndUseLink} busy={busy}>
        Sign Out and Use This Link
      </ActionButton>
      <a href="/portal" className="mt-4 inline-block font-medium text-violet-300 hover:text-violet-200 hover:underline">
        Go to your portal
      </a>
    </div>
  );
}

function LinkError({ message, type }: { message: string; type: LinkType }) {
  return (
    <div className="text-center">
      <h2 className="text-2xl font-bold text-white">This link can't be used</h2>
      {/* Text from the address: rendered as text, never as HTML. */}
      <p role="alert" className="mt-4 text-slate-300">
        {message}
      </p>
      <a href="/forgot-password" className={`${blockButtonClass} mt-8`}>
        {type === "invite" ? "Send Me a New Link" : "Request New Reset Link"}
      </a>
    </div>
  );
}

function NewPasswordForm({ copy, account, onDone }: { copy: Copy; account: string | null; onDone: () => void }) {
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
      {account && (
        <p className="text-center text-slate-300">
          {copy.forAccount} <span className="font-semibold text-white wrap-anywhere">{account}</span>.
        </p>
      )}
      {/* A password manager saves the new password under this account. */}
      {account && <input type="email" name="username" autoComplete="username" value={account} readOnly hidden />}
      <Message text={error} tone="error" />
      <PasswordField
        label={copy.password}
        hint={PASSWORD_HINT}
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

/**
 * Success. A reset: the link's session ends here, and the person signs in with the new password
 * (docs/product.md, States and transitions). An invite: the new buyer is signed in by the link already, so they go
 * straight to their portal, replacing this page in the history (Back would only show the form
 * again).
 */
function Success({ copy, type }: { copy: Copy; type: LinkType }) {
  useEffect(() => {
    if (type === "invite") return window.location.replace(FIRST_VISIT_PATH);
    void supabase.auth.signOut({ scope: "local" }).then(({ error }) => {
      if (error) console.error("Signing out after the reset failed", error);
    });
    const timer = window.setTimeout(() => window.location.assign("/login"), REDIRECT_SECONDS * 1000);
    return () => window.clearTimeout(timer);
  }, [type]);
  if (type === "invite")
    return (
      <div role="status" className="text-center">
        <h2 className="text-2xl font-bold text-white">{copy.done}</h2>
        <p className="mt-4 text-slate-300">{copy.doneText} Opening your portal…</p>
        <a href={FIRST_VISIT_PATH} className={`${blockButtonClass} mt-8`}>
          Go to Your Portal
        </a>
      </div>
    );
  return (
    <div role="status" className="text-center">
      <h2 className="text-2xl font-bold text-white">{copy.done}</h2>
      <p className="mt-4 text-slate-300">
        {copy.doneText} Taking you to the login page in {REDIRECT_SECONDS} seconds…
      </p>
      <a href="/login" className={`${blockButtonClass} mt-8`}>
        Go to Login
      </a>
    </div>
  );
}
