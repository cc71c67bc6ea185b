/**
 * The lead pages' consultation form through the whole local stack, on PGlite and PostgreSQL: the
 * real `leads` function (functions/leads/handler.ts) behind the stack's gateway, the Resend
 * stand-in keeping the business's notification and the visitor's confirmation in the outbox
 * (each at most once per idempotency key, as Resend does), and real supabase-js clients
 * probing what visitors and customers can reach. Each test posts from an address of its own on
 * the loopback network (127.0.0.0/8), so their rate limits are apart, as two visitors' are.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { BUSINESS_EMAIL } from "../../functions/_shared/catalogue.ts";
import { FIELD_MAX, leadRequest, MAX_BODY_BYTES } from "../../packages/shared/lead.ts";
import { LIMITS } from "../../functions/leads/handler.ts";
import { BACKENDS, localMailFrom, startTestStack, type TestStack } from "@advisor-accelerator/local-stack";
import { type Answer as Answered, nextAddress, postFrom } from "../support/client-address.ts";
import { logTallies, Tally } from "../support/hostile.ts";

const SITE = "http://localhost:4321";
const ATTRIBUTION = {
  utm_source: "linkedin",
  utm_medium: "paid",
  utm_campaign: "q4-ria",
  referrer: "https://www.linkedin.com/feed/",
  landing_page: "/transformation",
};

let serial = 0;
const unique = (name: string) => `${name}.${Date.now().toString(36)}${serial++}@example.com`;
type Answer = Answered<{ ok?: true; error?: string; errors?: Record<string, string>; retry_after?: number }>;

describe.each(BACKENDS)("the consultation form's function on $name", (backend) => {
  let stack: TestStack;
  const oversize = new Tally("oversize bodies");
  const flood = new Tally("lead form flood");
  const crossSite = new Tally("cross-origin posts");

  beforeAll(async () => {
    stack = await startTestStack(backend, { seed: false });
  }, 60_000);
  afterAll(async () => {
    logTallies(oversize, flood, crossSite);
    await stack?.stop();
  });
  afterEach(() => {
    delete process.env.RESEND_API_KEY;
    delete process.env.RESEND_API_URL;
  });

  /** POSTs `body` to the function from the client address `from`, as a browser on the site does. */
  function post(
    body: unknown,
    from: string,
    { headers = {}, raw }: { headers?: Record<string, string>; raw?: string } = {},
  ): Promise<Answer> {
    return postFrom(`${stack.url}/functions/v1/leads`, raw ?? JSON.stringify(body), from, {
      origin: SITE,
      ...headers,
    });
  }

  const answers = (email: string, name = "Jordan Reyes") => ({
    name,
    email,
    phone: "(303) 555-0199",
    firm: "Reyes Wealth Partners",
    aum: "$50M to $100M",
    help: "Two advisors, no repeatable review process.\nWe want to grow past $100M without a third hire.",
  });
  const body = (email: string, overrides: Record<string, unknown> = {}) => ({
    ...leadRequest(answers(email), "/get-started-ai", 6_000, ATTRIBUTION),
    ...overrides,
  });

  const leadsOf = async (email: string) =>
    (
      await stack.db.query<Record<string, unknown>>("select * from public.leads where email = $1 order by created_at", [
        email.toLowerCase(),
      ])
    ).rows;
  const notifications = (email: string) =>
    stack.mail.list().filter((m) => m.to === BUSINESS_EMAIL && m.replyTo === email.toLowerCase());
  /** Everything sent to the visitor's own address: their confirmations, and nothing else. */
  const confirmations = (email: string) => stack.mail.list().filter((m) => m.to === email.toLowerCase());
  /** A request from a new visitor whose e-mails go: the one that sends what earlier requests owe. */
  const anotherLead = async () => expect((await post(body(unique("next")), nextAddress())).status).toBe(200);

  it("keeps the request with the visit's first touch and e-mails the business, replies going to the lead", async () => {
    const email = unique("jordan");
    const answer = await post(body(email.toUpperCase()), nextAddress());
    expect(answer).toMatchObject({ status: 200, body: { ok: true } });
    expect(answer.headers["access-control-allow-origin"]).toBe(SITE);

    const [lead, ...more] = await leadsOf(email);
    expect(more).toEqual([]);
    expect(lead).toMatchObject({
      name: "Jordan Reyes",
      email,
      phone: "(303) 555-0199",
      firm: "Reyes Wealth Partners",
      aum: "$50M to $100M",
      page: "/get-started-ai",
      utm_source: "linkedin",
      utm_medium: "paid",
      utm_campaign: "q4-ria",
      utm_term: null,
      referrer: "https://www.linkedin.com/feed/",
      landing_page: "/transformation",
      notify_status: "sent",
      notify_attempts: 1,
      notify_error: null,
      confirm_status: "sent",
      confirm_attempts: 1,
      confirm_error: null,
    });
    expect(lead!.confirmed_at).not.toBeNull();
    expect(lead!.confirm_provider_id).not.toBeNull();

    const [mail, ...again] = notifications(email);
    expect(again).toEqual([]);
    expect(mail).toMatchObject({ from: localMailFrom(), subject: "Consultation request: Jordan Reyes" });
    for (const line of [
      `Email: ${email}`,
      "Phone: (303) 555-0199",
      "Firm: Reyes Wealth Partners",
      "Assets under management: $50M to $100M",
      "Page: /get-started-ai",
      "We want to grow past $100M without a third hire.",
      "Source: linkedin",
      "Medium: paid",
      "Campaign: q4-ria",
      "Term: —",
      "Referrer: https://www.linkedin.com/feed/",
      "Landing page: /transformation",
    ]) {
      expect(mail!.text).toContain(line);
    }
    expect(mail!.html).toContain("white-space:pre-wrap");
  });

  it("confirms to the visitor once, from the business in its own words, replies going to the business", async () => {
    const email = unique("confirmed");
    const hostile = "Dana https://phish.example call 1-900-555-0100";
    expect((await post(body(email, { name: hostile }), nextAddress())).status).toBe(200);
    const [mail, ...again] = confirmations(email);
    expect(again).toEqual([]);
    expect(mail).toMatchObject({
      from: localMailFrom(),
      to: email,
      replyTo: BUSINESS_EMAIL,
      subject: "Your strategy call request is in",
    });
    expect(mail!.text).toContain("Thank you, Dana. We have your request for a free 30-minute strategy call");
    expect(mail!.text).toContain("replies within one business day");
    // Nothing else the visitor typed: not the rest of the name, nor any other answer.
    for (const typed of [
      "phish",
      "1-900",
      email,
      "(303) 555-0199",
      "Reyes Wealth Partners",
      "$50M",
      "third hire",
      "linkedin",
    ]) {
      expect(mail!.text, typed).not.toContain(typed);
      expect(mail!.html, typed).not.toContain(typed);
    }
    // The business's notification still has every answer as typed.
    expect(notifications(email)[0]!.text).toContain(hostile);
  });

  it("sends a confirmation once per lead: a replayed send under its key and a catch-up after it went add nothing", async () => {
    const email = unique("replay");
    expect((await post(body(email), nextAddress())).status).toBe(200);
    const [lead] = await leadsOf(email);
    expect(confirmations(email)).toHaveLength(1);
    // Already recorded: neither claimed again nor finished again.
    const admin = stack.admin();
    expect((await admin.rpc("finish_lead_confirmation", { p_id: lead!.id, p_error: "late" })).data).toBeNull();
    expect((await leadsOf(email))[0]).toMatchObject({ confirm_status: "sent", confirm_error: null });

    // As if the function died between the provider's answer and the row's record: owed again.
    await stack.db.query(
      "update public.leads set confirm_status = 'pending', confirm_claimed_at = null, confirmed_at = null where id = $1",
      [lead!.id],
    );
    await anotherLead();
    // The catch-up sent it under the same key: the provider answered the first send, nothing more went.
    expect((await leadsOf(email))[0]).toMatchObject({
      confirm_status: "sent",
      confirm_attempts: 2,
      confirm_error: null,
    });
    expect(confirmations(email)).toHaveLength(1);
    expect(notifications(email)).toHaveLength(1);
  });

  it("owes no confirmation to a lead kept without one (before it existed, or by hand), nor one a day overdue", async () => {
    const before = unique("before");
    const overdue = unique("overdue");
    await stack.db.query(
      "insert into public.leads (name, email, page, notify_status) values ('Kept Before', $1, '/get-started', 'sent')",
      [before],
    );
    await stack.db.query(
      `insert into public.leads (created_at, name, email, page, notify_status, confirm_status, confirm_attempts)
       values (now() - interval '25 hours', 'Overdue', $1, '/get-started', 'sent', 'pending', 1)`,
      [overdue],
    );
    await anotherLead();
    expect((await leadsOf(before))[0]).toMatchObject({ confirm_status: "none", confirm_attempts: 0 });
    expect((await leadsOf(overdue))[0]).toMatchObject({ confirm_status: "failed", confirm_attempts: 1 });
    expect((await leadsOf(overdue))[0]!.confirm_error).toMatch(/within a day/);
    expect(confirmations(before)).toEqual([]);
    expect(confirmations(overdue)).toEqual([]);
  });

  it("answers the browser's preflight for the site's origins only", async () => {
    const preflight = (origin: string) =>
      fetch(`${stack.url}/functions/v1/leads`, {
        method: "OPTIONS",
        headers: { origin, "access-control-request-method": "POST", "access-control-request-headers": "content-type" },
      });
    const ours = await preflight(SITE);
    expect(ours.status).toBe(204);
    expect(ours.headers.get("access-control-allow-origin")).toBe(SITE);
    expect(ours.headers.get("access-control-allow-methods")).toBe("POST, OPTIONS");
    expect((await preflight("https://elsewhere.example")).headers.get("access-control-allow-origin")).toBeNull();
    expect((await fetch(`${stack.url}/functions/v1/leads`)).status).toBe(405);
  });

  it("takes posts from the site's own pages only: another origin 403, anything but JSON 415, nothing kept or sent", async () => {
    // What a page of another website can make its visitors' browsers send without a preflight
    // (a "simple" request: text/plain, a form), and a JSON post from another origin.
    const email = unique("cross-site");
    const json = JSON.stringify(body(email));
    const tries: [Record<string, string>, string, number][] = [
      [{ origin: "https://elsewhere.example" }, json, 403],
      [{ origin: "https://elsewhere.example", "content-type": "text/plain" }, json, 403],
      [{ origin: "null" }, json, 403],
      [{ "content-type": "text/plain;charset=UTF-8" }, json, 415],
      [
        { "content-type": "application/x-www-form-urlencoded" },
        new URLSearchParams({ name: "x", email }).toString(),
        415,
      ],
      [{ "content-type": "multipart/form-data; boundary=x" }, json, 415],
    ];
    for (const [headers, raw, status] of tries) {
      const answer = await post(null, nextAddress(), { headers, raw });
      crossSite.count(answer.status === 200);
      expect(answer.status, JSON.stringify(headers)).toBe(status);
      expect(answer.body.error).toMatch(/site's own pages|application\/json/);
    }
    expect(await leadsOf(email)).toEqual([]);
    expect(notifications(email)).toEqual([]);
    expect(confirmations(email)).toEqual([]);
    // The site's own page, JSON with a charset: taken.
    expect(
      (await post(body(email), nextAddress(), { headers: { "content-type": "application/json; charset=utf-8" } }))
        .status,
    ).toBe(200);
  });

  it(`holds every visitor together to ${LIMITS.everyone.hits} requests an hour: the sending account is not a flood's`, async () => {
    // A flood from many addresses has spent the hour's shared allowance.
    await stack.db.query(
      "insert into public.rate_limits (key, window_start, window_end, hits) values ('leads:everyone', now(), now() + interval '1 hour', $1) on conflict (key) do update set hits = excluded.hits, window_end = excluded.window_end",
      [LIMITS.everyone.hits],
    );
    try {
      const email = unique("ceiling");
      const refused = await post(body(email), nextAddress());
      flood.count(refused.status === 200);
      expect(refused.status).toBe(429);
      expect(Number(refused.headers["retry-after"])).toBeGreaterThan(3_500);
      expect(await leadsOf(email)).toEqual([]);
      expect(notifications(email)).toEqual([]);
      expect(confirmations(email)).toEqual([]);
    } finally {
      await stack.db.query("delete from public.rate_limits where key = 'leads:everyone'");
    }
  });

  it("lets no visitor or customer read or write a lead, or touch the rate limits, through the API (RLS)", async () => {
    const email = unique("private");
    expect((await post(body(email), nextAddress())).status).toBe(200);
    const password = "lead-probe-2026";
    const customer = unique("customer");
    const created = await stack.admin().auth.admin.createUser({ email: customer, password, email_confirm: true });
    expect(created.error).toBeNull();
    const signedIn = stack.client();
    expect((await signedIn.auth.signInWithPassword({ email: customer, password })).error).toBeNull();

    for (const [who, client] of [
      ["anon", stack.client()],
      ["authenticated", signedIn],
    ] as const) {
      const read = await client.from("leads").select("*");
      expect(read.error?.code, who).toBe("42501");
      const write = await client.from("leads").insert({ name: "Mallory", email: "m@example.com", page: "/apply" });
      expect(write.error?.code, who).toBe("42501");
      expect((await client.from("rate_limits").select("*")).error?.code, who).toBe("42501");
      const hit = await client.rpc("rate_limit_hit", { p_key: "x", p_limit: 1, p_window: "1 hour" });
      expect(hit.error?.code, who).toBe("42501");
      const claim = await client.rpc("claim_lead_notifications", { p_limit: 5 });
      expect(claim.error?.code, who).toBe("42501");
      const confirmations = await client.rpc("claim_lead_confirmations", { p_limit: 5 });
      expect(confirmations.error?.code, who).toBe("42501");
      const finish = await client.rpc("finish_lead_confirmation", { p_id: crypto.randomUUID() });
      expect(finish.error?.code, who).toBe("42501");
    }
    expect(await leadsOf("m@example.com")).toEqual([]);
    // The function's own key reads them.
    const { data } = await stack.admin().from("leads").select("email").eq("email", email);
    expect(data).toEqual([{ email }]);
  });

  it("answers a bot as if accepted and keeps and sends nothing: the honeypot filled, or sent too soon to be a person", async () => {
    const from = nextAddress();
    for (const [why, email, extra] of [
      ["honeypot", unique("honeypot"), { website: "https://cheap-seo.example" }],
      ["too fast", unique("fast"), { elapsed_ms: 900 }],
      ["no timing", unique("untimed"), { elapsed_ms: undefined }],
      ["timing not a number", unique("nan"), { elapsed_ms: "9000" }],
    ] as const) {
      const answer = await post(body(email, extra), from);
      expect(answer, why).toMatchObject({ status: 200, body: { ok: true } });
      expect(await leadsOf(email), why).toEqual([]);
      expect(notifications(email), why).toEqual([]);
      expect(confirmations(email), why).toEqual([]);
    }
  });

  it("refuses answers that break the form's rules, field by field (400), and keeps nothing", async () => {
    const from = nextAddress();
    const email = unique("invalid");
    const answer = await post(
      body(email, { name: "  ", email: "jordan@", phone: "call me", aum: "$1B", firm: "x".repeat(FIELD_MAX.firm + 1) }),
      from,
    );
    expect(answer.status).toBe(400);
    expect(answer.body.errors).toEqual({
      name: "Please enter your name.",
      email: "Please enter a valid email address.",
      phone: "Please enter a phone number with its area code, or leave it empty.",
      firm: `Please shorten the firm name to ${FIELD_MAX.firm} characters.`,
      aum: "Please choose one of the listed ranges.",
    });
    expect((await post(body(email, { help: "Hi\u0000there" }), from)).body.errors).toEqual({
      help: "Please remove the special characters from this answer.",
    });
    expect((await post(body(email, { name: "Jordan\nReyes" }), from)).body.errors).toEqual({
      name: "Please remove the special characters from this answer.",
    });
    expect((await post(body(email, { page: "https://elsewhere.example/" }), from)).status).toBe(400);
    expect((await post(null, from, { raw: "{not json" })).status).toBe(400);
    expect((await post([body(email)], from)).status).toBe(400);
    expect(await leadsOf(email)).toEqual([]);
    expect(await leadsOf("jordan@")).toEqual([]);
    expect(confirmations(email)).toEqual([]);
  });

  it("refuses a body over 16 KB before reading it as JSON (413), with or without a declared length", async () => {
    const from = nextAddress();
    const email = unique("large");
    const large = JSON.stringify(body(email, { help: "x".repeat(MAX_BODY_BYTES) }));
    const declared = await post(null, from, { raw: large });
    oversize.count(declared.status === 200);
    expect(declared.status).toBe(413);
    // Sent in chunks with no Content-Length: counted as it arrives.
    const chunked = await fetch(`${stack.url}/functions/v1/leads`, {
      method: "POST",
      headers: { origin: SITE, "content-type": "application/json" },
      body: new ReadableStream({
        start(controller) {
          for (let i = 0; i < 20; i++) controller.enqueue(new TextEncoder().encode(" ".repeat(1024)));
          controller.close();
        },
      }),
      duplex: "half",
    } as RequestInit);
    oversize.count(chunked.ok);
    expect(chunked.status).toBe(413);
    expect(await leadsOf(email)).toEqual([]);
    expect(confirmations(email)).toEqual([]);
  });

  it(`limits each e-mail address to ${LIMITS.email.hits} requests an hour: then 429 with Retry-After, and nothing kept`, async () => {
    const email = unique("eager");
    for (let i = 0; i < LIMITS.email.hits; i++) expect((await post(body(email), nextAddress())).status).toBe(200);
    const refused = await post(body(email), nextAddress());
    flood.count(refused.status === 200);
    expect(refused.status).toBe(429);
    const wait = Number(refused.headers["retry-after"]);
    expect(wait).toBeGreaterThan(3_500);
    expect(wait).toBeLessThanOrEqual(3_600);
    expect(refused.body).toMatchObject({ retry_after: wait });
    expect(refused.body.error).toMatch(/try again later/);
    expect(await leadsOf(email)).toHaveLength(LIMITS.email.hits);
    expect(notifications(email)).toHaveLength(LIMITS.email.hits);
    // One confirmation per lead kept, none for the refused one: the limit is what one address can be sent.
    expect(confirmations(email)).toHaveLength(LIMITS.email.hits);
    // The address is the limit, in any case.
    expect((await post(body(email.toUpperCase()), nextAddress())).status).toBe(429);
    expect(confirmations(email)).toHaveLength(LIMITS.email.hits);
  });

  it(`limits each client address to ${LIMITS.address.hits} requests an hour, whatever X-Forwarded-For the caller sends`, async () => {
    const from = nextAddress();
    for (let i = 0; i < LIMITS.address.hits; i++) {
      // A forged header does not make a new visitor: the gateway sets the address
      // (packages/local-stack/src/functions.ts).
      const forged = { "x-forwarded-for": `203.0.113.${i}` };
      expect((await post(body(unique("office")), from, { headers: forged })).status).toBe(200);
    }
    const email = unique("office-late");
    const refused = await post(body(email), from);
    flood.count(refused.status === 200);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers["retry-after"])).toBeGreaterThan(3_500);
    expect(await leadsOf(email)).toEqual([]);
    expect(confirmations(email)).toEqual([]);
    // Another address is another visitor.
    expect((await post(body(email), nextAddress())).status).toBe(200);
  });

  it("a mail outage keeps the lead and tells the visitor it went through; the next request sends what is owed, once", async () => {
    const email = unique("outage");
    // The mail provider unreachable (a closed port), as during an outage.
    process.env.RESEND_API_KEY = "re_outage_test";
    process.env.RESEND_API_URL = "http://127.0.0.1:9";
    expect(await post(body(email), nextAddress())).toMatchObject({ status: 200, body: { ok: true } });
    const [kept] = await leadsOf(email);
    expect(kept).toMatchObject({ notify_status: "pending", notify_attempts: 1, notified_at: null });
    expect(kept!.notify_error).toMatch(/^Resend refused the e-mail "Consultation request: Jordan Reyes"/);
    expect(kept).toMatchObject({ confirm_status: "pending", confirm_attempts: 1, confirmed_at: null });
    expect(kept!.confirm_error).toMatch(/^Resend refused the e-mail "Your strategy call request is in"/);
    expect(notifications(email)).toEqual([]);
    expect(confirmations(email)).toEqual([]);

    // Mail is back: the next lead's request sends its own notification, then the one owed.
    delete process.env.RESEND_API_KEY;
    delete process.env.RESEND_API_URL;
    const next = unique("after-outage");
    expect((await post(body(next), nextAddress())).status).toBe(200);
    expect(notifications(next)).toHaveLength(1);
    expect(notifications(email)).toHaveLength(1);
    expect(confirmations(next)).toHaveLength(1);
    expect(confirmations(email)).toHaveLength(1);
    expect((await leadsOf(email))[0]).toMatchObject({
      notify_status: "sent",
      notify_attempts: 2,
      notify_error: null,
      confirm_status: "sent",
      confirm_attempts: 2,
      confirm_error: null,
    });
    // Owed no more: a later request's catch-up sends it no second time.
    await anotherLead();
    expect(confirmations(email)).toHaveLength(1);
    expect(notifications(email)).toHaveLength(1);
  });

  it("rate_limit_hit counts concurrent hits exactly: of 20 at once, the limit's 5 pass", async () => {
    const admin = stack.admin();
    const key = `test:${unique("burst")}`;
    const hits = await Promise.all(
      Array.from({ length: 20 }, () => admin.rpc("rate_limit_hit", { p_key: key, p_limit: 5, p_window: "10 minutes" })),
    );
    for (const hit of hits) expect(hit.error).toBeNull();
    const allowed = hits.map((hit) => (hit.data as { allowed: boolean }).allowed);
    expect(allowed.filter(Boolean)).toHaveLength(5);
    for (const hit of hits.filter((h) => !(h.data as { allowed: boolean }).allowed)) {
      expect((hit.data as { retry_after: number }).retry_after).toBeGreaterThan(590);
    }
    // A window that has ended counts from zero again.
    await stack.db.query("update public.rate_limits set window_end = now() - interval '1 second' where key = $1", [
      key,
    ]);
    const fresh = await admin.rpc("rate_limit_hit", { p_key: key, p_limit: 5, p_window: "10 minutes" });
    expect(fresh.data).toEqual({ allowed: true, retry_after: 0 });
    const refused = await admin.rpc("rate_limit_hit", { p_key: "", p_limit: 5, p_window: "10 minutes" });
    expect(refused.error?.code).toBe("22023");
  });
});
