/**
 * The desk's coached offers (docs/coached-offers.md), loaded when first shown so that the desk's
 * first screen does not wait for them: a lead's offers and the form that sends one, and the
 * Offers view with each offer's state (a paid plan's progress beside it); an admin withdraws an
 * offer not yet paid.
 */
import { useId, useState } from "react";
import { pillButtonClass, Skeleton } from "~/components/ui/panel";
import { formatCents } from "@advisor-accelerator/shared/money.ts";
import { dayIn, formatDay, openCohorts } from "@advisor-accelerator/shared/cohort.ts";
import {
  fetchOfferPlans,
  fetchOffers,
  type LeadListRow,
  OfferNotSent,
  type OfferPlan,
  type OfferRow,
  sendOffer,
  withdrawOffer,
} from "./data";
import { planLines } from "@advisor-accelerator/shared/payment-schedule.ts";
import {
  dollarsToCents,
  isOfferStatus,
  OFFER_STATUS_LABELS,
  OFFER_STATUSES,
  type OfferStatus,
  withdrawable,
} from "./logic";
import type { DeskOffer, DeskProgram } from "./Desk";
import {
  dateTime,
  Field,
  inputClass,
  Pager,
  pageOf,
  Pill,
  SelectField,
  Table,
  useDeskMark,
  useRemote,
  type ViewProps,
} from "./ui";

const OFFER_STATUS_OPTIONS = OFFER_STATUSES.map((s) => [s, OFFER_STATUS_LABELS[s]] as const);

const OFFER_TONES = { sent: "sky", opened: "violet", paid: "green", expired: "amber", withdrawn: "slate" } as const;

function OfferStatusBadge({ status }: { status: OfferStatus }) {
  return <Pill tone={OFFER_TONES[status]}>{OFFER_STATUS_LABELS[status]}</Pill>;
}

/** A paid offer's plan: "2 of 6 paid, next $6,000 on March 1", and since when a payment is past due. */
function PlanProgress({ plan, timeZone }: { plan: OfferPlan; timeZone: string }) {
  const { line, pastDue } = planLines(
    plan.payments,
    plan.paid_invoices.length,
    plan.past_due_since,
    timeZone,
    new Date().getUTCFullYear(),
  );
  return (
    <p className="mt-1 text-xs text-slate-300">
      {line}
      {pastDue && <span className="block text-amber-200">{pastDue}</span>}
    </p>
  );
}

/** An offer's price, and the program's beside it when the offer was sent at another, with the reason. */
function OfferPrice({ offer }: { offer: OfferRow }) {
  if (offer.price_cents === offer.list_price_cents) return <>{formatCents(offer.price_cents)}</>;
  return (
    <>
      {formatCents(offer.price_cents)}{" "}
      <span className="text-slate-400">
        (offer price {formatCents(offer.list_price_cents)}: {offer.price_reason})
      </span>
    </>
  );
}

/**
 * Withdraws an offer once the admin confirms: its link stops working. A paid offer cannot be
 * withdrawn (the database refuses it; the payment is refunded instead).
 */
function WithdrawOffer({ offer, onDone, inTable = false }: { offer: OfferRow; onDone: () => void; inTable?: boolean }) {
  const [asking, setAsking] = useState(false);
  const [busy, setBusy] = useState(false);
  const [failed, setFailed] = useState(false);
  if (!withdrawable(offer.status)) return null;
  if (!asking) {
    return (
      <button
        type="button"
        className="text-sm font-semibold text-slate-300 underline underline-offset-4 hover:text-white"
        onClick={() => setAsking(true)}
      >
        Withdraw<span className="sr-only"> the offer to {offer.name}</span>
      </button>
    );
  }
  return (
    // In a table's last column, as wide as its words and buttons on one line: it widens the table
    // (which scrolls) rather than stacking a word a line.
    <div
      role="group"
      aria-label={`Withdraw the offer to ${offer.name}`}
      className={`space-y-2 ${inTable ? "w-max" : ""}`}
    >
      <p className="text-sm text-slate-200">Withdraw it? Its link stops working.</p>
      <div className="flex flex-wrap gap-2">
        <button
          type="button"
          className={pillButtonClass.primary}
          disabled={busy}
          onClick={() => {
            setBusy(true);
            setFailed(false);
            withdrawOffer(offer.id)
              .then(onDone)
              .catch((error: unknown) => {
                console.error("Withdrawing the offer failed:", error);
                setFailed(true);
              })
              .finally(() => setBusy(false));
          }}
        >
          {busy ? "Withdrawing…" : "Withdraw the offer"}
        </button>
        <button type="button" className={pillButtonClass.secondary} onClick={() => setAsking(false)}>
          Keep it
        </button>
      </div>
      {failed && (
        <p role="alert" className="text-sm text-red-300">
          The offer was not withdrawn. Please try again.
        </p>
      )}
    </div>
  );
}

/** A lead's offers, and the form that sends a new one. */
export function LeadOffers({
  lead,
  programs,
  offers,
  timeZone,
}: {
  lead: LeadListRow;
  programs: DeskProgram[];
  offers: DeskOffer[];
  timeZone: string;
}) {
  const [sent, reload] = useRemote(`offers|lead|${lead.id}`, () =>
    fetchOffers({ page: 1, status: "", leadId: lead.id }),
  );
  const programName = (key: string) => programs.find((p) => p.key === key)?.name ?? key;
  const headingId = useId();
  return (
    <section aria-labelledby={headingId} className="mt-6 border-t border-white/10 pt-4">
      <h3 id={headingId} className="text-xs font-semibold uppercase tracking-wide text-slate-400">
        Offers
      </h3>
      {sent.status === "loading" && <Skeleton className="mt-2 h-4 w-2/3" />}
      {sent.status === "error" && <p className="mt-2 text-sm text-red-300">The offers could not be loaded.</p>}
      {sent.status === "ready" && (
        <ul className="mt-2 space-y-3 text-sm text-slate-300">
          {sent.data.rows.length === 0 && <li>No offer sent yet.</li>}
          {sent.data.rows.map((offer) => (
            <li key={offer.id} className="flex flex-wrap items-start gap-x-3 gap-y-2">
              <OfferStatusBadge status={offer.status} />
              <span>
                {programName(offer.product_key)}
                {offer.cohort_start ? `, cohort of ${formatDay(offer.cohort_start)}` : ""}, <OfferPrice offer={offer} />
                . Sent {dateTime(offer.created_at, timeZone)}; link until {dateTime(offer.expires_at, timeZone)}.
              </span>
              <WithdrawOffer offer={offer} onDone={reload} />
            </li>
          ))}
        </ul>
      )}
      <OfferForm lead={lead} programs={programs} offers={offers} timeZone={timeZone} onSent={reload} />
    </section>
  );
}

/** The days an offer's link can work for (functions/_shared/offers.ts checks the same). */
const LINK_DAYS = { least: 1, most: 30, usual: 7 };

/**
 * Sends a lead a coached offer: which offer, the cohort it holds a seat in (one a buyer could join
 * today or a later one), its price (another than the offer's needs a reason) and how many days its
 * link works. The function checks each against the catalogue again and names the field it refuses.
 */
function OfferForm({
  lead,
  programs,
  offers,
  timeZone,
  onSent,
}: {
  lead: LeadListRow;
  programs: DeskProgram[];
  offers: DeskOffer[];
  timeZone: string;
  onSent: () => void;
}) {
  const [offerId, setOfferId] = useState(offers[0]?.id ?? "");
  const offer = offers.find((o) => o.id === offerId);
  const program = programs.find((p) => p.key === offer?.productKey);
  const cohorts = program ? openCohorts(program.cohortStarts, dayIn(timeZone)) : [];
  const [cohort, setCohort] = useState(cohorts[0] ?? "");
  const [price, setPrice] = useState(offer ? (offer.priceCents / 100).toLocaleString("en-US") : "");
  const [reason, setReason] = useState("");
  const [days, setDays] = useState(String(LINK_DAYS.usual));
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<{ field: string | null; text: string } | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const formId = useId();
  if (!offer) return null;
  const cents = dollarsToCents(price);
  const otherPrice = cents !== null && cents !== offer.priceCents;
  const errorId = (field: string) => (problem?.field === field ? `${formId}-error` : undefined);
  const fieldError = (field: string) =>
    problem?.field === field ? (
      <p id={`${formId}-error`} role="alert" className="mt-1 text-sm text-red-300">
        {problem.text}
      </p>
    ) : null;

  return (
    <form
      className="mt-4 grid gap-3 rounded-xl border border-white/10 p-4 sm:grid-cols-2"
      aria-label={`Send ${lead.name} an offer`}
      noValidate
      onSubmit={(event) => {
        event.preventDefault();
        setDone(null);
        if (cents === null) return setProblem({ field: "priceCents", text: "Type the price in dollars, like 35,000." });
        if (otherPrice && !reason.trim())
          return setProblem({ field: "priceReason", text: "Say why the offer is at another price." });
        const linkDays = Number(days);
        if (!Number.isInteger(linkDays) || linkDays < LINK_DAYS.least || linkDays > LINK_DAYS.most)
          return setProblem({
            field: "expiresInDays",
            text: `The link works for ${LINK_DAYS.least} to ${LINK_DAYS.most} days.`,
          });
        setProblem(null);
        setBusy(true);
        sendOffer({
          lead: lead.id,
          offer: offer.id,
          cohortStart: cohorts.length ? cohort : null,
          priceCents: cents,
          priceReason: otherPrice ? reason.trim() : null,
          expiresInDays: linkDays,
        })
          .then(({ expires_at }) => {
            setDone(`Offer sent to ${lead.email}. Its link works until ${dateTime(expires_at, timeZone)}.`);
            setReason("");
            onSent();
          })
          .catch((error: unknown) =>
            setProblem(
              error instanceof OfferNotSent
                ? { field: error.field, text: error.message }
                : { field: null, text: "The offer could not be sent. Please try again." },
            ),
          )
          .finally(() => setBusy(false));
      }}
    >
      <h4 className="text-sm font-semibold text-white sm:col-span-2">Send an offer</h4>
      <Field label="Offer">
        {(id) => (
          <>
            <select
              id={id}
              className={inputClass}
              value={offerId}
              aria-invalid={problem?.field === "offer" || undefined}
              aria-describedby={errorId("offer")}
              onChange={(e) => {
                const next = offers.find((o) => o.id === e.target.value)!;
                const nextProgram = programs.find((p) => p.key === next.productKey);
                setOfferId(next.id);
                setPrice((next.priceCents / 100).toLocaleString("en-US"));
                setCohort((nextProgram ? openCohorts(nextProgram.cohortStarts, dayIn(timeZone)) : [])[0] ?? "");
                setProblem(null);
              }}
            >
              {offers.map((o) => (
                <option key={o.id} value={o.id}>
                  {programs.find((p) => p.key === o.productKey)?.name ?? o.id}: {o.priceLabel}
                </option>
              ))}
            </select>
            {fieldError("offer")}
          </>
        )}
      </Field>
      {program && program.cohortStarts.length > 0 && (
        <Field label="Cohort">
          {(id) =>
            cohorts.length ? (
              <>
                <select
                  id={id}
                  className={inputClass}
                  value={cohort}
                  aria-invalid={problem?.field === "cohortStart" || undefined}
                  aria-describedby={errorId("cohortStart")}
                  onChange={(e) => setCohort(e.target.value)}
                >
                  {cohorts.map((start) => (
                    <option key={start} value={start}>
                      Starts {formatDay(start)}
                    </option>
                  ))}
                </select>
                {fieldError("cohortStart")}
              </>
            ) : (
              <p id={id} className="mt-1 text-sm text-amber-200">
                No cohort is open to join: add one to the program in content first.
              </p>
            )
          }
        </Field>
      )}
      <Field label="Price (USD)">
        {(id) => (
          <>
            <input
              id={id}
              inputMode="decimal"
              className={inputClass}
              value={price}
              aria-invalid={problem?.field === "priceCents" || undefined}
              aria-describedby={errorId("priceCents")}
              onChange={(e) => setPrice(e.target.value)}
            />
            {fieldError("priceCents")}
          </>
        )}
      </Field>
      <Field label="Link works for (days)">
        {(id) => (
          <>
            <input
              id={id}
              type="number"
              min={LINK_DAYS.least}
              max={LINK_DAYS.most}
              className={inputClass}
              value={days}
              aria-invalid={problem?.field === "expiresInDays" || undefined}
              aria-describedby={errorId("expiresInDays")}
              onChange={(e) => setDays(e.target.value)}
            />
            {fieldError("expiresInDays")}
          </>
        )}
      </Field>
      {otherPrice && (
        <Field label="Why this price" className="sm:col-span-2">
          {(id) => (
            <>
              <textarea
                id={id}
                rows={2}
                maxLength={500}
                className={inputClass}
                value={reason}
                aria-invalid={problem?.field === "priceReason" || undefined}
                aria-describedby={errorId("priceReason")}
                onChange={(e) => setReason(e.target.value)}
              />
              {fieldError("priceReason")}
            </>
          )}
        </Field>
      )}
      <div className="flex flex-wrap items-center gap-3 sm:col-span-2">
        <button
          type="submit"
          className={pillButtonClass.primary}
          disabled={busy || (program !== undefined && program.cohortStarts.length > 0 && cohorts.length === 0)}
        >
          {busy ? "Sending…" : "Send the offer"}
        </button>
        <p role="status" className="text-sm text-green-300">
          {done}
        </p>
      </div>
      {problem && problem.field === null && (
        <p role="alert" className="text-sm text-red-300 sm:col-span-2">
          {problem.text}
        </p>
      )}
    </form>
  );
}

/** Every offer sent, newest first, with its state; an admin withdraws one from here. */
export function Offers({ query, setQuery, timeZone, programs }: ViewProps & { programs: DeskProgram[] }) {
  const page = pageOf(query);
  const asked = query.get("status");
  const status = isOfferStatus(asked) ? asked : "";
  const [state, reload] = useRemote(`offers|${page}|${status}`, () => fetchOffers({ page, status }));
  useDeskMark(state.status === "ready");
  const programName = (key: string) => programs.find((p) => p.key === key)?.name ?? key;
  // The paid offers' plans, for their progress beside the state.
  const paidIds = state.status === "ready" ? state.data.rows.filter((o) => o.status === "paid").map((o) => o.id) : [];
  const [plans] = useRemote(`offer-plans|${paidIds.join(",")}`, () => fetchOfferPlans(paidIds));
  const planOf = (id: string) => (plans.status === "ready" ? plans.data.find((p) => p.offer_id === id) : undefined);
  return (
    <section aria-labelledby="offers-heading">
      <h2 id="offers-heading" className="text-xl font-bold text-white">
        Offers
      </h2>
      <p className="mt-1 text-sm text-slate-400">
        Every coached offer sent, newest first. Send one from a lead on the Leads view.
      </p>
      <div className="mt-4 flex flex-wrap items-end gap-4">
        <SelectField
          label="Status"
          className="w-40"
          value={status}
          options={[["", "Any status"], ...OFFER_STATUS_OPTIONS]}
          onChange={(value) => setQuery({ status: value || null, page: null })}
        />
      </div>
      <div className="mt-4">
        <Table
          caption="Coached offers"
          state={state}
          rowKey={(offer) => offer.id}
          empty={status ? "No offer has this status." : "No offers sent yet."}
          columns={[
            { label: "Sent", cell: (o) => dateTime(o.created_at, timeZone), className: "whitespace-nowrap" },
            {
              label: "Applicant",
              cell: (o) => (
                <>
                  <span className="font-semibold text-white">{o.name}</span>
                  <br />
                  {o.email}
                </>
              ),
            },
            {
              label: "Offer",
              cell: (o) => (
                <>
                  {programName(o.product_key)}
                  {o.cohort_start && (
                    <>
                      <br />
                      <span className="text-slate-400">Cohort of {formatDay(o.cohort_start)}</span>
                    </>
                  )}
                </>
              ),
            },
            { label: "Price", cell: (o) => <OfferPrice offer={o} /> },
            { label: "Link until", cell: (o) => dateTime(o.expires_at, timeZone), className: "whitespace-nowrap" },
            {
              label: "Status",
              cell: (o) => {
                const plan = planOf(o.id);
                return (
                  <>
                    <OfferStatusBadge status={o.status} />
                    {plan && <PlanProgress plan={plan} timeZone={timeZone} />}
                  </>
                );
              },
            },
            { label: "Actions", cell: (o) => <WithdrawOffer offer={o} onDone={reload} inTable /> },
          ]}
        />
        {state.status === "ready" && (
          <Pager page={page} total={state.data.total} noun="offer" onPage={(p) => setQuery({ page: String(p) })} />
        )}
      </div>
    </section>
  );
}
