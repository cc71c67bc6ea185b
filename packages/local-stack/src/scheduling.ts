/**
 * The scheduling provider's stand-in, so the lead pages work on `npm start` as they will live: a
 * consultation form (name, e-mail, phone, assets under management, message) and a booking widget
 * for the free strategy call (a month calendar, the chosen day's times, then name and e-mail), each
 * a page of its own that the site embeds in a frame, and the widget's embed script. The site passes
 * the visit's first-touch attribution (UTM parameters, referrer, landing page) in the frame's URL,
 * as it does to the real provider; a submission sends the business the notification the provider
 * would, attribution included, to the outbox. Every step is a plain link or form, so the widget
 * works with scripts off; the one script of its pages tells the embedding page how tall they are
 * (the height protocol of <lead-embed>, src/scripts/visit.ts). `npm start` builds the site with its
 * embed URLs pointing here (EMBED_* variables, packages/local-stack/src/site.ts); content/site.yaml
 * keeps the production provider's. Dev and test only.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { load } from "js-yaml";
import { ATTRIBUTION_LABELS } from "@advisor-accelerator/shared/checkout-request.ts";
import { readBody } from "./http.ts";
import type { Mailer } from "./mail.ts";
import { PROJECT_ROOT } from "./project.ts";

/** Where the stand-in answers, on the stack's own origin. */
export const SCHEDULING_PATH = "/_scheduling";
export const CONSULTATION_PATH = `${SCHEDULING_PATH}/consultation`;
export const BOOKING_PATH = `${SCHEDULING_PATH}/booking`;
export const EMBED_SCRIPT_PATH = `${SCHEDULING_PATH}/embed.js`;

export const AUM_RANGES = ["Under $10M", "$10M to $50M", "$50M to $100M", "$100M to $250M", "Over $250M"];
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const MAX_FIELD = 2000;

type SiteYaml = { site?: { brand?: string; contact?: { email?: string }; timeZone?: string } };
const siteYaml = (root: string) => load(readFileSync(join(root, "content", "site.yaml"), "utf8")) as SiteYaml;

/** The business's address (content/site.yaml `contact.email`): where a lead's notification goes. */
export function businessAddress(root = PROJECT_ROOT): string {
  const email = siteYaml(root)?.site?.contact?.email;
  if (!email) throw new Error("content/site.yaml: site.contact.email is needed for lead notifications");
  return email;
}

/** The business's time zone (content/site.yaml `timeZone`): the widget offers and labels its times in it. */
export function businessTimeZone(root = PROJECT_ROOT): string {
  const timeZone = siteYaml(root)?.site?.timeZone;
  if (!timeZone) throw new Error("content/site.yaml: site.timeZone is needed for the booking widget's times");
  return timeZone;
}

/** The business's name (content/site.yaml `brand`), which the widget shows as the calendar's host. */
export function businessName(root = PROJECT_ROOT): string {
  return siteYaml(root)?.site?.brand ?? "";
}

const escape = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);

const html = (body: string, status = 200) =>
  new Response(body, { status, headers: { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" } });

/**
 * A frame document: small, self-contained, readable on a white card. Its script speaks the
 * embedding page's height protocol (src/scripts/visit.ts): once the page asks with
 * `{type: "embed:measure"}`, it answers `{type: "embed:height", height}` to the page's origin,
 * and again whenever the document's height changes. It answers only when asked, so no message
 * is lost to a page not yet listening; every page load is asked again (the frame's `load`).
 * The document's own box is measured: its scrollHeight would never be less than the frame.
 */
function page(title: string, main: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escape(title)}</title>
<style>
*{box-sizing:border-box}body{margin:0;padding:24px;font:16px/1.5 system-ui,sans-serif;color:#0f172a;background:#fff}
h1{margin:0 0 4px;font-size:22px;line-height:1.3}h2{margin:0;font-size:17px}p{margin:0 0 16px;color:#334155}form{display:grid;gap:14px}
label{display:grid;gap:4px;font-weight:600;font-size:14px}input,select,textarea{font:inherit;padding:10px 12px;border:1px solid #94a3b8;border-radius:8px;width:100%}
textarea{min-height:96px}a{color:#5b21b6;font-weight:600}
button{font:inherit;font-weight:700;padding:12px 18px;border:0;border-radius:8px;background:#6d28d9;color:#fff;cursor:pointer}
:focus-visible{outline:3px solid #1d4ed8;outline-offset:2px}
.error{color:#b91c1c;font-weight:600}.done{padding:16px;border-radius:8px;background:#ecfdf5;color:#065f46}.done p{color:#065f46;margin:0}
.meta{font-size:14px;font-weight:600;color:#475569;margin:0 0 4px}h1+.meta{margin-bottom:12px}
.picker{display:grid;gap:24px;align-items:start;margin-top:8px}
.calendar{max-width:360px}
.month{display:flex;align-items:center;justify-content:space-between;gap:8px;margin-bottom:8px}
.month button,.chip{background:#fff;color:#5b21b6;border:1px solid #a78bfa}
.month button{width:44px;height:44px;padding:0;font-size:22px;line-height:1}
.month button:disabled{color:#94a3b8;border-color:#e2e8f0;cursor:default}
table{border-collapse:collapse;width:100%;table-layout:fixed}
th{font-size:12px;font-weight:600;color:#475569;padding:4px 0;text-align:center}th abbr{text-decoration:none}
td{padding:2px;text-align:center}
.day{width:100%;max-width:44px;height:44px;padding:0;border-radius:999px;background:#ede9fe;color:#4c1d95}
.day:disabled{background:none;color:#94a3b8;font-weight:400;cursor:default}
.day[aria-current]{background:#6d28d9;color:#fff}
.times{display:grid;gap:8px;grid-template-columns:repeat(auto-fill,minmax(120px,1fr))}
.chip{padding:10px 12px}
.hint{margin:0;color:#475569}
.back{display:inline-block;margin-bottom:12px}
.chosen{padding:12px 16px;border-radius:8px;background:#f5f3ff;color:#3b0764;margin:16px 0 8px}
@media (min-width:600px){.picker{grid-template-columns:minmax(0,360px) minmax(0,1fr)}.hint{padding-top:60px}.back{display:none}}
@media (max-width:599.98px){.with-day .calendar{display:none}}
</style></head><body><main>${main}</main>
<script>
let asker = null;
const tell = () => asker && parent.postMessage({ type: "embed:height", height: Math.ceil(document.documentElement.getBoundingClientRect().height) }, asker);
addEventListener("message", (event) => {
  if (event.source !== parent || event.data?.type !== "embed:measure") return;
  asker = event.origin;
  tell();
});
new ResizeObserver(tell).observe(document.documentElement);
</script></body></html>`;
}

/**
 * The attribution fields of the frame's URL (what src/lib/attribution.ts appends), carried through
 * the form as hidden inputs.
 */
function attributionOf(params: URLSearchParams): Record<string, string> {
  const found: Record<string, string> = {};
  for (const [key] of ATTRIBUTION_LABELS) {
    const value = params.get(key)?.trim();
    if (value) found[key] = value.slice(0, 500);
  }
  return found;
}

const hidden = (fields: Record<string, string>) =>
  Object.entries(fields)
    .map(([key, value]) => `<input type="hidden" name="${key}" value="${escape(value)}">`)
    .join("");

const field = (form: URLSearchParams, name: string) => (form.get(name) ?? "").trim().slice(0, MAX_FIELD);

const alerts = (errors: string[]) => errors.map((e) => `<p class="error" role="alert">${escape(e)}</p>`).join("");

interface Lead {
  name: string;
  email: string;
  phone: string;
  aum: string;
  message: string;
}

function consultationForm(values: Partial<Lead>, attribution: Record<string, string>, errors: string[] = []): string {
  const value = (key: keyof Lead) => escape(values[key] ?? "");
  const options = AUM_RANGES.map(
    (range) => `<option${values.aum === range ? " selected" : ""}>${escape(range)}</option>`,
  ).join("");
  return page(
    "Consultation Form",
    `<h1>Tell us about your practice</h1>
<p>A senior coach reads every request and replies within one business day to book your free 30-minute strategy call.</p>
${alerts(errors)}
<form method="post" action="${CONSULTATION_PATH}" novalidate>
<label>Full name<input name="name" autocomplete="name" required value="${value("name")}"></label>
<label>Email<input name="email" type="email" autocomplete="email" required value="${value("email")}"></label>
<label>Phone<input name="phone" type="tel" autocomplete="tel" value="${value("phone")}"></label>
<label>Assets under management<select name="aum"><option value="">Choose a range</option>${options}</select></label>
<label>What would you like help with?<textarea name="message">${value("message")}</textarea></label>
${hidden(attribution)}
<button type="submit">Request my strategy call</button>
</form>`,
  );
}

/** The strategy call's start times on a bookable day, in the business's time zone. */
export const CALL_TIMES = ["09:00", "10:30", "13:00", "14:30", "16:00"];
/** How long a call is. */
const CALL_MINUTES = 30;
/** How far ahead the calendar offers days (a rolling window from today). */
export const BOOKING_WINDOW_DAYS = 60;

/** Calendar days as `YYYY-MM-DD`, counted in UTC so no clock change moves them. */
const dayMs = (day: string) => Date.parse(`${day}T00:00:00Z`);
const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const addDays = (day: string, n: number) => isoDay(dayMs(day) + n * 86_400_000);
const weekday = (day: string) => new Date(dayMs(day)).getUTCDay();
const DAY = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/;
const MONTH = /^\d{4}-(0[1-9]|1[0-2])$/;

/** Today's date where the business is. */
function todayIn(timeZone: string, now: Date): string {
  const parts = new Intl.DateTimeFormat("en-US", { timeZone, year: "numeric", month: "2-digit", day: "2-digit" })
    .formatToParts(now)
    .reduce<Record<string, string>>((found, part) => ({ ...found, [part.type]: part.value }), {});
  return `${parts.year}-${parts.month}-${parts.day}`;
}

export interface Schedule {
  /** Whose calendar it is (content/site.yaml `brand`). */
  host: string;
  timeZone: string;
  /** The zone's everyday name, e.g. "Central Time". */
  zone: string;
  today: string;
  /** Each bookable day and its call times, in date order. */
  days: Map<string, string[]>;
}

/**
 * What the widget offers: weekdays from tomorrow (no same-day calls) through the window, each
 * with the call times, in the business's time zone. Weekends and past days are unavailable.
 */
export function schedule(now = new Date(), timeZone = businessTimeZone(), host = businessName()): Schedule {
  const today = todayIn(timeZone, now);
  const days = new Map<string, string[]>();
  for (let n = 1; n <= BOOKING_WINDOW_DAYS; n++) {
    const day = addDays(today, n);
    if (weekday(day) !== 0 && weekday(day) !== 6) days.set(day, CALL_TIMES);
  }
  const zone =
    new Intl.DateTimeFormat("en-US", { timeZone, timeZoneName: "longGeneric" })
      .formatToParts(now)
      .find((part) => part.type === "timeZoneName")?.value ?? timeZone;
  return { host, timeZone, zone, today, days };
}

const dateLabel = (day: string, options: Intl.DateTimeFormatOptions = {}) =>
  new Date(dayMs(day)).toLocaleDateString("en-US", {
    weekday: "long",
    month: "long",
    day: "numeric",
    timeZone: "UTC",
    ...options,
  });
const clock = (time: string) => {
  const [hour, minute] = time.split(":").map(Number) as [number, number];
  return `${hour % 12 || 12}:${String(minute).padStart(2, "0")} ${hour >= 12 ? "PM" : "AM"}`;
};
const later = (time: string, minutes: number) => {
  const [hour, minute] = time.split(":").map(Number) as [number, number];
  const total = hour * 60 + minute + minutes;
  return `${String(Math.floor(total / 60)).padStart(2, "0")}:${String(total % 60).padStart(2, "0")}`;
};
const slotLabel = (offer: Schedule, day: string, time: string) =>
  `${dateLabel(day, { year: "numeric" })}, ${clock(time)} ${offer.zone}`;

/** Every slot the widget offers: `YYYY-MM-DD HH:MM` in the business's time zone, and its label. */
export function slots(now = new Date(), timeZone = businessTimeZone()): { value: string; label: string }[] {
  const offer = schedule(now, timeZone);
  return [...offer.days].flatMap(([day, times]) =>
    times.map((time) => ({ value: `${day} ${time}`, label: slotLabel(offer, day, time) })),
  );
}

/** Where the visitor is in the widget: the month shown, the day and the time chosen, if any. */
interface Step {
  month: string;
  day?: string;
  time?: string;
}

/** The step a request's `month`, `day` and `time` name, dropping what the schedule does not offer. */
function stepOf(offer: Schedule, params: URLSearchParams): Step {
  const first = [...offer.days.keys()][0] ?? offer.today;
  const last = [...offer.days.keys()].at(-1) ?? offer.today;
  const dayParam = params.get("day") ?? "";
  const day = DAY.test(dayParam) && offer.days.has(dayParam) ? dayParam : undefined;
  const time = day && offer.days.get(day)!.includes(params.get("time") ?? "") ? params.get("time")! : undefined;
  const monthParam = params.get("month") ?? "";
  const month =
    day?.slice(0, 7) ??
    (MONTH.test(monthParam) && monthParam >= offer.today.slice(0, 7) && monthParam <= last.slice(0, 7)
      ? monthParam
      : first.slice(0, 7));
  return { month, day, time };
}

const link = (params: Record<string, string>, attribution: Record<string, string>) =>
  escape(`${BOOKING_PATH}?${new URLSearchParams({ ...params, ...attribution })}`);

const shiftMonth = (month: string, by: number) => {
  const [year, index] = month.split("-").map(Number) as [number, number];
  return new Date(Date.UTC(year, index - 1 + by, 1)).toISOString().slice(0, 7);
};

/** The month view: previous and next month, and a button for each day, those with times highlighted. */
function calendar(offer: Schedule, step: Step, attribution: Record<string, string>): string {
  const [year, index] = step.month.split("-").map(Number) as [number, number];
  const title = new Date(Date.UTC(year, index - 1, 1)).toLocaleDateString("en-US", {
    month: "long",
    year: "numeric",
    timeZone: "UTC",
  });
  const last = [...offer.days.keys()].at(-1) ?? offer.today;
  const previous = shiftMonth(step.month, -1);
  const next = shiftMonth(step.month, 1);
  const nav = (month: string, label: string, glyph: string, enabled: boolean) =>
    `<button name="month" value="${month}" aria-label="${label}"${enabled ? "" : " disabled"}><span aria-hidden="true">${glyph}</span></button>`;
  const cells: string[] = [];
  const lead = new Date(Date.UTC(year, index - 1, 1)).getUTCDay();
  const length = new Date(Date.UTC(year, index, 0)).getUTCDate();
  for (let i = 0; i < lead; i++) cells.push("<td></td>");
  for (let date = 1; date <= length; date++) {
    const day = `${step.month}-${String(date).padStart(2, "0")}`;
    const label = dateLabel(day);
    cells.push(
      offer.days.has(day)
        ? `<td><button class="day" name="day" value="${day}" aria-label="${label}"${day === step.day ? ' aria-current="true"' : ""}>${date}</button></td>`
        : `<td><button type="button" class="day" aria-label="${label}, unavailable" disabled>${date}</button></td>`,
    );
  }
  while (cells.length % 7) cells.push("<td></td>");
  const rows = [];
  for (let i = 0; i < cells.length; i += 7) rows.push(`<tr>${cells.slice(i, i + 7).join("")}</tr>`);
  const head = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"]
    .map((name) => `<th scope="col"><abbr title="${name}">${name.slice(0, 3)}</abbr></th>`)
    .join("");
  return `<form class="calendar" method="get" action="${BOOKING_PATH}">
${hidden(attribution)}
<div class="month">${nav(previous, "Previous month", "&lsaquo;", previous >= offer.today.slice(0, 7))}<h2 id="month">${title}</h2>${nav(next, "Next month", "&rsaquo;", next <= last.slice(0, 7))}</div>
<table aria-labelledby="month"><thead><tr>${head}</tr></thead><tbody>${rows.join("")}</tbody></table>
</form>`;
}

/** The chosen day's times, each a button that goes on to the name and e-mail form. */
function times(offer: Schedule, day: string, attribution: Record<string, string>): string {
  const chips = offer.days
    .get(day)!
    .map((time) => `<button class="chip" name="time" value="${time}">${clock(time)}</button>`)
    .join("");
  return `<section aria-labelledby="times">
<a class="back" href="${link({ month: day.slice(0, 7) }, attribution)}">&lsaquo; All dates</a>
<h2 id="times">${escape(dateLabel(day))}</h2>
<p class="meta">Times in ${escape(offer.zone)}</p>
<form method="get" action="${BOOKING_PATH}">${hidden({ ...attribution, day })}<div class="times">${chips}</div></form>
</section>`;
}

/** The widget's header, as a provider shows the event: host, name, length, where, and what happens. */
const eventHeader = (offer: Schedule) => `<p class="meta">${escape(offer.host)}</p>
<h1>Free strategy call</h1>
<p class="meta">${CALL_MINUTES} min &middot; Video call &middot; ${escape(offer.zone)}</p>
<p>Thirty minutes with a senior coach, by video. You will get a calendar invitation by e-mail.</p>`;

function bookingWidget(
  offer: Schedule,
  step: Step,
  values: Partial<Lead>,
  attribution: Record<string, string>,
  errors: string[] = [],
) {
  if (step.day && step.time) {
    const value = (key: keyof Lead) => escape(values[key] ?? "");
    return page(
      "Book your strategy call",
      `${eventHeader(offer)}
<p class="chosen"><strong>${escape(dateLabel(step.day, { year: "numeric" }))}</strong><br>${clock(step.time)} to ${clock(later(step.time, CALL_MINUTES))}, ${escape(offer.zone)}</p>
<p><a href="${link({ day: step.day }, attribution)}">Change the time</a></p>
${alerts(errors)}
<form method="post" action="${BOOKING_PATH}" novalidate>
<label>Full name<input name="name" autocomplete="name" required value="${value("name")}"></label>
<label>Email<input name="email" type="email" autocomplete="email" required value="${value("email")}"></label>
<label>Phone<input name="phone" type="tel" autocomplete="tel" value="${value("phone")}"></label>
${hidden({ ...attribution, slot: `${step.day} ${step.time}` })}
<button type="submit">Book my call</button>
</form>`,
    );
  }
  return page(
    "Book your strategy call",
    `${eventHeader(offer)}
${alerts(errors)}
<div class="picker${step.day ? " with-day" : ""}">
${calendar(offer, step, attribution)}
${step.day ? times(offer, step.day, attribution) : '<p class="hint">Choose a highlighted day to see its times.</p>'}
</div>`,
  );
}

function problems(lead: Partial<Lead>): string[] {
  const found: string[] = [];
  if (!lead.name) found.push("Please enter your name.");
  if (!lead.email || !EMAIL.test(lead.email)) found.push("Please enter a valid email address.");
  return found;
}

/** The notification the business receives: the lead's answers, then where the visit came from. */
function notification(kind: string, rows: [string, string][], attribution: Record<string, string>) {
  const table = (entries: [string, string][]) =>
    `<table>${entries.map(([k, v]) => `<tr><th scope="row" style="text-align:left;padding:4px 12px 4px 0">${escape(k)}</th><td>${escape(v || "—")}</td></tr>`).join("")}</table>`;
  // Labelled as the product's own lead e-mail labels them (functions/_shared/emails.ts).
  const source = ATTRIBUTION_LABELS.map(([key, label]) => [label, attribution[key] ?? ""] as [string, string]);
  const html = `<h1>${escape(kind)}</h1>${table(rows)}<h2>Where the visit came from</h2>${table(source)}`;
  const text = [...rows, ...source].map(([k, v]) => `${k}: ${v || "—"}`).join("\n");
  return { html, text };
}

/** What a test can set: the clock and the business's time zone (default content/site.yaml's). */
export interface SchedulingOptions {
  now?: () => Date;
  timeZone?: string;
}

/** Answers the stand-in's paths; null for any other path. */
export async function handleScheduling(
  request: Request,
  mail: Mailer,
  businessEmail: string,
  options: SchedulingOptions = {},
): Promise<Response | null> {
  const url = new URL(request.url);
  const path = url.pathname;
  if (path === EMBED_SCRIPT_PATH && request.method === "GET") {
    return new Response(EMBED_SCRIPT, { headers: { "content-type": "text/javascript; charset=utf-8" } });
  }
  if (path !== CONSULTATION_PATH && path !== BOOKING_PATH) return null;
  const booking = path === BOOKING_PATH;
  const offer = () => schedule(options.now?.() ?? new Date(), options.timeZone ?? businessTimeZone());
  if (request.method === "GET") {
    const attribution = attributionOf(url.searchParams);
    if (!booking) return html(consultationForm({}, attribution));
    const now = offer();
    return html(bookingWidget(now, stepOf(now, url.searchParams), {}, attribution));
  }
  if (request.method !== "POST")
    return new Response("Method not allowed", { status: 405, headers: { allow: "GET, POST" } });

  let form: URLSearchParams;
  try {
    form = new URLSearchParams(new TextDecoder().decode(await readBody(request, 64 * 1024)));
  } catch {
    return html(page("Too large", '<p class="error">That was more than the form takes.</p>'), 413);
  }
  const attribution = attributionOf(form);
  const lead: Lead = {
    name: field(form, "name"),
    email: field(form, "email"),
    phone: field(form, "phone"),
    aum: AUM_RANGES.includes(field(form, "aum")) ? field(form, "aum") : "",
    message: field(form, "message"),
  };
  if (booking) {
    const now = offer();
    const [day = "", time = ""] = field(form, "slot").split(" ");
    const step = stepOf(now, new URLSearchParams({ day, time }));
    // A time it does not offer (past, same-day, a weekend, made up): the calendar again.
    if (!step.time)
      return html(
        bookingWidget(now, stepOf(now, new URLSearchParams()), {}, attribution, ["Please choose a time."]),
        400,
      );
    const errors = problems(lead);
    if (errors.length) return html(bookingWidget(now, step, lead, attribution, errors), 400);
    const label = slotLabel(now, day, time);
    const body = notification(
      "New strategy call booked",
      [
        ["Time", label],
        ["Name", lead.name],
        ["Email", lead.email],
        ["Phone", lead.phone],
      ],
      attribution,
    );
    mail.send({ to: businessEmail, subject: `Strategy call booked: ${lead.name}, ${label}`, ...body });
    return html(
      page(
        "Booked",
        `<div class="done" role="status"><h1>You're booked, ${escape(lead.name)}.</h1><p>${escape(label)}. A calendar invitation is on its way to ${escape(lead.email)}.</p></div>`,
      ),
    );
  }
  const errors = problems(lead);
  if (errors.length) return html(consultationForm(lead, attribution, errors), 400);
  const body = notification(
    "New consultation request",
    [
      ["Name", lead.name],
      ["Email", lead.email],
      ["Phone", lead.phone],
      ["Assets under management", lead.aum],
      ["Message", lead.message],
    ],
    attribution,
  );
  mail.send({ to: businessEmail, subject: `Consultation request: ${lead.name}`, ...body });
  return html(
    page(
      "Thank you",
      `<div class="done" role="status"><h1>Thank you, ${escape(lead.name)}.</h1><p>A senior coach will e-mail you within one business day to book your strategy call.</p></div>`,
    ),
  );
}

/**
 * The widget's embed script, which the site loads on /apply as it will load the provider's (the
 * page's policy lets it run, src/integrations/security-headers.ts). A provider's script would
 * resize its frames its own way; the stand-in's frames speak the site's height protocol
 * (src/scripts/visit.ts), so this one has nothing left to do.
 */
const EMBED_SCRIPT = `/* The scheduling provider's embed script (stand-in): its frames size themselves through the page's height protocol. */
`;
