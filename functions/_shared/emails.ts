/**
 * The product's own e-mails, as templates: each a pure function from the facts of one event to
 * its subject, HTML and plain text, rendered the same way under Node (the local stack, whose
 * Resend stand-in keeps them in the outbox) and on Supabase Edge. Auth's own e-mails (password
 * reset) are supabase/templates/; these share their look. Every value is escaped; the HTML is
 * table-based with inline styles, as mail clients need.
 */
import { ATTRIBUTION_LABELS, type AttributionKey } from "../../packages/shared/checkout-request.ts";
import { formatDay } from "../../packages/shared/cohort.ts";
import { formatCents } from "../../packages/shared/money.ts";
import type { OfferPayment } from "../../packages/shared/offer-options.ts";
// The business as its e-mails name it: content/site.yaml's brand, through the generated catalogue.
import { BRAND, LEAD_REPLY_WITHIN } from "./catalogue.ts";
import { COHORT_CALENDAR_FILE, cohortCalendar } from "./calendar.ts";
import type { Email } from "./mail.ts";

const escape = (value: string) =>
  value.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);

interface Part {
  /** A paragraph of text. */
  p?: string;
  /** A call to action. */
  button?: { label: string; href: string };
  /** Label and value rows: the order's facts. */
  facts?: [string, string][];
  /** Small print. */
  note?: string;
  /** A heading within the message. */
  h2?: string;
  /** Someone's own words, line breaks kept. */
  quote?: string;
}

function render(subject: string, heading: string, parts: Part[]): Omit<Email, "to"> {
  const html = parts
    .map((part) => {
      if (part.p) return `<p style="margin:0 0 16px;font-size:16px;line-height:1.5">${escape(part.p)}</p>`;
      if (part.note)
        return `<p style="margin:0 0 16px;font-size:14px;line-height:1.5;color:#475569">${escape(part.note)}</p>`;
      if (part.h2) return `<h2 style="margin:24px 0 8px;font-size:17px">${escape(part.h2)}</h2>`;
      if (part.quote)
        return (
          `<p style="margin:0 0 16px;padding:12px 16px;border-left:4px solid #c4b5fd;background:#f5f3ff;` +
          `font-size:15px;line-height:1.5;white-space:pre-wrap">${escape(part.quote)}</p>`
        );
      if (part.button)
        return (
          `<p style="margin:24px 0"><a href="${escape(part.button.href)}" style="display:inline-block;padding:12px 20px;` +
          `border-radius:6px;background:#7c3aed;color:#ffffff;font-weight:bold;text-decoration:none">` +
          `${escape(part.button.label)}</a></p>`
        );
      const rows = (part.facts ?? [])
        .map(
          ([label, value]) =>
            `<tr><td style="padding:6px 16px 6px 0;color:#475569;font-size:14px">${escape(label)}</td>` +
            `<td style="padding:6px 0;font-size:14px;font-weight:bold">${escape(value)}</td></tr>`,
        )
        .join("");
      return `<table role="presentation" cellpadding="0" cellspacing="0" style="margin:0 0 16px">${rows}</table>`;
    })
    .join("\n");
  const text = [
    heading,
    ...parts.map((part) => {
      if (part.p) return part.p;
      if (part.note) return part.note;
      if (part.h2) return part.h2;
      if (part.quote) return part.quote;
      if (part.button) return `${part.button.label}: ${part.button.href}`;
      return (part.facts ?? []).map(([label, value]) => `${label}: ${value}`).join("\n");
    }),
    BRAND,
  ].join("\n\n");
  return {
    subject,
    text,
    html: `<!doctype html>
<html lang="en">
  <body style="margin:0;padding:24px;background:#f8fafc;font-family:Arial,Helvetica,sans-serif;color:#0f172a">
    <table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="max-width:560px;margin:0 auto;background:#ffffff;border-radius:8px">
      <tr>
        <td style="padding:32px">
          <p style="margin:0 0 24px;font-size:14px;font-weight:bold;letter-spacing:0.08em;text-transform:uppercase;color:#7c3aed">${BRAND}</p>
          <h1 style="margin:0 0 16px;font-size:22px">${escape(heading)}</h1>
${html}
        </td>
      </tr>
    </table>
  </body>
</html>
`,
  };
}

/** What every order e-mail says about the order. */
export interface OrderFacts {
  /** The site's root URL (SITE_URL). */
  site: string;
  program: { id: string; key: string; name: string };
  amountCents: number;
  currency: string;
  /** The order reference (functions/_shared/order-reference.ts). */
  reference: string;
  /** The buyer's account e-mail. */
  email: string;
  /**
   * For a cohort program, the buyer's cohort (stripe_orders.cohort_start): its start day, whether
   * it has started by the time the e-mail is written, and when the order was made.
   */
  cohort?: { start: string; started: boolean; orderedAt: Date };
}

const link = (site: string, path: string) => new URL(path, site).href;

/** The order's facts; with `cohort`, the start day of the buyer's cohort too (the access e-mail). */
const orderRows = (facts: OrderFacts, amountLabel: string, cohort = false): Part => ({
  facts: [
    ["Program", facts.program.name],
    ...(cohort && facts.cohort ? [["Cohort starts", formatDay(facts.cohort.start)] as [string, string]] : []),
    [amountLabel, formatCents(facts.amountCents, facts.currency)],
    ["Order", facts.reference],
  ],
});

/** What a cohort program's buyer has now and when the rest opens; nothing for a self-paced program. */
function cohortParts(facts: OrderFacts): Part[] {
  const { cohort } = facts;
  if (!cohort) return [];
  const day = formatDay(cohort.start);
  return [
    {
      p: cohort.started
        ? `Your cohort started on ${day}, and you join it now: the orientation and the weeks so far are open in your client portal, and each later module opens on its week.`
        : `Your cohort starts on ${day}. The orientation is open in your client portal now; each module opens on its week from that day. The attached calendar file puts the start in your calendar.`,
    },
  ];
}

/**
 * Access granted, to every buyer. A buyer whose account is new gets their set-password link in
 * this same e-mail (`setPasswordUrl`): one message to act on, not an invite beside it.
 */
export function accessEmail(facts: OrderFacts, setPasswordUrl: string | null): Email {
  const course = link(facts.site, `/portal/courses/${facts.program.id}`);
  const name = facts.program.name;
  const mail = setPasswordUrl
    ? render(`You now have ${name}: set your password to start`, `You now have ${name}`, [
        {
          p: `Thank you for your purchase. We created your ${BRAND} account for ${facts.email}; choose a password and your program opens in the client portal.`,
        },
        ...cohortParts(facts),
        orderRows(facts, "Amount paid", true),
        { button: { label: "Set your password", href: setPasswordUrl } },
        {
          note: `The link works once and for an hour. If it has expired, enter ${facts.email} at ${link(facts.site, "/forgot-password")} and we will send a new one.`,
        },
        { note: "Stripe sends your payment receipt separately. Questions about your order? Reply to this e-mail." },
      ])
    : render(`You now have ${name}`, `You now have ${name}`, [
        {
          p: `Thank you for your purchase. ${name} is in your client portal now: sign in with ${facts.email} and start with ${facts.cohort ? "the orientation" : "the first lesson"}.`,
        },
        ...cohortParts(facts),
        orderRows(facts, "Amount paid", true),
        { button: { label: `Open ${name}`, href: course } },
        { note: "Stripe sends your payment receipt separately. Questions about your order? Reply to this e-mail." },
      ]);
  const calendar = facts.cohort && !facts.cohort.started ? facts.cohort : null;
  return {
    ...mail,
    to: facts.email,
    ...(calendar
      ? {
          attachments: [
            {
              filename: COHORT_CALENDAR_FILE,
              contentType: "text/calendar; charset=utf-8; method=PUBLISH",
              text: cohortCalendar(
                {
                  id: facts.reference,
                  programName: name,
                  start: calendar.start,
                  courseUrl: course,
                  orderedAt: calendar.orderedAt,
                },
                BRAND,
              ),
            },
          ],
        }
      : {}),
  };
}

/** A bank debit was declined after the checkout: nothing charged, no access, how to try again. */
export function paymentFailedEmail(facts: OrderFacts): Email {
  const name = facts.program.name;
  const mail = render(`Your payment for ${name} did not go through`, "Your payment did not go through", [
    {
      p: `Your bank did not complete the payment for ${name}, so nothing was charged and the program has not been opened.`,
    },
    orderRows(facts, "Amount"),
    {
      p: "You can buy it again with a card or another bank account; it takes a minute, and the program opens as soon as the payment goes through.",
    },
    { button: { label: `Buy ${name}`, href: link(facts.site, `/checkout/${facts.program.key}`) } },
    {
      note: "If you think this is a mistake, your bank can tell you why it declined the debit. Or reply to this e-mail.",
    },
  ]);
  return { ...mail, to: facts.email };
}

/** A full refund: the money on its way back, and access to the program ended. */
export function refundEmail(facts: OrderFacts): Email {
  const name = facts.program.name;
  const mail = render(`Your refund for ${name}`, "Your refund is on its way", [
    {
      p: `We refunded your payment for ${name} to the card or account you paid with. Banks usually show it within 5 to 10 business days.`,
    },
    orderRows(facts, "Amount refunded"),
    {
      p: `Your access to ${name} has ended. Your account stays open, with any other programs you own and your purchase history.`,
    },
    { note: "Questions about your refund? Reply to this e-mail." },
  ]);
  return { ...mail, to: facts.email };
}

/** A consultation request, as the leads function stored it (public.leads). */
export interface LeadFacts {
  name: string;
  email: string;
  phone: string | null;
  firm: string | null;
  aum: string | null;
  help: string | null;
  /** The lead page it came from: /get-started-ai. */
  page: string;
  /** When it was received (ISO 8601). */
  createdAt: string;
  attribution: Partial<Record<AttributionKey, string | null>>;
}

/** The most of a visitor's name a subject line carries. */
export const SUBJECT_NAME_MAX = 60;

/**
 * Anything that reads as a link or an address: an e-mail address, a scheme or `www.` (any case), or a dotted host name ending in a
 * lower-case top-level domain (`cheap-pills.example`); a name's own dots ("J.R. Ortiz",
 * "Anne St.John") are capitalised or spaced, and stay.
 */
const LINKS = [
  /\S+@\S+/g,
  /\b[a-z][a-z0-9+.-]*:\/\/\S*/gi,
  /\bwww\.\S*/gi,
  /\b(?:[A-Za-z0-9-]+\.)+[a-z]{2,}\b(?:\/\S*)?/g,
];

/**
 * A visitor's name as a subject line may carry it: a visitor writes it, and the subject is the line
 * the business reads in its inbox list, so it carries the name only, on one line, with no link in
 * it (the message body has every answer, as typed), and at most SUBJECT_NAME_MAX characters.
 */
export function subjectName(name: string): string {
  const oneLine = name.replace(/[\p{Cc}\p{Cf}\u2028\u2029]+/gu, " ");
  const plain = LINKS.reduce((text, link) => text.replace(link, " "), oneLine)
    .replace(/\s+/g, " ")
    .trim();
  return plain.length > SUBJECT_NAME_MAX ? `${plain.slice(0, SUBJECT_NAME_MAX - 1).trimEnd()}…` : plain;
}

/**
 * The business's notification of a consultation request: every answer, the page, and where the
 * visit came from. Replies go to the lead (`replyTo`), so answering is pressing Reply.
 */
export function leadNotificationEmail(to: string, lead: LeadFacts): Email {
  const received = `${lead.createdAt.slice(0, 16).replace("T", " ")} UTC`;
  const name = subjectName(lead.name);
  const mail = render(name ? `Consultation request: ${name}` : "Consultation request", "New consultation request", [
    {
      p: `${lead.name} asked for a strategy call on ${lead.page}. Reply to this e-mail to answer them at ${lead.email}.`,
    },
    {
      facts: [
        ["Name", lead.name],
        ["Email", lead.email],
        ["Phone", lead.phone || "—"],
        ["Firm", lead.firm || "—"],
        ["Assets under management", lead.aum || "—"],
        ["Page", lead.page],
        ["Received", received],
      ],
    },
    { h2: "What they would like help with" },
    lead.help ? { quote: lead.help } : { note: "They left this empty." },
    { h2: "Where the visit came from" },
    { facts: ATTRIBUTION_LABELS.map(([key, label]) => [label, lead.attribution[key] || "—"]) },
  ]);
  return { ...mail, to, replyTo: lead.email };
}

/**
 * To the visitor who sent the consultation form: it arrived, and when they hear back. It goes to
 * whatever address was typed, so every word is the business's own but their first name, made safe
 * as a subject line makes it (`subjectName`): no answer and no link of theirs, nothing a stranger
 * could fill with a message for someone else. Replies go to the business (`business`).
 */
export function leadConfirmationEmail(to: string, name: string, business: string): Email {
  const first = subjectName(name).split(" ")[0] ?? "";
  const mail = render("Your strategy call request is in", "Your request is in", [
    {
      p: `Thank you${first ? `, ${first}` : ""}. We have your request for a free 30-minute strategy call with ${BRAND}.`,
    },
    { h2: "What happens next" },
    {
      p: `A coach reads every request and replies ${LEAD_REPLY_WITHIN}, by e-mail to this address, to book your call.`,
    },
    {
      p: "On the call, you review your practice together and leave with the two or three moves that would grow it fastest.",
    },
    { note: `Need us sooner, or want to add something? Reply to this e-mail: it reaches the team at ${business}.` },
    {
      note: `You receive this because this address was entered in the consultation form on the ${BRAND} website. If that was not you, reply to tell us and we will not contact you.`,
    },
  ]);
  return { ...mail, to, replyTo: business };
}

export interface ReviewFacts {
  /** The Stripe event held (functions/stripe-webhook/process.ts `holdForReview`). */
  eventId: string;
  eventType: string;
  sessionId: string;
  programName: string;
  /** The buyer's address, when Stripe had one. */
  email: string | null;
  /** What the payment (or the failed refund) was, in the smallest unit. */
  amountCents: number | null;
  currency: string | null;
  /** What it should have been: the program's price in the catalogue, or the coached offer's amount (null when no sent offer says). */
  priceCents: number | null;
  priceCurrency: string;
  /** Whether it paid a coached offer (docs/coached-offers.md) rather than the program's checkout. */
  offer?: boolean;
  reason: string;
}

/**
 * To the business: a Stripe event the webhook held for review instead of acting on it. A payment
 * that was not the program's price granted nothing; a refund that failed left the buyer unpaid.
 * Either way someone has to act, in Stripe's dashboard, and mark the review settled
 * (docs/operations.md, Checkout and payments).
 */
export function paymentReviewEmail(to: string, review: ReviewFacts): Email {
  const refund = review.eventType === "refund.failed";
  const amount =
    review.amountCents === null || !review.currency ? "—" : formatCents(review.amountCents, review.currency);
  const buyer = review.email ?? "the buyer";
  const mail = render(
    refund
      ? `Refund failed: ${review.programName}, ${buyer}`
      : `Payment held for review: ${review.programName}, ${buyer}`,
    refund ? "A refund failed" : "A payment was held for review",
    [
      {
        p: refund
          ? `Stripe could not return ${amount} to ${buyer} for ${review.programName}: the money is back in your Stripe balance, and the buyer has not been paid back. Refund them another way and let them know.`
          : `A payment of ${amount} for ${review.programName} is not ${review.offer ? "what the coached offer asked" : "the program's price"}${review.priceCents === null ? "" : ` (${formatCents(review.priceCents, review.priceCurrency)})`}, so ${buyer} was given no access. Check it in Stripe's dashboard: refund it, or ${review.offer ? "send the applicant a new offer" : "ask the buyer to buy through the site"}.`,
      },
      {
        facts: [
          ["Program", review.programName],
          ["Buyer", review.email ?? "—"],
          [refund ? "Refund" : "Paid", amount],
          ["Checkout Session", review.sessionId],
          ["Stripe event", `${review.eventType} ${review.eventId}`],
        ],
      },
      { h2: "Why it was held" },
      { quote: review.reason },
      {
        note: "When it is settled, mark the review in the database: public.stripe_payment_reviews, resolved_at and resolution.",
      },
    ],
  );
  return { ...mail, to };
}

export interface DisputeFacts {
  /** Stripe's dispute id (du_…), which `npm run stripe:dispute` takes. */
  disputeId: string;
  /** Stripe's status: needs_response, warning_needs_response (an inquiry)… */
  status: string;
  /** The bank's reason: fraudulent, product_not_received… */
  reason: string | null;
  programName: string;
  /** The order reference the buyer's e-mails and purchase history show. */
  reference: string;
  email: string | null;
  amountCents: number | null;
  currency: string | null;
  /** When the bank must have the business's answer (ISO), if Stripe said. */
  evidenceDueBy: string | null;
  /** Whether the key is a live one: the dashboard's address differs in test mode. */
  livemode: boolean;
}

/**
 * To the business: a buyer disputed a payment with their bank. A chargeback holds the order (no
 * access) until it closes; an inquiry changes nothing yet. What to do: the evidence command, and
 * the dispute in Stripe's dashboard (docs/operations.md, Disputes).
 */
export function disputeEmail(to: string, dispute: DisputeFacts): Email {
  const inquiry = dispute.status.startsWith("warning_");
  const amount =
    dispute.amountCents === null || !dispute.currency ? "—" : formatCents(dispute.amountCents, dispute.currency);
  const buyer = dispute.email ?? "the buyer";
  const due = dispute.evidenceDueBy ? `${dispute.evidenceDueBy.slice(0, 16).replace("T", " ")} UTC` : "—";
  const reason = (dispute.reason ?? "general").replace(/_/g, " ");
  const mail = render(
    `${inquiry ? "Payment inquiry" : "Payment disputed"}: ${dispute.programName}, ${buyer}`,
    inquiry ? "A bank asked about a payment" : "A payment was disputed",
    [
      {
        p: inquiry
          ? `${buyer}'s bank is asking about the payment of ${amount} for ${dispute.programName} (reason: ${reason}). No money has been taken back yet and the buyer keeps access. Answer before the due date, or it may become a chargeback.`
          : `${buyer} disputed the payment of ${amount} for ${dispute.programName} with their bank (reason: ${reason}). Stripe has taken the amount back while the bank decides. Access to the program is paused until the dispute closes: it returns if you win, and stays closed if you lose.`,
      },
      {
        facts: [
          ["Program", dispute.programName],
          ["Buyer", dispute.email ?? "—"],
          ["Amount", amount],
          ["Reason", reason],
          ["Order reference", dispute.reference],
          ["Answer by", due],
          ["Stripe dispute", dispute.disputeId],
        ],
      },
      {
        button: {
          label: "Open the dispute in Stripe",
          href: `https://dashboard.stripe.com/${dispute.livemode ? "" : "test/"}disputes/${dispute.disputeId}`,
        },
      },
      { h2: "Answering it" },
      {
        p: `The product holds the evidence banks ask for: when the account was made, its sign-ins and their addresses, the lessons worked in, the files downloaded, and the refund policy the checkout showed. See it with \`npm run stripe:dispute -- ${dispute.disputeId}\`, and send it to Stripe with \`npm run stripe:dispute -- ${dispute.disputeId} --submit\`.`,
      },
    ],
  );
  return { ...mail, to };
}

/** What each role opens on the desk (docs/operations.md, The team and its roles). */
const ROLE_REACH = {
  coach: "the students of every program and cohort, and each one's progress",
  admin: "the consultation requests, the students and their progress, and every order",
} as const;

/**
 * To someone `npm run staff -- add` made staff. Without a password yet (`setPasswordUrl`: an
 * invite's link, the same scanner-proof link as a buyer's), the button sets one first and the
 * desk follows; with one, the button opens the desk.
 */
export function staffEmail(
  to: string,
  site: string,
  role: keyof typeof ROLE_REACH,
  setPasswordUrl: string | null,
): Email {
  const desk = link(site, "/desk");
  const mail = render(
    setPasswordUrl ? `You are on the ${BRAND} team: set your password` : `You are on the ${BRAND} team`,
    `Welcome to the team's desk`,
    [
      {
        p: `You have been added to ${BRAND}'s team as ${role === "admin" ? "an admin" : "a coach"}. The desk shows you ${ROLE_REACH[role]}.`,
      },
      setPasswordUrl
        ? { p: "Open the link below and press Continue to choose your password; the desk is then one click away." }
        : { p: `Sign in with your usual password: the desk is at ${desk}, and in your portal's menu.` },
      setPasswordUrl
        ? { button: { label: "Set your password", href: setPasswordUrl } }
        : { button: { label: "Open the desk", href: desk } },
      {
        note: `You receive this because someone at ${BRAND} added this address to the team. If you did not expect it, reply to tell us.`,
      },
    ],
  );
  return { ...mail, to };
}

/** What an offer's e-mail says (docs/coached-offers.md): to whom, the offer as sent, and its link. */
export interface OfferFacts {
  /** The applicant's name, as the team typed it. */
  name: string;
  /** The program the offer enrols in, and what it includes. */
  program: { name: string; includes: readonly string[] };
  /** The offer's price in cents (the content's, or the one the team sent it at). */
  priceCents: number;
  /** The ways to pay and the membership beside them, as sent (packages/shared/offer-options.ts). */
  payment: OfferPayment;
  /** The day the cohort it holds a seat in starts (YYYY-MM-DD); null for a self-paced program. */
  cohortStart: string | null;
  /** The offer's single-use link, `/offer/<token>` on the site. */
  url: string;
  /** When the link stops working. */
  expiresAt: Date;
  /** The business's time zone (content/site.yaml), in which the expiry is written. */
  timeZone: string;
}

/** One way to pay, in a line: "$35,000 in one payment", "Six monthly payments: $6,000 a month, the first today…". */
function optionLine(option: OfferPayment["options"][number]): string {
  if (option.kind === "in_full") return `${formatCents(option.amountCents)} in one payment.`;
  const { instalmentsCents: amounts, feeCents } = option;
  const same = amounts.every((amount) => amount === amounts[0]);
  const each = same
    ? `${amounts.length} payments of ${formatCents(amounts[0]!)}`
    : `${amounts.length} payments: ${amounts.map((amount) => formatCents(amount)).join(", ")}`;
  const total = amounts.reduce((sum, amount) => sum + amount, 0);
  return (
    `${option.name}: ${each}, the first when you accept and then one a month on the same day ` +
    `(${formatCents(total)} in all${feeCents ? `, including a ${formatCents(feeCents)} plan fee` : ""}).`
  );
}

/**
 * To an applicant the team sends a coached offer: what it includes, each way to pay with its
 * amounts, the membership beside them, the cohort, and the single-use link with its expiry. The link
 * opens the offer's page, which asks for a click before anything is spent, so a mail scanner that
 * opens it uses nothing up. Replies go to the business.
 */
export function offerEmail(to: string, offer: OfferFacts, business: string): Email {
  const first = subjectName(offer.name).split(" ")[0] ?? "";
  const expires = new Intl.DateTimeFormat("en-US", {
    timeZone: offer.timeZone,
    weekday: "long",
    month: "long",
    day: "numeric",
    hour: "numeric",
    minute: "2-digit",
    timeZoneName: "short",
  }).format(offer.expiresAt);
  const { membership } = offer.payment;
  const mail = render(`Your offer to join ${offer.program.name}`, `Your offer to join ${offer.program.name}`, [
    {
      p: `Thank you for the call${first ? `, ${first}` : ""}. As we discussed, here is your offer to join ${offer.program.name}${offer.cohortStart ? `, with a seat in the cohort that starts on ${formatDay(offer.cohortStart)}` : ""}.`,
    },
    { h2: "What it includes" },
    { p: offer.program.includes.join("; ") + "." },
    { h2: "How you can pay" },
    ...offer.payment.options.map((option) => ({ p: optionLine(option) })),
    ...(membership
      ? [
          {
            p: `Beside it, the monthly membership: ${formatCents(membership.monthlyCents)} a month from ${formatDay(membership.startsOn)}, which you can cancel at any time from your portal.`,
          },
        ]
      : []),
    { button: { label: "See your offer and choose how to pay", href: offer.url } },
    {
      note: `This link is yours alone and works until ${expires}. After that, reply to this e-mail and we will send a new one.`,
    },
    { note: offer.payment.terms },
    ...(offer.payment.sample
      ? [
          {
            note: "Sample: these payment plans, the membership's start and the terms are sample content, shown until the business sets its own.",
          },
        ]
      : []),
  ]);
  return { ...mail, to, replyTo: business };
}

/** What a failed plan payment's e-mail says (docs/coached-offers.md, "Paying over time"). */
export interface PlanFailureFacts {
  programName: string;
  /** The payment that failed, in the smallest unit, and its currency. */
  amountCents: number;
  currency: string;
  /** Stripe's page where the invoice is paid, with this card or another. */
  payUrl: string;
  /** The day access pauses if it is still unpaid (YYYY-MM-DD, the business's). */
  pausesOn: string;
}

/**
 * To a buyer whose plan payment failed, on its first failure: what failed, the link to pay it with
 * this card or another (the invoice's own page at Stripe), that Stripe tries again meanwhile, and
 * the day access pauses if it is still unpaid; paying it later restores access at once.
 */
export function planPaymentFailedEmail(to: string, facts: PlanFailureFacts): Email {
  const amount = formatCents(facts.amountCents, facts.currency);
  const mail = render(
    `Your ${facts.programName} payment of ${amount} did not go through`,
    "A payment did not go through",
    [
      {
        p: `We could not take this month's payment of ${amount} for ${facts.programName}. Your card may have expired, or the bank may have declined it.`,
      },
      { button: { label: "Pay now or change your card", href: facts.payUrl } },
      {
        p: `We will try the card again over the next days. If the payment is still open on ${formatDay(facts.pausesOn)}, your access to the course pauses until it is paid, and returns the moment it is.`,
      },
      { note: "Already paid? Then you can ignore this message. Questions: reply to this e-mail." },
    ],
  );
  return { ...mail, to };
}
