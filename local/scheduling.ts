/**
 * The scheduling provider's stand-in, so the lead pages work on `npm start` as they will live:
 * a consultation form (name, e-mail, phone, assets under management, message) and a booking
 * widget for the free strategy call, each a page of its own that the site embeds in a frame, and
 * the widget's embed script. The site passes the visit's first-touch attribution (UTM
 * parameters, referrer, landing page) in the frame's URL, as it does to the real provider; a
 * submission sends the business the notification the provider would, attribution included, to
 * the outbox. `npm start` builds the site with its embed URLs pointing here (EMBED_* variables,
 * local/start.ts); content/site.yaml keeps the production provider's. Dev and test only.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { load } from "js-yaml";
import { readBody } from "./http.ts";
import type { Mailer } from "./mail.ts";

/** Where the stand-in answers, on the stack's own origin. */
export const SCHEDULING_PATH = "/_scheduling";
export const CONSULTATION_PATH = `${SCHEDULING_PATH}/consultation`;
export const BOOKING_PATH = `${SCHEDULING_PATH}/booking`;
export const EMBED_SCRIPT_PATH = `${SCHEDULING_PATH}/embed.js`;

/** The attribution the site appends to the frame URL (src/lib/attribution.ts). */
const ATTRIBUTION = [
  ["utm_source", "Source"],
  ["utm_medium", "Medium"],
  ["utm_campaign", "Campaign"],
  ["utm_term", "Term"],
  ["utm_content", "Content"],
  ["referrer", "Referrer"],
  ["landing_page", "Landing page"],
] as const;

export const AUM_RANGES = ["Under $10M", "$10M to $50M", "$50M to $100M", "$100M to $250M", "Over $250M"];
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const MAX_FIELD = 2000;

/** The business's address (content/site.yaml `contact.email`): where a lead's notification goes. */
export function businessAddress(root = join(import.meta.dirname, "..")): string {
  const site = load(readFileSync(join(root, "content", "site.yaml"), "utf8")) as {
    site?: { contact?: { email?: string } };
  };
  const email = site?.site?.contact?.email;
  if (!email) throw new Error("content/site.yaml: site.contact.email is needed for lead notifications");
  return email;
}

const escape = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);

const html = (body: string, status = 200) =>
  new Response(body, { status, headers: { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" } });

/** A frame document: small, self-contained, readable on a white card. */
function page(title: string, main: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escape(title)}</title>
<style>
*{box-sizing:border-box}body{margin:0;padding:24px;font:16px/1.5 system-ui,sans-serif;color:#0f172a;background:#fff}
h1{margin:0 0 4px;font-size:22px}p{margin:0 0 16px;color:#334155}form{display:grid;gap:14px}
label{display:grid;gap:4px;font-weight:600;font-size:14px}input,select,textarea{font:inherit;padding:10px 12px;border:1px solid #94a3b8;border-radius:8px;width:100%}
textarea{min-height:96px}fieldset{border:1px solid #cbd5e1;border-radius:8px;padding:12px;display:grid;gap:8px;grid-template-columns:repeat(auto-fill,minmax(200px,1fr))}
legend{font-weight:600;font-size:14px}.slot{font-weight:400;display:flex;gap:8px;align-items:center}.slot input{width:auto}
button{font:inherit;font-weight:700;padding:12px 18px;border:0;border-radius:8px;background:#6d28d9;color:#fff;cursor:pointer}
.error{color:#b91c1c;font-weight:600}.done{padding:16px;border-radius:8px;background:#ecfdf5;color:#065f46}
</style></head><body><main>${main}</main>
<script>
// Tells the embedding page how tall this document is (the embed script resizes the frame).
const report = () => parent.postMessage({ type: "scheduling:height", height: document.documentElement.scrollHeight }, "*");
addEventListener("load", report); new ResizeObserver(report).observe(document.body);
</script></body></html>`;
}

/** The attribution fields of the frame's URL, carried through the form as hidden inputs. */
function attributionOf(params: URLSearchParams): Record<string, string> {
  const found: Record<string, string> = {};
  for (const [key] of ATTRIBUTION) {
    const value = params.get(key)?.trim();
    if (value) found[key] = value.slice(0, 500);
  }
  return found;
}

const hidden = (attribution: Record<string, string>) =>
  Object.entries(attribution)
    .map(([key, value]) => `<input type="hidden" name="${key}" value="${escape(value)}">`)
    .join("");

const field = (form: URLSearchParams, name: string) => (form.get(name) ?? "").trim().slice(0, MAX_FIELD);

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
${errors.map((e) => `<p class="error" role="alert">${escape(e)}</p>`).join("")}
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

/** The next ten weekdays' strategy-call slots, in the business's time (US Central). */
export function slots(now = new Date()): { value: string; label: string }[] {
  const found: { value: string; label: string }[] = [];
  const day = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
  while (found.length < 20) {
    day.setUTCDate(day.getUTCDate() + 1);
    if (day.getUTCDay() === 0 || day.getUTCDay() === 6) continue;
    for (const [hour, minute] of [
      [10, 0],
      [14, 30],
    ] as const) {
      const date = day.toISOString().slice(0, 10);
      const time = `${String(hour).padStart(2, "0")}:${String(minute).padStart(2, "0")}`;
      const weekday = day.toLocaleDateString("en-US", {
        weekday: "long",
        month: "long",
        day: "numeric",
        timeZone: "UTC",
      });
      const clock = `${hour > 12 ? hour - 12 : hour}:${String(minute).padStart(2, "0")} ${hour >= 12 ? "PM" : "AM"}`;
      found.push({ value: `${date} ${time}`, label: `${weekday}, ${clock} Central` });
    }
  }
  return found;
}

function bookingWidget(
  values: Partial<Lead> & { slot?: string },
  attribution: Record<string, string>,
  errors: string[] = [],
) {
  const choices = slots()
    .map(
      (slot) =>
        `<label class="slot"><input type="radio" name="slot" value="${escape(slot.value)}"${values.slot === slot.value ? " checked" : ""}>${escape(slot.label)}</label>`,
    )
    .join("");
  return page(
    "Book your strategy call",
    `<h1>Pick a time for your strategy call</h1>
<p>Thirty minutes with a senior coach, by video. You will get a calendar invitation by e-mail.</p>
${errors.map((e) => `<p class="error" role="alert">${escape(e)}</p>`).join("")}
<form method="post" action="${BOOKING_PATH}" novalidate>
<fieldset><legend>Available times</legend>${choices}</fieldset>
<label>Full name<input name="name" autocomplete="name" required value="${escape(values.name ?? "")}"></label>
<label>Email<input name="email" type="email" autocomplete="email" required value="${escape(values.email ?? "")}"></label>
<label>Phone<input name="phone" type="tel" autocomplete="tel" value="${escape(values.phone ?? "")}"></label>
${hidden(attribution)}
<button type="submit">Book my call</button>
</form>`,
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
  const source = ATTRIBUTION.map(([key, label]) => [label, attribution[key] ?? ""] as [string, string]);
  const html = `<h1>${escape(kind)}</h1>${table(rows)}<h2>Where the visit came from</h2>${table(source)}`;
  const text = [...rows, ...source].map(([k, v]) => `${k}: ${v || "—"}`).join("\n");
  return { html, text };
}

/** Answers the stand-in's paths; null for any other path. */
export async function handleScheduling(
  request: Request,
  mail: Mailer,
  businessEmail: string,
): Promise<Response | null> {
  const url = new URL(request.url);
  const path = url.pathname;
  if (path === EMBED_SCRIPT_PATH && request.method === "GET") {
    return new Response(EMBED_SCRIPT, { headers: { "content-type": "text/javascript; charset=utf-8" } });
  }
  if (path !== CONSULTATION_PATH && path !== BOOKING_PATH) return null;
  const booking = path === BOOKING_PATH;
  if (request.method === "GET") {
    const attribution = attributionOf(url.searchParams);
    return html(booking ? bookingWidget({}, attribution) : consultationForm({}, attribution));
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
    const slot = slots().find((s) => s.value === field(form, "slot"));
    const errors = [...(slot ? [] : ["Please choose a time."]), ...problems(lead)];
    if (errors.length) return html(bookingWidget({ ...lead, slot: field(form, "slot") }, attribution, errors), 400);
    const body = notification(
      "New strategy call booked",
      [
        ["Time", slot!.label],
        ["Name", lead.name],
        ["Email", lead.email],
        ["Phone", lead.phone],
      ],
      attribution,
    );
    mail.send({ to: businessEmail, subject: `Strategy call booked: ${lead.name}, ${slot!.label}`, ...body });
    return html(
      page(
        "Booked",
        `<div class="done" role="status"><h1>You're booked, ${escape(lead.name)}.</h1><p>${escape(slot!.label)}. A calendar invitation is on its way to ${escape(lead.email)}.</p></div>`,
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

/** The widget's embed script: keeps each of its frames as tall as its document. */
const EMBED_SCRIPT = `(() => {
  addEventListener("message", (event) => {
    const data = event.data;
    if (!data || data.type !== "scheduling:height" || typeof data.height !== "number") return;
    for (const frame of document.querySelectorAll("iframe")) {
      if (frame.contentWindow === event.source) frame.style.height = Math.max(600, Math.ceil(data.height)) + "px";
    }
  });
})();
`;
