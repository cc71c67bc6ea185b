/**
 * The applicant's offer (/offer/<token>, docs/coached-offers.md): asked of the `offer` function
 * with the token from the address, then shown as sent: their name, the program and what it
 * includes, the cohort, each way to pay with its payments in dates and amounts, the membership
 * beside them, the terms and when the link stops working. Choosing a way to pay goes to Stripe's
 * hosted page. A used, withdrawn or expired link says so and what to do; nothing can be paid from it.
 */
import { useEffect, useId, useState } from "react";
import { formatCents } from "@advisor-accelerator/shared/money.ts";
import { formatDay } from "@advisor-accelerator/shared/cohort.ts";
import { readableDay } from "@advisor-accelerator/shared/payment-schedule.ts";
import type { PaymentOption } from "@advisor-accelerator/shared/offer-options.ts";
import { LoadingNote, Panel, pillButtonClass, Skeleton } from "~/components/ui/panel";
import { SampleBadge } from "~/components/ui/sample";
import {
  type Answer,
  askOffer,
  type OfferView,
  openOffer,
  optionButton,
  optionHeading,
  optionValue,
  planTotal,
  scheduleOf,
  tokenOf,
} from "./logic";

interface Props {
  /** `${PUBLIC_SUPABASE_URL}/functions/v1`. */
  functionsUrl: string;
  /** The business's time zone (content/site.yaml), in which the link's end is written. */
  timeZone: string;
}

const CLOSED_TITLES: Record<Extract<Answer, { kind: "closed" }>["code"], string> = {
  paid: "This offer is paid",
  withdrawn: "This offer was withdrawn",
  expired: "This offer has expired",
  not_found: "This offer link is not valid",
  cohort_closed: "This cohort is no longer open",
};

export default function OfferPage({ functionsUrl, timeZone }: Props) {
  const [state, setState] = useState<Answer | { kind: "loading" }>({ kind: "loading" });
  useEffect(() => {
    void openOffer(functionsUrl, location.pathname).then(setState);
  }, [functionsUrl]);

  if (state.kind === "loading" || state.kind === "checkout") {
    return (
      <div aria-busy="true" className="mx-auto max-w-3xl">
        <LoadingNote>Loading your offer…</LoadingNote>
        <Skeleton className="h-10 w-2/3" />
        <Skeleton className="mt-6 h-64 w-full" />
      </div>
    );
  }
  if (state.kind === "closed" || state.kind === "failed") {
    const title = state.kind === "closed" ? CLOSED_TITLES[state.code] : "Your offer could not be opened";
    return (
      <Panel as="section" className="mx-auto max-w-2xl p-8 text-center">
        <h1 className="text-2xl font-bold text-white">{title}</h1>
        <p className="mt-3 text-slate-300">{state.message}</p>
        {state.kind === "closed" && state.code === "paid" && (
          <a href="/portal" className={`${pillButtonClass.primary} mt-6`}>
            Open your client portal
          </a>
        )}
        {state.kind === "failed" && (
          <button type="button" className={`${pillButtonClass.secondary} mt-6`} onClick={() => location.reload()}>
            Try again
          </button>
        )}
      </Panel>
    );
  }
  return <Offer offer={state.offer} functionsUrl={functionsUrl} timeZone={timeZone} />;
}

function Offer({ offer, functionsUrl, timeZone }: { offer: OfferView } & Props) {
  const [busy, setBusy] = useState<string | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const first = offer.name.trim().split(/\s+/)[0] ?? "";
  const thisYear = Number(offer.today.slice(0, 4));
  const expires = new Intl.DateTimeFormat("en-US", {
    timeZone,
    weekday: "long",
    month: "long",
    day: "numeric",
    hour: "numeric",
    minute: "2-digit",
    timeZoneName: "short",
  }).format(new Date(offer.expiresAt));
  const { membership } = offer.payment;

  const choose = (option: PaymentOption) => {
    const token = tokenOf(location.pathname);
    if (!token) return;
    const value = optionValue(offer.payment, option);
    setBusy(value);
    setProblem(null);
    void askOffer(functionsUrl, token, value).then((answer) => {
      if (answer.kind === "checkout") {
        location.assign(answer.url);
        return;
      }
      setBusy(null);
      setProblem(answer.kind === "offer" ? "Please try again." : answer.message);
    });
  };

  return (
    <article className="mx-auto max-w-3xl">
      <p className="text-sm font-semibold uppercase tracking-wide text-violet-300">Your offer</p>
      <h1 className="mt-2 text-3xl font-bold tracking-tight text-white sm:text-4xl">
        {first ? `${first}, welcome to ${offer.program.name}` : `Welcome to ${offer.program.name}`}
      </h1>
      <p className="mt-3 text-lg text-slate-300">
        {formatCents(offer.priceCents)}
        {membership ? ` + ${formatCents(membership.monthlyCents)}/month` : ""}
        {offer.cohortStart ? `, with your seat in the cohort that starts on ${formatDay(offer.cohortStart)}.` : "."}
      </p>

      <Panel as="section" className="mt-8 p-6" aria-labelledby="includes-heading">
        <h2 id="includes-heading" className="text-lg font-bold text-white">
          What it includes
        </h2>
        <ul className="mt-3 list-disc space-y-1 pl-5 text-slate-200">
          {offer.program.includes.map((item) => (
            <li key={item}>{item}</li>
          ))}
        </ul>
      </Panel>

      <section className="mt-8" aria-labelledby="pay-heading">
        <h2 id="pay-heading" className="text-xl font-bold text-white">
          Choose how to pay {offer.payment.sample && <SampleBadge />}
        </h2>
        {offer.payment.sample && (
          <p className="mt-2 text-sm text-amber-200">
            These payment plans, the membership&apos;s start and the terms are sample content, shown until the business
            sets its own.
          </p>
        )}
        <div className="mt-4 grid gap-4 md:grid-cols-2">
          {offer.payment.options.map((option) => (
            <OptionCard
              key={optionValue(offer.payment, option)}
              option={option}
              today={offer.today}
              thisYear={thisYear}
              busy={busy}
              value={optionValue(offer.payment, option)}
              onChoose={() => choose(option)}
            />
          ))}
        </div>
        {problem && (
          <p role="alert" className="mt-4 text-red-300">
            {problem}
          </p>
        )}
        {membership && (
          <p className="mt-6 text-slate-200">
            Beside the way you choose, the monthly membership: {formatCents(membership.monthlyCents)} a month from{" "}
            {readableDay(membership.startsOn, thisYear)}, charged to the same card. You can cancel it at any time from
            your portal.
          </p>
        )}
      </section>

      <section className="mt-8 text-sm text-slate-400" aria-label="Terms">
        <p>{offer.payment.terms}</p>
        <p className="mt-3">
          This link is yours alone and works until {expires}. Payment is taken on Stripe&apos;s secure page; your card
          details never reach us.
        </p>
      </section>
    </article>
  );
}

function OptionCard({
  option,
  today,
  thisYear,
  busy,
  value,
  onChoose,
}: {
  option: PaymentOption;
  today: string;
  thisYear: number;
  busy: string | null;
  value: string;
  onChoose: () => void;
}) {
  const headingId = useId();
  const payments = scheduleOf(option, today);
  return (
    <Panel as="section" className="flex flex-col p-6" aria-labelledby={headingId}>
      <h3 id={headingId} className="text-lg font-bold text-white">
        {optionHeading(option)}
      </h3>
      {option.kind === "in_full" ? (
        <p className="mt-2 text-slate-200">{formatCents(option.amountCents)} today, and nothing more to pay.</p>
      ) : (
        <>
          <p className="mt-2 text-slate-200">{planTotal(option)}</p>
          <table className="mt-3 w-full text-left text-sm">
            <caption className="sr-only">{optionHeading(option)}: each payment</caption>
            <thead className="text-xs uppercase tracking-wide text-slate-400">
              <tr>
                <th scope="col" className="py-1 font-semibold">
                  Payment
                </th>
                <th scope="col" className="py-1 font-semibold">
                  Date
                </th>
                <th scope="col" className="py-1 text-right font-semibold">
                  Amount
                </th>
              </tr>
            </thead>
            <tbody className="text-slate-200">
              {payments.map((payment, i) => (
                <tr key={payment.day} className="border-t border-white/5">
                  <td className="py-1">{i + 1}</td>
                  <td className="py-1">{i === 0 ? "Today" : readableDay(payment.day, thisYear)}</td>
                  <td className="py-1 text-right">{formatCents(payment.amountCents)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
      <div className="mt-auto pt-6">
        <button
          type="button"
          className={`${pillButtonClass.primary} w-full`}
          disabled={busy !== null}
          aria-busy={busy === value}
          onClick={onChoose}
        >
          {busy === value ? "Opening the secure payment page…" : optionButton(option)}
        </button>
      </div>
    </Panel>
  );
}
