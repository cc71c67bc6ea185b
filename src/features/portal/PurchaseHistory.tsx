/**
 * /portal/settings/purchase-history (docs/product.md, Portal; Entities and fields; States and
 * transitions; Messages and errors): the customer's orders, newest first, with the program's name
 * and image, the order reference the customer can quote, the date, the amount, a status badge,
 * when a refund or a payment dispute happened, and Stripe's receipt where it has one. The program's
 * name leads to its card on My Courses (a refunded program stays listed there as refunded), unless
 * the order never put it there (canceled, failed). A coached offer's payment plan reads as a person
 * reads it ("2 of 6 paid, next $6,000 on March 1", "Past due since …", "Paid in full"), with a
 * "Manage payment method" button that opens Stripe's customer portal (functions/billing-portal), as
 * does a membership ("Membership: $450 a month from April 11, 2027"), which is cancelled there.
 * A failed fetch is logged by the store; the page says so calmly, never the raw error.
 */
import { useState } from "react";
import { newestFirst, purchaseView, type PortalProgram } from "./logic";
import { $orders, LOADING } from "./store";
import { Badge, EmptyState, LoadingNote, Panel, pillButtonClass, Skeleton } from "~/components/ui/panel";
import { functionErrorMessage } from "~/lib/function-error";
import { supabase } from "~/lib/supabase";
import { useAtom } from "~/lib/useAtom";

interface Props {
  /** The catalogue's programs (content/programs/): names and images by checkout key. */
  programs: PortalProgram[];
}

export default function PurchaseHistory({ programs }: Props) {
  const orders = useAtom($orders, LOADING);

  return (
    <section aria-labelledby="orders-heading" aria-busy={orders.status === "loading"} className="mt-10">
      <h2 id="orders-heading" className="sr-only">
        Your orders
      </h2>
      {orders.status === "loading" && (
        <ul className="space-y-4">
          {[0, 1, 2].map((i) => (
            <Panel as="li" key={i} className="flex items-center gap-4 p-5">
              <Skeleton className="size-12 shrink-0 rounded-xl" />
              <div className="min-w-0 flex-1">
                <Skeleton className="h-5 w-48 max-w-full" />
                <Skeleton className="mt-2 h-4 w-28" />
              </div>
              <Skeleton className="h-6 w-20 rounded-full" />
              {i === 0 && <LoadingNote>Loading your purchases…</LoadingNote>}
            </Panel>
          ))}
        </ul>
      )}
      {orders.status === "error" && (
        <Panel as="p" className="p-6 text-slate-300">
          We couldn&rsquo;t load your purchase history just now. Please refresh the page in a moment.
        </Panel>
      )}
      {orders.status === "ready" && orders.data.length === 0 && (
        <EmptyState
          title="No purchases yet."
          text="Your orders will appear here."
          action={{ href: "/programs", label: "Browse programs" }}
        />
      )}
      {orders.status === "ready" && orders.data.length > 0 && (
        <ul className="space-y-4">
          {newestFirst(orders.data)
            .map((order) => purchaseView(order, programs))
            .map((purchase) => (
              <Panel
                as="li"
                key={purchase.id}
                data-order={purchase.id}
                className="flex flex-wrap items-center gap-x-4 gap-y-3 p-5"
              >
                {purchase.productImage ? (
                  <img
                    src={purchase.productImage}
                    alt=""
                    width={48}
                    height={48}
                    className="size-12 shrink-0 rounded-xl"
                  />
                ) : (
                  <span aria-hidden="true" className="size-12 shrink-0 rounded-xl bg-white/10" />
                )}
                {/* Wide enough for a program's name: on a phone the amount and status wrap below it. */}
                <div className="min-w-40 flex-1">
                  <h3 className="font-semibold text-white">
                    {purchase.portalHref ? (
                      <a
                        href={purchase.portalHref}
                        className="underline decoration-white/30 underline-offset-4 hover:text-violet-200 hover:decoration-violet-300"
                      >
                        {purchase.productName}
                      </a>
                    ) : (
                      purchase.productName
                    )}
                  </h3>
                  <p className="mt-1 flex flex-wrap gap-x-2 text-sm text-slate-300">
                    {purchase.reference && (
                      <>
                        <span className="whitespace-nowrap">Order {purchase.reference}</span>
                        <span aria-hidden="true">·</span>
                      </>
                    )}
                    {purchase.purchaseDate ? (
                      <time dateTime={purchase.purchaseDate} className="whitespace-nowrap">
                        {purchase.purchaseDateText}
                      </time>
                    ) : (
                      <span>Date unknown</span>
                    )}
                  </p>
                  {purchase.plan && (
                    <div className="mt-1 text-sm">
                      <p className="text-slate-200">
                        {purchase.plan.name}: {purchase.plan.line}
                      </p>
                      {purchase.plan.pastDue && (
                        <p className="text-amber-200">
                          {purchase.plan.pastDue}
                          {purchase.plan.paused ? ". Your access is paused until it is paid." : "."}
                        </p>
                      )}
                    </div>
                  )}
                  {purchase.membership && <p className="mt-1 text-sm text-slate-200">{purchase.membership}</p>}
                  {purchase.change && (
                    <p className="mt-1 text-sm text-slate-300">
                      {purchase.change.label}{" "}
                      <time dateTime={purchase.change.date} className="whitespace-nowrap">
                        {purchase.change.dateText}
                      </time>
                    </p>
                  )}
                </div>
                <div className="ml-auto flex flex-col items-end gap-2">
                  <div className="flex items-center gap-4">
                    <p className="text-base font-semibold tabular-nums text-white">{purchase.amount}</p>
                    <Badge tone={purchase.status.tone}>{purchase.status.label}</Badge>
                  </div>
                  {(purchase.plan || purchase.membership) && <ManagePaymentMethod />}
                  {purchase.receiptUrl && (
                    <a
                      href={purchase.receiptUrl}
                      target="_blank"
                      rel="noopener"
                      className="inline-flex items-center gap-1 text-sm font-medium text-violet-300 underline underline-offset-4 hover:text-white"
                    >
                      View receipt
                      <span className="sr-only">
                        {purchase.reference ? ` for order ${purchase.reference}` : ` for ${purchase.productName}`}{" "}
                        (opens in a new tab)
                      </span>
                      <svg viewBox="0 0 20 20" className="size-4 shrink-0" fill="currentColor" aria-hidden="true">
                        <path d="M11 3a1 1 0 1 0 0 2h2.59l-6.3 6.3a1 1 0 1 0 1.42 1.4L15 6.42V9a1 1 0 1 0 2 0V4a1 1 0 0 0-1-1h-5Z" />
                        <path d="M5 5a2 2 0 0 0-2 2v8a2 2 0 0 0 2 2h8a2 2 0 0 0 2-2v-3a1 1 0 1 0-2 0v3H5V7h3a1 1 0 0 0 0-2H5Z" />
                      </svg>
                    </a>
                  )}
                </div>
              </Panel>
            ))}
        </ul>
      )}
    </section>
  );
}

/**
 * Opens Stripe's customer portal for the customer's plan: a session the billing-portal function
 * makes for their own Stripe customer, where they change the card or pay an open invoice.
 */
function ManagePaymentMethod() {
  const [busy, setBusy] = useState(false);
  const [failed, setFailed] = useState<string | null>(null);
  return (
    <div className="flex flex-col items-end">
      <button
        type="button"
        className={pillButtonClass.secondary}
        disabled={busy}
        onClick={() => {
          setBusy(true);
          setFailed(null);
          void supabase.functions
            .invoke<{ url?: string }>("billing-portal", { body: {} })
            .then(async ({ data, error }) => {
              if (!error && typeof data?.url === "string") {
                location.assign(data.url);
                return;
              }
              setFailed(
                (await functionErrorMessage(error)) ?? "Your payment settings could not be opened. Please try again.",
              );
              setBusy(false);
            });
        }}
      >
        {busy ? "Opening…" : "Manage payment method"}
      </button>
      {failed && (
        <p role="alert" className="mt-2 max-w-xs text-right text-sm text-red-300">
          {failed}
        </p>
      )}
    </div>
  );
}
