/**
 * The local stack's Resend stand-in (packages/local-stack/src/resend.ts) driven by the real
 * `resend` library over HTTP, as functions/_shared/mail.ts drives it: `new Resend(RESEND_API_KEY, {
 * baseUrl: RESEND_API_URL })` and `emails.send(…, { idempotencyKey })`. Each test names the Resend
 * rule it pins: the API reference (Send Email, Errors, Rate limit, Introduction), the
 * idempotency-keys guide, the answers resend-node records from the live API, and what the live API
 * was seen to answer where the reference says otherwise. The stand-in keeps its state in files, not
 * the database, so one backend (PGlite) suffices.
 */
import { request as httpRequest } from "node:http";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { networkInterfaces, tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { Resend } from "resend";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestStack, type TestStack, linkProduct } from "../../src/harness.ts";
import { MAX_BODY_BYTES } from "../../src/http.ts";
import type { Mail } from "../../src/mail.ts";
import { DEFAULT_RATE_LIMIT } from "../../src/resend.ts";
import { localMailFrom } from "../../src/stack.ts";

const project = mkdtempSync(join(tmpdir(), "resend-standin-"));
const functionsDir = join(project, "functions");
linkProduct(functionsDir);
const FROM = "Advisor Accelerator <team@advisor-accelerator.local>";

// A function that sends as the product's will: the library, the stack's RESEND_* and MAIL_FROM.
mkdirSync(join(functionsDir, "send-mail"), { recursive: true });
writeFileSync(
  join(functionsDir, "send-mail", "handler.ts"),
  `import { Resend } from ${JSON.stringify(pathToFileURL(join(import.meta.dirname, "../../../../node_modules/resend/dist/index.mjs")).href)};
export default async function handler(request: Request, env: Record<string, string | undefined>) {
  const { to } = await request.json();
  const resend = new Resend(env.RESEND_API_KEY, { baseUrl: env.RESEND_API_URL });
  const answer = await resend.emails.send(
    { from: env.MAIL_FROM ?? "", to, subject: "Access granted", html: "<p>Welcome in.</p>", text: "Welcome in." },
    { idempotencyKey: "access/" + to },
  );
  return Response.json({ ...answer, env: { url: env.RESEND_API_URL, key: env.RESEND_API_KEY, from: env.MAIL_FROM } });
}
`,
);

let serial = 0;
const address = (name: string) => `${name}.${Date.now().toString(36)}${serial++}@example.com`;
const email = (to: string | string[], extra: Record<string, unknown> = {}) => ({
  from: FROM,
  to,
  subject: "Your access to Growth Mindset Mastery",
  html: "<p>Welcome to <strong>Growth Mindset Mastery</strong>.</p>",
  text: "Welcome to Growth Mindset Mastery.",
  ...extra,
});
/** A calendar invitation, as the product will attach one (cohort.ics), with letters beyond ASCII. */
const ICS = [
  "BEGIN:VCALENDAR",
  "VERSION:2.0",
  "PRODID:-//Advisor Accelerator//Cohort//EN",
  "METHOD:PUBLISH",
  "BEGIN:VEVENT",
  "UID:cohort-2026-11@advisor-accelerator.local",
  "DTSTAMP:20261101T120000Z",
  "DTSTART:20261201T170000Z",
  "DTEND:20261201T180000Z",
  "SUMMARY:Growth Mindset Mastery — kick-off with Zoë",
  "END:VEVENT",
  "END:VCALENDAR",
  "",
].join("\r\n");
const outboxTo = (stack: TestStack, to: string): Mail[] => stack.mail.list().filter((m) => m.to.includes(to));

/** An address of this machine that is not loopback: how another machine on the network reaches it. */
function networkAddress(): string {
  const found = Object.values(networkInterfaces())
    .flat()
    .find((entry) => entry && !entry.internal && entry.family === "IPv4");
  if (!found) throw new Error("This test needs a network interface besides loopback (none found)");
  return found.address;
}

/** A raw request to the stand-in, for what the library never sends (no key, no User-Agent), or from elsewhere. */
async function raw(
  stack: TestStack,
  headers: Record<string, string>,
  body: unknown = email(address("raw")),
  host?: string,
) {
  const url = new URL(`${stack.resend.apiUrl}/emails`);
  if (host) url.hostname = host;
  return new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }>(
    (resolve, reject) => {
      const req = httpRequest(
        url,
        { method: "POST", headers: { "content-type": "application/json", ...headers } },
        (res) => {
          let text = "";
          res.on("data", (chunk) => (text += chunk));
          res.on("end", () => resolve({ status: res.statusCode!, headers: res.headers, body: text }));
        },
      );
      req.on("error", reject);
      req.end(JSON.stringify(body));
    },
  );
}

describe("Resend stand-in", () => {
  let stack: TestStack;
  let resend: Resend;

  beforeAll(async () => {
    stack = await startTestStack(
      { name: "PGlite" },
      {
        seed: false,
        functionsDir,
        config: { functions: { "send-mail": { verifyJwt: false } } },
        stripe: { catalogue: false },
        // Out of the way of these tests; the limit has tests of its own below. A send takes a
        // moment, so a second request under its key can arrive while it is in progress.
        resend: { rateLimit: 1000, latencyMs: 150 },
      },
    );
    resend = new Resend(stack.resend.apiKey, { baseUrl: stack.resend.apiUrl });
  }, 60_000);
  afterAll(async () => {
    await stack?.stop();
    rmSync(project, { recursive: true, force: true });
  });

  it("accepts an e-mail with 200 { id: <uuid> } and lands it in the outbox with its from, to, reply-to, subject, html and text (Send Email)", async () => {
    const to = address("buyer");
    const { data, error, headers } = await resend.emails.send(
      email([to, "Ops <ops@example.com>"], {
        replyTo: "help@advisor-accelerator.local",
        tags: [{ name: "kind", value: "access_granted" }],
      }),
      { idempotencyKey: `access/${to}` },
    );
    expect(error).toBeNull();
    expect(data!.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(headers!["content-type"]).toBe("application/json; charset=utf-8");
    const [mail] = outboxTo(stack, to);
    expect(mail).toMatchObject({
      from: FROM,
      to: `${to}, Ops <ops@example.com>`,
      replyTo: "help@advisor-accelerator.local",
      subject: "Your access to Growth Mindset Mastery",
      html: "<p>Welcome to <strong>Growth Mindset Mastery</strong>.</p>",
      text: "Welcome to Growth Mindset Mastery.",
    });
    // The outbox's page of the message shows who sent it and where replies go.
    const page = await (await fetch(`${stack.outboxUrl}/${mail!.id}`)).text();
    expect(page).toContain("From Advisor Accelerator &lt;team@advisor-accelerator.local&gt;");
    expect(page).toContain("Reply to help@advisor-accelerator.local");
  });

  it("makes the text from the html when `text` is left out, and keeps none when it is empty (Send Email: text)", async () => {
    const made = address("text");
    const { error } = await resend.emails.send({
      from: "team@advisor-accelerator.local",
      to: made,
      subject: "Receipt",
      html: '<p>Paid.</p><p><a href="https://example.com/r">See it</a></p>',
    });
    expect(error).toBeNull();
    expect(outboxTo(stack, made)[0]).toMatchObject({
      from: "team@advisor-accelerator.local",
      text: "Paid.\nSee it (https://example.com/r)",
    });
    const none = address("notext");
    expect((await resend.emails.send({ ...email(none), text: "" })).error).toBeNull();
    expect(outboxTo(stack, none)[0]!.text).toBe("");
  });

  it("accepts attachments as the library sends them (a Uint8Array or a base64 string, sent as base64) and keeps them byte for byte: outbox.json, the download route and the message's page (Send Email: attachments)", async () => {
    const to = address("calendar");
    const bytes = Uint8Array.from({ length: 256 }, (_, i) => i);
    const { data, error } = await resend.emails.send(
      email(to, {
        attachments: [
          // As the product sends its invitation: the file as bytes, its type given.
          { filename: "cohort.ics", content: new TextEncoder().encode(ICS), contentType: "text/calendar" },
          // Bytes of every value, as a base64 string, no type: derived from the name.
          { filename: "all-bytes.bin", content: Buffer.from(bytes).toString("base64") },
        ],
      }),
    );
    expect(error).toBeNull();
    expect(data!.id).toBeTruthy();

    // /_local/outbox.json, as the product's tests read it.
    const listed = (await (await fetch(`${stack.outboxUrl}.json`)).json()) as Mail[];
    const mail = listed.find((m) => m.to === to)!;
    expect(mail.attachments).toEqual([
      { filename: "cohort.ics", contentType: "text/calendar", content: Buffer.from(ICS).toString("base64") },
      {
        filename: "all-bytes.bin",
        contentType: "application/octet-stream",
        content: Buffer.from(bytes).toString("base64"),
      },
    ]);
    expect(Buffer.from(mail.attachments![0]!.content, "base64").toString("utf8")).toBe(ICS);
    expect(new Uint8Array(Buffer.from(mail.attachments![1]!.content, "base64"))).toEqual(bytes);

    // The download route: the decoded bytes, their type, and a file name to save them under.
    const calendar = await fetch(`${stack.outboxUrl}/${mail.id}/attachments/0`);
    expect(calendar.status).toBe(200);
    expect(calendar.headers.get("content-type")).toBe("text/calendar");
    expect(calendar.headers.get("content-disposition")).toBe('attachment; filename="cohort.ics"');
    expect(new Uint8Array(await calendar.arrayBuffer())).toEqual(new TextEncoder().encode(ICS));
    const binary = await fetch(`${stack.outboxUrl}/${mail.id}/attachments/1`);
    expect(binary.headers.get("content-type")).toBe("application/octet-stream");
    expect(binary.headers.get("content-length")).toBe("256");
    expect(new Uint8Array(await binary.arrayBuffer())).toEqual(bytes);
    expect((await fetch(`${stack.outboxUrl}/${mail.id}/attachments/2`)).status).toBe(404);

    // The message's page lists them by name, each a link to its download.
    const page = await (await fetch(`${stack.outboxUrl}/${mail.id}`)).text();
    expect(page).toContain(`<a href="/_local/outbox/${mail.id}/attachments/0" download="cohort.ics">cohort.ics</a>`);
    expect(page).toContain(
      `<a href="/_local/outbox/${mail.id}/attachments/1" download="all-bytes.bin">all-bytes.bin</a>`,
    );

    // The same file as a base64 string, its type left out: text/calendar from the name.
    const other = address("calendar64");
    expect(
      (
        await resend.emails.send(
          email(other, { attachments: [{ filename: "cohort.ics", content: Buffer.from(ICS).toString("base64") }] }),
        )
      ).error,
    ).toBeNull();
    const [sent] = outboxTo(stack, other);
    expect(sent!.attachments).toEqual([mail.attachments![0]]);
    const download = await fetch(`${stack.outboxUrl}/${sent!.id}/attachments/0`);
    expect(download.headers.get("content-type")).toBe("text/calendar");
    expect(await download.text()).toBe(ICS);
  });

  it("compares attachments in an Idempotency-Key's payload: the same file (as bytes or as base64) answers the first id, another file is 409 invalid_idempotent_request (idempotency keys)", async () => {
    const to = address("invite-again");
    const key = `invite/${to}`;
    const withFile = (content: string | Uint8Array) =>
      email(to, { attachments: [{ filename: "cohort.ics", content, contentType: "text/calendar" }] });
    const first = await resend.emails.send(withFile(new TextEncoder().encode(ICS)), { idempotencyKey: key });
    expect(first.error).toBeNull();
    const again = await resend.emails.send(withFile(Buffer.from(ICS).toString("base64")), { idempotencyKey: key });
    expect(again).toMatchObject({ data: { id: first.data!.id }, error: null });
    const changed = await resend.emails.send(withFile(new TextEncoder().encode(ICS.replace("2.0", "2.1"))), {
      idempotencyKey: key,
    });
    expect(changed.error).toMatchObject({ statusCode: 409, name: "invalid_idempotent_request" });
    const renamed = await resend.emails.send(
      email(to, {
        attachments: [
          { filename: "kick-off.ics", content: new TextEncoder().encode(ICS), contentType: "text/calendar" },
        ],
      }),
      { idempotencyKey: key },
    );
    expect(renamed.error).toMatchObject({ statusCode: 409, name: "invalid_idempotent_request" });
    const without = await resend.emails.send(email(to), { idempotencyKey: key });
    expect(without.error).toMatchObject({ statusCode: 409, name: "invalid_idempotent_request" });
    expect(outboxTo(stack, to)).toHaveLength(1);
  });

  it("refuses through the library what the stand-in does not take (path, contentId), an attachment without filename, and content that is not base64, with 422 validation_error, sending nothing", async () => {
    const to = address("refused-file");
    const send = (attachment: Record<string, unknown>) =>
      resend.emails.send(email(to, { attachments: [attachment] }) as never);
    expect((await send({ filename: "invoice.pdf", path: "https://example.com/invoice.pdf" })).error).toEqual({
      statusCode: 422,
      name: "validation_error",
      message:
        "The local Resend stand-in does not implement `attachments[0].path` (a file fetched from a URL): the product does not send it.",
    });
    expect((await send({ filename: "logo.png", content: new Uint8Array([1]), contentId: "logo" })).error).toEqual({
      statusCode: 422,
      name: "validation_error",
      message:
        "The local Resend stand-in does not implement `attachments[0].content_id` (an inline image): the product does not send it.",
    });
    expect((await send({ content: new TextEncoder().encode(ICS) })).error).toEqual({
      statusCode: 422,
      name: "validation_error",
      message: "Missing `attachments[0].filename` field.",
    });
    expect((await send({ filename: "cohort.ics" })).error).toEqual({
      statusCode: 422,
      name: "validation_error",
      message: "Missing `attachments[0].content` field.",
    });
    // The file itself where its base64 belongs.
    expect((await send({ filename: "cohort.ics", content: ICS })).error).toEqual({
      statusCode: 422,
      name: "validation_error",
      message: "Invalid `attachments[0].content` field. It must be the file's bytes in base64 (RFC 4648, padded).",
    });
    expect(outboxTo(stack, to)).toEqual([]);
  });

  it("refuses more than 40MB of base64 attachments with 422 (Send Email: attachments), and a body over the stand-in's own cap unread with 400, sending nothing", async () => {
    const to = address("too-big");
    // 30 MB of bytes are 40 MB of base64: one more group of four is over.
    const over = await resend.emails.send(
      email(to, {
        attachments: [
          { filename: "a.bin", content: "A".repeat(20_000_000) },
          { filename: "b.bin", content: "A".repeat(20_000_004) },
        ],
      }),
    );
    expect(over.error).toEqual({
      statusCode: 422,
      name: "validation_error",
      message:
        "Attachments may be at most 40MB per email (40000000 bytes), after Base64 encoding; these are 40000004 bytes.",
    });
    // Past MAX_BODY_BYTES (50 MiB) the stand-in reads nothing: refused as any body it cannot take.
    const huge = await resend.emails.send(
      email(to, { attachments: [{ filename: "huge.bin", content: "A".repeat(MAX_BODY_BYTES) }] }),
    );
    expect(huge.error).toEqual({
      statusCode: 400,
      name: "validation_error",
      message: `The local Resend stand-in reads request bodies of at most ${MAX_BODY_BYTES} bytes; this one is larger.`,
    });
    expect(outboxTo(stack, to)).toEqual([]);
  }, 60_000);

  it("refuses a request without a key with 401 missing_api_key, and a wrong key with 400 validation_error 'API key is invalid', as the live API answers (Errors)", async () => {
    const to = address("nokey");
    const missing = await raw(stack, { "user-agent": "test" }, email(to));
    expect(missing.status).toBe(401);
    expect(JSON.parse(missing.body)).toEqual({ statusCode: 401, message: "Missing API Key", name: "missing_api_key" });
    // What the library answers for another team's (or a revoked) key.
    const wrong = new Resend("re_local_not_the_key", { baseUrl: stack.resend.apiUrl });
    const { data, error } = await wrong.emails.send(email(to));
    expect(data).toBeNull();
    expect(error).toEqual({ statusCode: 400, message: "API key is invalid", name: "validation_error" });
    expect(outboxTo(stack, to)).toEqual([]);
  });

  it("refuses a request without a User-Agent with 403 before any key is read (Introduction: User-Agent, error 1010)", async () => {
    const to = address("noagent");
    const answer = await raw(stack, { authorization: `Bearer ${stack.resend.apiKey}` }, email(to));
    expect(answer.status).toBe(403);
    expect(answer.body).toBe("error code: 1010");
    expect(outboxTo(stack, to)).toEqual([]);
  });

  it("refuses a malformed `from` with 422 validation_error and Resend's message, and takes both the named and the bare forms (Send Email: from)", async () => {
    for (const from of ["Advisor Accelerator", "team@", "Advisor <team@advisor-accelerator.local", "a b@example.com"]) {
      const { error } = await resend.emails.send({ ...email(address("from")), from });
      expect(error, from).toEqual({
        statusCode: 422,
        name: "validation_error",
        message:
          "Invalid `from` field. The email address needs to follow the `email@example.com` or `Name <email@example.com>` format.",
      });
    }
    for (const from of [
      FROM,
      '"Advisor Accelerator" <team@advisor-accelerator.local>',
      "team@advisor-accelerator.local",
    ]) {
      expect((await resend.emails.send({ ...email(address("from")), from })).error, from).toBeNull();
    }
  });

  it("names a missing field with 422 missing_required_field (to before from), wants html or text, and takes at most 50 recipients (Errors, Send Email: to)", async () => {
    const send = (body: Record<string, unknown>) => resend.emails.send(body as never);
    expect((await send({ subject: "s", html: "h" })).error).toEqual({
      statusCode: 422,
      name: "missing_required_field",
      message: "Missing `to` field.",
    });
    expect((await send({ to: address("m"), subject: "s", html: "h" })).error).toMatchObject({
      name: "missing_required_field",
      message: "Missing `from` field.",
    });
    expect((await send({ from: FROM, to: address("m"), html: "h" })).error).toMatchObject({
      name: "missing_required_field",
      message: "Missing `subject` field.",
    });
    expect((await send({ from: FROM, to: address("m"), subject: "s" })).error).toEqual({
      statusCode: 422,
      name: "validation_error",
      message: "Missing `html` or `text` field.",
    });
    expect((await send(email("not-an-address"))).error).toMatchObject({
      statusCode: 422,
      name: "validation_error",
      message:
        "Invalid `to` field. The email address needs to follow the `email@example.com` or `Name <email@example.com>` format.",
    });
    const fifty = Array.from({ length: 50 }, (_, i) => `r${i}.${address("many")}`);
    expect((await send(email(fifty))).error).toBeNull();
    expect((await send(email([...fifty, address("one-more")]))).error).toMatchObject({
      statusCode: 422,
      name: "validation_error",
    });
    expect((await send(email(address("tag"), { tags: [{ name: "order id", value: "1" }] }))).error).toEqual({
      statusCode: 422,
      name: "validation_error",
      message: "Tags should only contain ASCII letters, numbers, underscores, or dashes.",
    });
  });

  it("answers a repeated Idempotency-Key with the same payload with the first send's id and sends once (idempotency keys: 24 hours)", async () => {
    const to = address("again");
    const key = `access/${to}`;
    const first = await resend.emails.send(email(to), { idempotencyKey: key });
    // The same payload, its keys in another order.
    const { text, html, subject, from, ...rest } = email(to);
    const again = await resend.emails.send({ text, html, subject, from, ...rest }, { idempotencyKey: key });
    expect(first.error).toBeNull();
    expect(again).toMatchObject({ data: { id: first.data!.id }, error: null });
    expect(outboxTo(stack, to)).toHaveLength(1);
  });

  it("refuses the key with another payload with 409 invalid_idempotent_request, sending nothing (Errors)", async () => {
    const to = address("changed");
    const key = `access/${to}`;
    expect((await resend.emails.send(email(to), { idempotencyKey: key })).error).toBeNull();
    const changed = await resend.emails.send(email(to, { subject: "Another subject" }), { idempotencyKey: key });
    expect(changed.data).toBeNull();
    expect(changed.error).toEqual({
      statusCode: 409,
      name: "invalid_idempotent_request",
      message:
        "This idempotency key has been used with this HTTP method and endpoint within the last 24 hours, but the request body was modified and doesn't match the original request.",
    });
    expect(outboxTo(stack, to).map((m) => m.subject)).toEqual(["Your access to Growth Mindset Mastery"]);
  });

  it("refuses the key while the first request with it is in progress with 409 concurrent_idempotent_requests, then replays it (Errors)", async () => {
    const to = address("race");
    const key = `access/${to}`;
    // The second starts while the first is being answered (the stand-in takes 150 ms a send here).
    const answers = await Promise.all([
      resend.emails.send(email(to), { idempotencyKey: key }),
      new Promise((resolve) => setTimeout(resolve, 50)).then(() =>
        resend.emails.send(email(to), { idempotencyKey: key }),
      ),
    ]);
    const first = answers.find((a) => a.data)!;
    const second = answers.find((a) => a.error)!;
    expect(first).toBeDefined();
    expect(second?.error).toEqual({
      statusCode: 409,
      name: "concurrent_idempotent_requests",
      message: "There is another request in progress with the same idempotency key.",
    });
    expect((await resend.emails.send(email(to), { idempotencyKey: key })).data).toEqual(first.data);
    expect(outboxTo(stack, to)).toHaveLength(1);
  });

  it("takes keys of 1 to 256 characters (400 invalid_idempotency_key), and keeps no key for a refused request", async () => {
    const to = address("keys");
    const long = await resend.emails.send(email(to), { idempotencyKey: "k".repeat(257) });
    expect(long.error).toEqual({
      statusCode: 400,
      name: "invalid_idempotency_key",
      message: "Idempotency keys, if present, must have between 1 and 256 characters.",
    });
    const key = "k".repeat(256);
    expect((await resend.emails.send({ ...email(to), from: "nobody" }, { idempotencyKey: key })).error).toMatchObject({
      statusCode: 422,
    });
    expect((await resend.emails.send(email(to), { idempotencyKey: key })).error).toBeNull();
    expect(outboxTo(stack, to)).toHaveLength(1);
  });

  it("gives the functions RESEND_API_KEY, RESEND_API_URL and MAIL_FROM, so their e-mails land in the outbox", async () => {
    const to = address("function");
    const answer = await fetch(`${stack.url}/functions/v1/send-mail`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ to }),
    });
    const body = (await answer.json()) as { data: { id: string } | null; env: Record<string, string> };
    expect(body.env).toEqual({ url: `${stack.url}/_local/resend`, key: stack.resend.apiKey, from: localMailFrom() });
    expect(body.data?.id).toBeTruthy();
    expect(outboxTo(stack, to)).toMatchObject([
      { from: "Advisor Accelerator <team@advisor-accelerator.local>", subject: "Access granted" },
    ]);
  });
});

describe("Resend stand-in's rate limit and data folder", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "resend-data-"));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it("answers this machine only, like every /_local page, even when the stack listens on every interface", async () => {
    const stack = await startTestStack(
      { name: "PGlite" },
      { seed: false, listen: "0.0.0.0", stripe: { catalogue: false } },
    );
    try {
      const headers = { authorization: `Bearer ${stack.resend.apiKey}`, "user-agent": "test" };
      const to = address("remote");
      expect((await raw(stack, headers, email(to), networkAddress())).status).toBe(404);
      expect(outboxTo(stack, to)).toEqual([]);
      expect((await raw(stack, headers, email(to), "127.0.0.1")).status).toBe(200);
      expect(outboxTo(stack, to)).toHaveLength(1);
    } finally {
      await stack.stop();
    }
  }, 60_000);

  it(`allows the team ${DEFAULT_RATE_LIMIT} requests a second by default, then 429 rate_limit_exceeded with ratelimit-* and retry-after (Rate limit)`, async () => {
    const stack = await startTestStack({ name: "PGlite" }, { seed: false, stripe: { catalogue: false } });
    try {
      const resend = new Resend(stack.resend.apiKey, { baseUrl: stack.resend.apiUrl });
      const answers = await Promise.all(
        Array.from({ length: DEFAULT_RATE_LIMIT + 1 }, () => resend.emails.send(email(address("burst")))),
      );
      const refused = answers.filter((a) => a.error);
      expect(answers.filter((a) => a.data)).toHaveLength(10);
      expect(refused).toHaveLength(1);
      expect(refused[0]!.error).toEqual({
        statusCode: 429,
        name: "rate_limit_exceeded",
        message:
          "Too many requests. You can only make 10 requests per second. See rate limit response headers for more information. Or contact support to increase rate limit.",
      });
      expect(refused[0]!.headers).toMatchObject({
        "ratelimit-limit": "10",
        "ratelimit-policy": "10;w=1",
        "ratelimit-remaining": "0",
        "ratelimit-reset": "1",
        "retry-after": "1",
      });
      // Every answer to the team carries the window's state.
      expect(answers.find((a) => a.data)!.headers).toMatchObject({
        "ratelimit-limit": "10",
        "ratelimit-policy": "10;w=1",
      });
    } finally {
      await stack.stop();
    }
  }, 60_000);

  it("takes a lowered limit, counts refused requests too, and lets the team send again after retry-after; a restart keeps the key and sends nothing twice", async () => {
    const to = address("kept");
    const key = `access/${to}`;
    const first = await startTestStack(
      { name: "PGlite" },
      { seed: false, dataDir, stripe: { catalogue: false }, resend: { rateLimit: 2 } },
    );
    let id: string;
    let apiKey: string;
    try {
      apiKey = first.resend.apiKey;
      const resend = new Resend(apiKey, { baseUrl: first.resend.apiUrl });
      const sent = await resend.emails.send(email(to), { idempotencyKey: key });
      expect(sent.headers).toMatchObject({ "ratelimit-limit": "2", "ratelimit-remaining": "1" });
      id = sent.data!.id;
      expect((await resend.emails.send({ ...email(to), from: "nobody" })).error).toMatchObject({ statusCode: 422 });
      const third = await resend.emails.send(email(address("third")));
      expect(third.error).toMatchObject({ statusCode: 429, name: "rate_limit_exceeded" });
      await new Promise((resolve) => setTimeout(resolve, Number(third.headers!["retry-after"]) * 1000));
      expect((await resend.emails.send(email(address("later")))).error).toBeNull();
      await first.mail.flush();
    } finally {
      await first.stop();
    }

    const second = await startTestStack({ name: "PGlite" }, { seed: false, dataDir, stripe: { catalogue: false } });
    try {
      expect(second.resend.apiKey).toBe(apiKey);
      const resend = new Resend(apiKey, { baseUrl: second.resend.apiUrl });
      expect((await resend.emails.send(email(to), { idempotencyKey: key })).data).toEqual({ id });
      expect(outboxTo(second, to)).toHaveLength(1);
    } finally {
      await second.stop();
    }
  }, 90_000);
});
