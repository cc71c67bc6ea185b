/**
 * The /checkout/{productKey} island (docs/product.md §2 Checkout, §4, §5, §7, §8): Back, the
 * e-mail, the order summary, 'Complete Purchase' and its notes; or 'Product Not Found'. A built
 * program page knows its program at build time, so the summary is in its HTML; the shell that the
 * static host serves for every other key (public/_redirects) finds the program from the address
 * once it runs. supabase-js is imported on submit, not with the page.
 */
import { useEffect, useId, useRef, useState, type MouseEvent, type SubmitEvent } from "react";
import { checkoutRequest } from "../../../functions/_shared/checkout-request.ts";
import { findByCheckoutKey } from "../../lib/catalogue";
import { formatCents } from "../../lib/money";
import { inputClass, Message, Spinner, SubmitButton, useHydrated } from "../auth/ui";
import { CHECKOUT_ERROR, type CheckoutProgram, programAt, returnsToPreviousPage, visitAttribution } from "./logic";

interface Props {
  /** The catalogue's programs: the built page's one, or all of them on the shell. */
  programs: CheckoutProgram[];
  /** The built page's program key; absent on the shell, which reads the key from the address. */
  productKey?: string;
  /** Where the visit's first touch is kept (src/lib/attribution.ts `ATTRIBUTION_STORAGE_KEY`), given by the page. */
  attributionKey: string;
}

export default function Checkout({ programs, productKey, attributionKey }: Props) {
  const hydrated = useHydrated();
  if (productKey === undefined && !hydrated) return <Resolving />;
  // The address is read in the browser only (the shell is one static file for every key).
  const program =
    productKey === undefined ? programAt(programs, window.location.pathname) : findByCheckoutKey(programs, productKey);
  return program ? (
    <CheckoutForm program={program} hydrated={hydrated} attributionKey={attributionKey} />
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

const NOTES = ["Instant access after payment", "Lifetime access to the program", "30-day money-back guarantee"];

function CheckoutForm({
  program,
  hydrated,
  attributionKey,
}: {
  program: CheckoutProgram;
  hydrated: boolean;
  attributionKey: string;
}) {
  const emailId = useId();
  const hintId = useId();
  const email = useRef<HTMLInputElement>(null);
  const [hasEmail, setHasEmail] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const price = formatCents(program.priceCents);

  // What was typed before the script ran counts too.
  useEffect(() => setHasEmail(!!email.current?.value), []);

  // Back from Stripe's page through the browser's cache: the page is as it was left, busy; make it usable again.
  useEffect(() => {
    const onShow = (event: PageTransitionEvent) => {
      if (event.persisted) setBusy(false);
    };
    window.addEventListener("pageshow", onShow);
    return () => window.removeEventListener("pageshow", onShow);
  }, []);

  async function purchase(event: SubmitEvent<HTMLFormElement>) {
    event.preventDefault();
    // Read from the form, not from state (docs/architecture.md, Client state).
    const address = String(new FormData(event.currentTarget).get("email") ?? "").trim();
    if (!address || busy) return;
    setBusy(true);
    setError(null);
    try {
      const { supabase } = await import("../../lib/supabase");
      const body = checkoutRequest(window.location.origin, program, address, visitAttribution(attributionKey));
      const { data, error: failure } = await supabase.functions.invoke<{ url?: unknown }>("stripe-checkout", { body });
      if (failure) throw failure;
      if (typeof data?.url !== "string" || !data.url) throw new Error("stripe-checkout answered without a url");
      // Stays busy while the browser leaves for Stripe's hosted page.
      window.location.assign(data.url);
    } catch (failure) {
      console.error("Checkout failed", failure);
      setError(CHECKOUT_ERROR);
      setBusy(false);
    }
  }

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
        </section>

        <section
          aria-labelledby="details-heading"
          className="rounded-2xl border border-white/10 bg-panel p-6 sm:p-8 lg:order-1"
        >
          <h2 id="details-heading" className="text-lg font-semibold text-white">
            Your Details
          </h2>
          <form method="post" onSubmit={purchase} className="mt-6 space-y-5">
            <Message text={error} tone="error" />
            <div>
              <label htmlFor={emailId} className="mb-2 block text-sm font-medium text-slate-200">
                Email
              </label>
              <input
                ref={email}
                id={emailId}
                type="email"
                name="email"
                autoComplete="email"
                required
                aria-describedby={hintId}
                className={inputClass}
                onInput={(e) => setHasEmail(!!e.currentTarget.value)}
              />
              <p id={hintId} className="mt-2 text-sm text-slate-400">
                Your receipt and your account's set-password link go to this address.
              </p>
            </div>
            <SubmitButton busy={busy} disabled={!hydrated || !hasEmail}>
              Complete Purchase
            </SubmitButton>
            <p className="text-center text-xs text-slate-400">You pay on Stripe's secure page.</p>
          </form>
          <ul className="mt-6 space-y-2 border-t border-white/10 pt-6 text-sm text-slate-300">
            {NOTES.map((note) => (
              <li key={note} className="flex items-center gap-2">
                <svg
                  viewBox="0 0 20 20"
                  className="size-5 shrink-0 text-emerald-400"
                  fill="currentColor"
                  aria-hidden="true"
                >
                  <path d="M16.7 5.3a1 1 0 0 1 0 1.4l-8 8a1 1 0 0 1-1.4 0l-4-4a1 1 0 1 1 1.4-1.4L8 12.58l7.3-7.3a1 1 0 0 1 1.4 0Z" />
                </svg>
                {note}
              </li>
            ))}
          </ul>
        </section>
      </div>
    </div>
  );
}
