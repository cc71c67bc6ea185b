/**
 * The /checkout/{productKey} island (docs/product.md, Screens and routes: Checkout, States and transitions, Validation rules, Calls, Messages and errors): Back, the
 * e-mail, the order summary, 'Complete Purchase' and its notes; or 'Product Not Found'. A built
 * program page knows its program at build time, so the summary is in its HTML; the shell that the
 * static host serves for every other key (public/_redirects) finds the program from the address
 * once it runs.
 *
 * After the payment page: a buyer who comes back from Stripe without paying finds the e-mail they
 * typed and a note that nothing was charged. A signed-in customer buys with their account's
 * e-mail, and one who already owns the program (or whose bank payment for it is clearing) is
 * sent to it instead of paying twice; the checkout function refuses a second purchase too (409),
 * which the page shows the same way.
 *
 * What the buyer gets is said before the payment: for a cohort program, the cohort they join and
 * the day it starts (packages/shared/cohort.ts, the rule the checkout function sells by), in place
 * of "Instant access"; with no cohort open to join, no form at all but that enrolment is closed
 * (which the function would answer too). Then what the buyer keeps (the program's `access`), the
 * guarantee, and the program's coached offer where it has one.
 *
 * supabase-js is imported on submit, or at once for a visitor with a stored session (to know who
 * they are and read their orders), never for anyone else.
 */
import {
  type MouseEvent,
  type ReactNode,
  type RefObject,
  type SubmitEvent,
  useEffect,
  useId,
  useMemo,
  useRef,
  useState,
} from "react";
import { checkoutRequest } from "@advisor-accelerator/shared/checkout-request.ts";
import { findByCheckoutKey } from "~/lib/catalogue";
import { formatCents } from "@advisor-accelerator/shared/money.ts";
import { formatDay } from "@advisor-accelerator/shared/cohort.ts";
import type { AuthState } from "~/stores/session";
import { inputClass, Message, Spinner, SubmitButton, useHydrated } from "~/components/ui/form";
import { SampleBadge } from "~/components/ui/sample";
import { loginPath } from "~/features/auth/next";
import { functionFailure } from "~/lib/function-error";
import {
  accessNote,
  CANCELLED_NOTICE,
  CHECKOUT_ERROR,
  type CheckoutProgram,
  type CohortCopy,
  clearPendingCheckout,
  hasStoredSession,
  type Ownership,
  ownership,
  programAt,
  readPendingCheckout,
  type Refusal,
  refusalOf,
  rushWaitOf,
  rememberPendingCheckout,
  returnsToPreviousPage,
  visitAttribution,
} from "./logic";

interface Props {
  /** The catalogue's programs: the built page's one, or all of them on the shell. */
  programs: CheckoutProgram[];
  /** The built page's program key; absent on the shell, which reads the key from the address. */
  productKey?: string;
  /** Where the visit's first touch is kept (src/lib/attribution.ts `ATTRIBUTION_STORAGE_KEY`), given by the page. */
  attributionKey: string;
  /** What the page says of a cohort (content/shared-copy.yaml `cohort`). */
  cohortCopy: CohortCopy;
  /** When the page was built: the day its HTML names the cohort for, until the island runs and names today's. */
  builtAt: string;
  /** The refund policy in full, under the notes (content/pages/checkout.yaml `program.refundPolicy`). */
  refundPolicy: RefundPolicy;
}

/** The refund policy the buyer agrees to, and the link to the terms it is part of. */
interface RefundPolicy {
  text: string;
  link: { text: string; href: string };
}

export default function Checkout({ programs, productKey, attributionKey, cohortCopy, builtAt, refundPolicy }: Props) {
  const hydrated = useHydrated();
  if (productKey === undefined && !hydrated) return <Resolving />;
  // The address is read in the browser only (the shell is one static file for every key).
  const program =
    productKey === undefined ? programAt(programs, window.location.pathname) : findByCheckoutKey(programs, productKey);
  return program ? (
    <CheckoutForm
      program={program}
      hydrated={hydrated}
      attributionKey={attributionKey}
      cohortCopy={cohortCopy}
      refundPolicy={refundPolicy}
      // The HTML is the build's; once running, the page speaks of today.
      at={hydrated ? new Date() : new Date(builtAt)}
    />
  ) : (
    <NotFound />
  );
}

function Resolving() {
  return (
    <div role="status" className="flex flex-col items-center gap-4 py-16 text-slate-300">
      <Spinner className="size-8 text-violet-300" />
      <p>Loading your checkout…</p>
    </div>
  );
}

function NotFound() {
  return (
    <div className="mx-auto max-w-md rounded-2xl border border-white/10 bg-panel p-8 text-center shadow-2xl shadow-black/40 sm:p-10">
      <h1 className="text-3xl font-bold tracking-tight text-white">Product Not Found</h1>
      <p className="mt-4 text-slate-300">We could not find a program at this address. It may have been mistyped.</p>
      <a
        href="/"
        className="mt-8 inline-flex items-center justify-center rounded-lg bg-violet-600 px-5 py-3 font-semibold text-white hover:bg-violet-500"
      >
        Return to Home
      </a>
      <p className="mt-6 text-sm">
        <a href="/purchase-course" className="font-medium text-violet-300 hover:text-violet-200 hover:underline">
          See all programs and prices
        </a>
      </p>
    </div>
  );
}

/** Back: the previous page when it is this site's (where the buyer was reading), else the program's page. */
function goBack(event: MouseEvent<HTMLAnchorElement>) {
  if (returnsToPreviousPage(document.referrer, window.location.origin, window.history.length)) {
    event.preventDefault();
    window.history.back();
  }
}

/** The last of the checkout's notes (docs/product.md, Checkout). */
const GUARANTEE = "30-day money-back guarantee";

/**
 * Who is buying, as far as the page knows: someone not signed in; the signed-in customer, with
 * what their orders say about this program ("unknown" when they could not be read: the checkout
 * function checks again); or not known yet (a stored session that supabase-js has not confirmed,
 * or orders on their way).
 */
type Buyer =
  | { status: "checking" }
  | { status: "anonymous" }
  | { status: "signed-in"; email: string; ownership: Ownership | "unknown" };

/**
 * The buyer. The session is supabase-js's to confirm (it refreshes or drops a stored one), so it
 * is loaded, with the session store it drives (src/lib/supabase.ts), only when this browser holds
 * a session; a visitor without one loads neither and is known at once.
 */
function useBuyer(checkoutKey: string, hydrated: boolean): Buyer {
  // Read once the island runs (the static HTML knows no one), and once: from then on the session
  // store says who is signed in.
  const stored = useMemo(() => hydrated && hasStoredSession(__SESSION_STORAGE_KEY__), [hydrated]);
  const [auth, setAuth] = useState<AuthState>({ status: "loading" });
  const [orders, setOrders] = useState<{ userId: string; ownership: Ownership | "unknown" } | null>(null);

  useEffect(() => {
    if (!stored) return;
    let live = true;
    let stop = () => {};
    Promise.all([import("~/stores/session"), import("../../lib/supabase")]).then(
      ([{ $auth }]) => {
        if (live) stop = $auth.subscribe(setAuth);
      },
      (error: unknown) => {
        console.error("Could not load the session", error);
        if (live) setAuth({ status: "signed-out" });
      },
    );
    return () => {
      live = false;
      stop();
    };
  }, [stored]);

  const userId = auth.status === "signed-in" ? auth.user.id : null;
  useEffect(() => {
    if (!userId) return;
    let live = true;
    void (async () => {
      let known: Ownership | "unknown" = "unknown";
      try {
        const { supabase } = await import("~/lib/supabase");
        // The customer's own orders only (row level security); the spec's view, three of its columns.
        const { data, error } = await supabase
          .from("stripe_user_orders")
          .select("product_key, order_status, payment_status");
        if (error) throw error;
        known = ownership(data ?? [], checkoutKey);
      } catch (error) {
        console.error("Could not read your orders:", error);
      }
      if (live) setOrders({ userId, ownership: known });
    })();
    return () => {
      live = false;
    };
  }, [userId, checkoutKey]);

  if (!hydrated) return { status: "checking" };
  if (!stored) return { status: "anonymous" };
  if (auth.status === "loading") return { status: "checking" };
  if (auth.status === "signed-out" || !auth.user.email) return { status: "anonymous" };
  if (orders?.userId !== auth.user.id) return { status: "checking" };
  return { status: "signed-in", email: auth.user.email, ownership: orders.ownership };
}

/** Signs out on this device only; the session store then says signed out, and the form is the visitor's. */
async function signOut() {
  try {
    const { supabase } = await import("~/lib/supabase");
    const { error } = await supabase.auth.signOut({ scope: "local" });
    if (error) console.error("Signing out failed", error);
  } catch (error) {
    console.error("Signing out failed", error);
  }
}

/**
 * The body of the checkout function's answer, when its status is `status`, from supabase-js's
 * FunctionsHttpError (its `context` is the Response); undefined for any other failure.
 */
async function failureBody(failure: unknown, status: number): Promise<unknown> {
  const answered = await functionFailure(failure);
  return answered?.status === status ? (answered.body ?? undefined) : undefined;
}

function CheckoutForm({
  program,
  hydrated,
  attributionKey,
  cohortCopy,
  refundPolicy,
  at,
}: {
  program: CheckoutProgram;
  hydrated: boolean;
  attributionKey: string;
  cohortCopy: CohortCopy;
  refundPolicy: RefundPolicy;
  at: Date;
}) {
  const email = useRef<HTMLInputElement>(null);
  const heading = useRef<HTMLHeadingElement>(null);
  /** Whether the e-mail field holds an address, once typed in here; null until then. */
  const [typed, setTyped] = useState<boolean | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  /** Whether to say the payment was cancelled; null: as this tab's record of a checkout says. */
  const [cancelled, setCancelled] = useState<boolean | null>(null);
  /** The checkout function's refusal, with the address it was for. */
  const [refused, setRefused] = useState<{ reason: Refusal; email: string } | null>(null);
  const typeAgain = useRef(false);
  const buyer = useBuyer(program.checkoutKey, hydrated);
  const signedIn = buyer.status === "signed-in" ? buyer : null;
  const price = formatCents(program.priceCents);
  // Null: no cohort is open to join, and the program cannot be bought now.
  const first = accessNote(program, cohortCopy, at);

  // Back from Stripe's page without paying (its Back link, or the browser's as a new page load):
  // this tab's record of the checkout that left for it gives back the e-mail typed there.
  const pending = useMemo(
    () => (hydrated ? readPendingCheckout(program.checkoutKey) : null),
    [hydrated, program.checkoutKey],
  );
  const hasEmail = typed ?? !!pending?.email;
  /** What Complete Purchase waits for, said under it; null when it can be pressed. */
  const waitsFor = !hydrated
    ? "Loading the checkout…"
    : buyer.status === "checking"
      ? "Checking your account…"
      : !signedIn && !hasEmail
        ? "Enter your e-mail address to continue."
        : null;

  // What was typed before the script ran counts too.
  useEffect(() => setTyped(email.current?.value ? true : null), []);

  // Back from Stripe's page through the browser's cache: the page is as it was left, busy; make it
  // usable again, and say that nothing was charged.
  useEffect(() => {
    const onShow = (event: PageTransitionEvent) => {
      if (!event.persisted) return;
      setBusy(false);
      setCancelled(readPendingCheckout(program.checkoutKey) !== null);
    };
    window.addEventListener("pageshow", onShow);
    return () => window.removeEventListener("pageshow", onShow);
  }, [program.checkoutKey]);

  // A refusal replaces the form the buyer was in: take them to what it says; and back to the
  // e-mail field when they choose to use another address.
  useEffect(() => {
    if (refused) heading.current?.focus();
    else if (typeAgain.current) {
      typeAgain.current = false;
      email.current?.focus();
    }
  }, [refused]);

  async function purchase(event: SubmitEvent<HTMLFormElement>) {
    event.preventDefault();
    // Read from the form, not from state (docs/architecture.md, Client state).
    const address = String(new FormData(event.currentTarget).get("email") ?? "").trim();
    if (!address || busy) return;
    setBusy(true);
    setError(null);
    setCancelled(false);
    clearPendingCheckout();
    try {
      const { supabase } = await import("~/lib/supabase");
      const body = checkoutRequest(window.location.origin, program, address, visitAttribution(attributionKey));
      const start = () => supabase.functions.invoke<{ url?: unknown }>("stripe-checkout", { body });
      let { data, error: failure } = await start();
      // Many buyers at the same second: wait as the function says, then once more.
      const wait = failure ? rushWaitOf(429, await failureBody(failure, 429)) : null;
      if (wait !== null) {
        await new Promise((resolve) => setTimeout(resolve, wait * 1000));
        ({ data, error: failure } = await start());
      }
      if (failure) {
        const reason = refusalOf(409, await failureBody(failure, 409));
        if (reason) {
          setRefused({ reason, email: address });
          setBusy(false);
          return;
        }
        throw failure;
      }
      if (typeof data?.url !== "string" || !data.url) throw new Error("stripe-checkout answered without a url");
      rememberPendingCheckout(program.checkoutKey, address);
      // Stays busy while the browser leaves for Stripe's hosted page.
      window.location.assign(data.url);
    } catch (failure) {
      console.error("Checkout failed", failure);
      setError(CHECKOUT_ERROR);
      setBusy(false);
    }
  }

  // The customer's orders say it, or the checkout function did: no second purchase.
  const blocked: Refusal | null =
    refused?.reason ??
    (first === null ? "enrolment_closed" : null) ??
    (signedIn?.ownership === "owned"
      ? "already_owned"
      : signedIn?.ownership === "processing"
        ? "payment_processing"
        : null);

  return (
    <div>
      <a
        href={program.page}
        onClick={goBack}
        className="inline-flex items-center gap-2 rounded-md text-sm font-medium text-violet-300 hover:text-violet-200 hover:underline"
      >
        <svg viewBox="0 0 20 20" className="size-4" fill="currentColor" aria-hidden="true">
          <path d="M12.8 4.2a.75.75 0 0 1 0 1.06L8.06 10l4.74 4.74a.75.75 0 1 1-1.06 1.06l-5.27-5.27a.75.75 0 0 1 0-1.06l5.27-5.27a.75.75 0 0 1 1.06 0Z" />
        </svg>
        Back
      </a>
      <h1 className="mt-6 text-3xl font-bold tracking-tight text-white sm:text-4xl">Checkout</h1>
      {/* Present from the first render, so that screen readers announce the notice when it appears. */}
      <div role="status" className="empty:hidden">
        {(cancelled ?? pending !== null) && !blocked && (
          <p className="mt-6 rounded-lg border border-sky-400/30 bg-sky-950/40 px-4 py-3 text-sm text-sky-100">
            {CANCELLED_NOTICE}
          </p>
        )}
      </div>

      <div className="mt-8 grid gap-8 lg:grid-cols-2 lg:items-start">
        <section
          aria-labelledby="summary-heading"
          className="rounded-2xl border border-white/10 bg-panel p-6 sm:p-8 lg:order-2"
        >
          <h2 id="summary-heading" className="text-lg font-semibold text-white">
            Order Summary
          </h2>
          <div className="mt-6 flex gap-4">
            <img src={program.image} alt={program.imageAlt} width="64" height="64" className="size-16 shrink-0" />
            <div className="min-w-0">
              <h3 className="text-lg font-semibold text-white">{program.name}</h3>
              <p className="mt-2 text-sm leading-6 text-slate-300">{program.description}</p>
            </div>
          </div>
          <dl className="mt-6 space-y-3 border-t border-white/10 pt-6 text-slate-300">
            {first?.cohort && (
              <div className="flex justify-between gap-4">
                <dt>{first.cohort.started ? "Your cohort started" : "Your cohort starts"}</dt>
                <dd className="text-right text-white">{formatDay(first.cohort.start)}</dd>
              </div>
            )}
            <div className="flex justify-between gap-4">
              <dt>Price</dt>
              <dd className="text-white">{price}</dd>
            </div>
            <div className="flex justify-between gap-4">
              <dt>Subtotal</dt>
              <dd className="text-white">{price}</dd>
            </div>
            <div className="flex justify-between gap-4 border-t border-white/10 pt-3 text-lg font-semibold text-white">
              <dt>Total</dt>
              <dd>{price}</dd>
            </div>
          </dl>
          {program.coached && (
            <p className="mt-6 border-t border-white/10 pt-6 text-sm leading-6 text-slate-300">
              {program.coached.text}{" "}
              <a
                href={program.applyPage}
                className="font-semibold text-violet-300 underline underline-offset-2 hover:text-violet-200"
              >
                {program.coached.apply}
              </a>
            </p>
          )}
        </section>

        <section
          aria-labelledby="details-heading"
          className="rounded-2xl border border-white/10 bg-panel p-6 sm:p-8 lg:order-1"
        >
          {blocked === "enrolment_closed" ? (
            <EnrolmentClosed program={program} copy={cohortCopy} heading={heading} />
          ) : blocked === "sign_in_required" ? (
            <SignInToContinue
              program={program}
              heading={heading}
              email={refused?.email ?? ""}
              onOtherEmail={() => {
                typeAgain.current = true;
                setRefused(null);
                setTyped(false);
              }}
            />
          ) : blocked ? (
            <AlreadyBought program={program} reason={blocked} heading={heading} account={signedIn?.email ?? ""} />
          ) : (
            <>
              <h2 id="details-heading" className="text-lg font-semibold text-white">
                Your Details
              </h2>
              <form method="post" onSubmit={purchase} className="mt-6 space-y-5">
                <Message text={error} tone="error" />
                <EmailField
                  input={email}
                  account={signedIn?.email ?? null}
                  prefill={typed === false ? undefined : pending?.email}
                  onInput={(value) => setTyped(!!value)}
                />
                <SubmitButton busy={busy} disabled={!!waitsFor} describedBy="purchase-note">
                  Complete Purchase
                </SubmitButton>
                <p id="purchase-note" className="text-center text-xs text-slate-400">
                  {waitsFor ?? "You pay on Stripe's secure page."}
                </p>
              </form>
            </>
          )}
          <ul className="mt-6 space-y-2 border-t border-white/10 pt-6 text-sm text-slate-300">
            {[first, { text: program.access }, { text: GUARANTEE }]
              .flatMap((note) => (note ? [note] : []))
              .map((note) => (
                <li key={note.text} className="flex items-center gap-2">
                  <svg
                    viewBox="0 0 20 20"
                    className="size-5 shrink-0 text-emerald-400"
                    fill="currentColor"
                    aria-hidden="true"
                  >
                    <path d="M16.7 5.3a1 1 0 0 1 0 1.4l-8 8a1 1 0 0 1-1.4 0l-4-4a1 1 0 1 1 1.4-1.4L8 12.58l7.3-7.3a1 1 0 0 1 1.4 0Z" />
                  </svg>
                  <span>
                    <span>{note.text}</span>
                    {"sample" in note && note.sample && <SampleBadge />}
                  </span>
                </li>
              ))}
          </ul>
          <p className="mt-4 text-xs leading-5 text-slate-400">
            {refundPolicy.text}{" "}
            <a
              href={refundPolicy.link.href}
              className="font-medium text-violet-300 underline underline-offset-2 hover:text-violet-200"
            >
              {refundPolicy.link.text}
            </a>
          </p>
        </section>
      </div>
    </div>
  );
}

/**
 * The spec's 'Email' field. A signed-in customer buys with their account's address, shown
 * read-only, with the way to sign out so that someone else can use their own; anyone else types
 * one. The two are different inputs (`key`), so signing out leaves an empty field, not the
 * customer's address.
 */
function EmailField({
  input,
  account,
  prefill,
  onInput,
}: {
  input: RefObject<HTMLInputElement | null>;
  account: string | null;
  /** The address to start from (typed before a cancelled payment); what was typed here stays. */
  prefill?: string;
  onInput: (value: string) => void;
}) {
  const emailId = useId();
  const hintId = useId();
  const leaving = useRef(false);

  // Signed out here: the field is theirs to type in.
  useEffect(() => {
    if (account === null && leaving.current) {
      leaving.current = false;
      input.current?.focus();
    }
  }, [account, input]);

  return (
    <div>
      <label htmlFor={emailId} className="mb-2 block text-sm font-medium text-slate-200">
        Email
      </label>
      {account !== null ? (
        <input
          key="account"
          id={emailId}
          type="email"
          name="email"
          value={account}
          readOnly
          aria-describedby={hintId}
          className={inputClass}
        />
      ) : (
        <input
          key="typed"
          ref={input}
          id={emailId}
          type="email"
          name="email"
          autoComplete="email"
          required
          // Uncontrolled: a new default shows only while nothing was typed in the field (the DOM's dirty flag).
          defaultValue={prefill}
          aria-describedby={hintId}
          className={inputClass}
          onInput={(e) => onInput(e.currentTarget.value)}
        />
      )}
      {account !== null ? (
        <p id={hintId} className="mt-2 text-sm text-slate-400">
          Signed in as <span className="text-slate-200 wrap-anywhere">{account}</span>. Your receipt goes to this
          address and the program opens in your portal.{" "}
          <span className="whitespace-nowrap">
            Not you?{" "}
            <button
              type="button"
              onClick={() => {
                leaving.current = true;
                void signOut();
              }}
              className="font-medium text-violet-300 underline underline-offset-2 hover:text-violet-200"
            >
              Sign out
            </button>
          </span>
        </p>
      ) : (
        <p id={hintId} className="mt-2 text-sm text-slate-400">
          Your receipt and your account's set-password link go to this address.
        </p>
      )}
    </div>
  );
}

/** The main link of a view: darker on hover, as the submit button (ui.tsx), so its white text keeps its contrast. */
const primaryLink =
  "inline-flex min-h-11 items-center justify-center rounded-lg bg-violet-600 px-5 py-3 font-semibold text-white hover:bg-violet-700";

/** The heading of a view in place of the form: focusable, so that a refusal takes the focus to it. */
function ViewHeading({ heading, children }: { heading: RefObject<HTMLHeadingElement | null>; children: ReactNode }) {
  return (
    <h2
      id="details-heading"
      ref={heading}
      tabIndex={-1}
      className="text-lg font-semibold text-white focus:outline-none"
    >
      {children}
    </h2>
  );
}

/** In place of the form when no cohort of the program is open to join: when to ask, and where. */
function EnrolmentClosed({
  program,
  copy,
  heading,
}: {
  program: CheckoutProgram;
  copy: CohortCopy;
  heading: RefObject<HTMLHeadingElement | null>;
}) {
  return (
    <div>
      <ViewHeading heading={heading}>Enrolment is closed</ViewHeading>
      <p className="mt-4 text-slate-300">
        {program.name} runs in cohorts. {copy.closed}
      </p>
      <div className="mt-6">
        <a href={program.applyPage} className={primaryLink}>
          {copy.ask}
        </a>
      </div>
    </div>
  );
}

/**
 * In place of the form: the customer owns the program already (its course is one click away), or
 * their bank payment for it is clearing (it opens when it does). No Complete Purchase: a second
 * payment would only be refunded.
 */
/**
 * A visitor gave an address that has an account: the checkout says so and nothing more (what the
 * account owns is for its signed-in owner, functions/stripe-checkout/handler.ts `refusalFor`), and
 * signing in brings them back here.
 */
function SignInToContinue({
  program,
  heading,
  email,
  onOtherEmail,
}: {
  program: CheckoutProgram;
  heading: RefObject<HTMLHeadingElement | null>;
  /** The address typed. */
  email: string;
  /** Back to the form, for a visitor who meant another address. */
  onOtherEmail: () => void;
}) {
  return (
    <div>
      <ViewHeading heading={heading}>Sign in to continue</ViewHeading>
      <p className="mt-4 text-slate-300">
        <span className="font-medium text-white wrap-anywhere">{email}</span> already has an account with us. Sign in to
        buy {program.name} with it, so your programs stay together in one client portal.
      </p>
      <p className="mt-3 text-sm text-slate-400">
        No password yet? Use the link in your access e-mail, or{" "}
        <a
          href="/forgot-password"
          className="font-medium text-violet-300 underline underline-offset-2 hover:text-violet-200"
        >
          get a new link
        </a>
        .
      </p>
      <div className="mt-6 flex flex-col gap-3 sm:flex-row sm:flex-wrap sm:items-center">
        <a href={loginPath(`/checkout/${program.checkoutKey}`)} className={primaryLink}>
          Sign in
        </a>
        <button
          type="button"
          onClick={onOtherEmail}
          className="min-h-11 rounded-lg px-3 font-medium text-violet-300 underline underline-offset-2 hover:text-violet-200"
        >
          Use a different e-mail
        </button>
      </div>
    </div>
  );
}

/** The signed-in customer owns the program already, or their bank payment for it is clearing: no second charge. */
function AlreadyBought({
  program,
  reason,
  heading,
  account,
}: {
  program: CheckoutProgram;
  reason: "already_owned" | "payment_processing";
  heading: RefObject<HTMLHeadingElement | null>;
  /** The signed-in customer's address. */
  account: string;
}) {
  const owned = reason === "already_owned";
  return (
    <div>
      <ViewHeading heading={heading}>{owned ? "You already own this" : "Your payment is clearing"}</ViewHeading>
      {owned ? (
        <p className="mt-4 text-slate-300">
          {program.name} is already on your account. Open it in your member area whenever you like; there is nothing
          more to pay.
        </p>
      ) : (
        <p className="mt-4 text-slate-300">
          Your bank payment for {program.name} on your account is still clearing. The course opens in your member area
          as soon as it does, and we e-mail you then; there is nothing more to pay.
        </p>
      )}
      <div className="mt-6 flex flex-col gap-3 sm:flex-row sm:flex-wrap sm:items-center">
        <a href={owned ? program.course : "/portal"} className={primaryLink}>
          {owned ? `Open ${program.name}` : "Go to your portal"}
        </a>
      </div>
      <p className="mt-6 text-sm text-slate-400">
        Signed in as <span className="text-slate-200 wrap-anywhere">{account}</span>.{" "}
        <span className="whitespace-nowrap">
          Not you?{" "}
          <button
            type="button"
            onClick={() => void signOut()}
            className="font-medium text-violet-300 underline underline-offset-2 hover:text-violet-200"
          >
            Sign out
          </button>
        </span>
      </p>
    </div>
  );
}
