/**
 * DNS rebinding: a page on an attacker's domain whose DNS answer turns to 127.0.0.1 once it has
 * loaded reaches the stack from this machine's loopback as its own origin, with its own name in
 * Host. The stack's pages under `/_local` (the outbox and its reset links, the Stripe stand-in's
 * dashboard with the webhook signing secret and its buttons, the Resend stand-in) must give such a
 * request nothing and do nothing for it: they answer only a Host that names the stack
 * (packages/local-stack/src/local-host.ts), 421 Misdirected Request otherwise. The API keeps
 * answering any Host, as the Supabase CLI's gateway does. Prints how many hostile Host headers were
 * tried and how many were accepted.
 */
import { request } from "node:http";
import { networkInterfaces } from "node:os";
import Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestStack, type TestStack } from "../../src/harness.ts";
import { logTallies, Tally } from "../../../../tests/support/hostile.ts";

/** Names a rebinding page can have: any domain whose DNS its owner controls, or that answers 127.0.0.1. */
const HOSTILE = (port: number) => [
  `evil.example:${port}`,
  "evil.example",
  `EVIL.EXAMPLE:${port}`,
  `attacker.example.com:${port}`,
  `127.0.0.1.nip.io:${port}`,
  `localtest.me:${port}`,
  `localhost.evil.example:${port}`,
  `127.0.0.1.evil.example:${port}`,
  `evil-localhost:${port}`,
];

const hostile = new Tally("Host headers");

interface Answer {
  status: number;
  body: string;
}

/** A request to the stack with the Host header `host`, over a connection to `to` (from `from`). */
function call(
  port: number,
  path: string,
  host: string,
  options: { method?: string; headers?: Record<string, string>; body?: string; to?: string; from?: string } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: options.to ?? "127.0.0.1",
        localAddress: options.from,
        port,
        path,
        method: options.method ?? "GET",
        headers: { ...options.headers, host },
        timeout: 10_000,
      },
      (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => (body += chunk));
        res.on("end", () => resolve({ status: res.statusCode!, body }));
      },
    );
    req.on("error", reject);
    req.end(options.body);
  });
}

/** An address of this machine that is not loopback. */
function networkAddress(): string {
  const found = Object.values(networkInterfaces())
    .flat()
    .find((entry) => entry && !entry.internal && entry.family === "IPv4");
  if (!found) throw new Error("This test needs a network interface besides loopback (none found)");
  return found.address;
}

/** Every `/_local` request a rebinding page would make, each as that page's own origin (`Origin` = its Host). */
function probes(stack: TestStack, sessionId: string, mailId: string) {
  const json = { "content-type": "application/json" };
  return [
    { path: "/_local/outbox" },
    { path: "/_local/outbox.json" },
    { path: `/_local/outbox/${mailId}` },
    { path: "/_local/stripe" },
    { path: "/_local/stripe/deliveries.json" },
    { path: `/_local/stripe/checkout/${sessionId}` },
    { path: `/_local/stripe/sessions/${sessionId}/expire`, method: "POST" },
    {
      path: "/_local/resend/emails",
      method: "POST",
      headers: { ...json, authorization: `Bearer ${stack.resend.apiKey}`, "user-agent": "page" },
      body: JSON.stringify({ from: "a@evil.example", to: "b@evil.example", subject: "x", text: "x" }),
    },
  ];
}

/** Tries every probe with each hostile Host: all 421, counted. */
async function tryHostile(stack: TestStack, hosts: string[], sessionId: string, mailId: string, to?: string) {
  const statuses: Record<string, number> = {};
  for (const host of hosts) {
    for (const probe of probes(stack, sessionId, mailId)) {
      const answer = await call(stack.port, probe.path, host, {
        ...probe,
        headers: { ...probe.headers, ...(probe.method === "POST" ? { origin: `http://${host}` } : {}) },
        to,
        from: to ? "127.0.0.1" : undefined,
      });
      hostile.count(answer.status !== 421);
      statuses[`${probe.method ?? "GET"} ${probe.path} Host ${host}`] = answer.status;
    }
  }
  return statuses;
}

afterAll(() => logTallies(hostile));

describe("the /_local pages and DNS rebinding", () => {
  let stack: TestStack;
  let stripe: Stripe;
  let sessionId: string;
  let mailId: string;

  beforeAll(async () => {
    stack = await startTestStack({ name: "PGlite" }, { seed: false });
    stripe = new Stripe(stack.stripe.secretKey, {
      host: "localhost",
      port: stack.port,
      protocol: "http",
      httpClient: Stripe.createFetchHttpClient(),
    });
    const product = await stripe.products.create({ name: "Rebinding probe" });
    const price = await stripe.prices.create({ product: product.id, unit_amount: 1000, currency: "usd" });
    sessionId = (
      await stripe.checkout.sessions.create({
        mode: "payment",
        line_items: [{ price: price.id, quantity: 1 }],
        success_url: `${stack.url}/thank-you`,
      })
    ).id;
    mailId = stack.mail.send({
      to: "member@example.com",
      subject: "Reset your password",
      text: `${stack.url}/reset-password?token_hash=secret&type=recovery`,
      html: "",
    }).id;
  }, 60_000);
  afterAll(() => stack?.stop());

  it("answers the names of this machine's loopback on any port, and refuses every page, read or button, to any other Host (421), doing nothing for it", async () => {
    // Any port: an SSH tunnel's or a proxy's is not the stack's.
    for (const host of [
      `localhost:${stack.port}`,
      `127.0.0.1:${stack.port}`,
      `[::1]:${stack.port}`,
      `LOCALHOST:${stack.port}`,
      "localhost",
      "localhost:8080",
    ]) {
      const answer = await call(stack.port, "/_local/outbox.json", host);
      expect(answer.status, host).toBe(200);
      expect(answer.body, host).toContain("token_hash=secret");
    }
    const dashboard = await call(stack.port, "/_local/stripe", `localhost:${stack.port}`);
    expect(dashboard.status).toBe(200);
    expect(dashboard.body).toContain(stack.stripe.webhookSecret);

    const before = stack.mail.list().length;
    const statuses = await tryHostile(stack, HOSTILE(stack.port), sessionId, mailId);
    expect(Object.entries(statuses).filter(([, status]) => status !== 421)).toEqual([]);
    expect((await stripe.checkout.sessions.retrieve(sessionId)).status).toBe("open");
    expect(stack.mail.list()).toHaveLength(before);

    const refusal = await call(stack.port, "/_local/outbox.json", `evil.example:${stack.port}`);
    expect(refusal.body).toContain(`the Host header "evil.example:${stack.port}" does not name this local stack`);
    expect(refusal.body).toContain("localhost, 127.0.0.1, [::1] (on any port)");
    expect(refusal.body).not.toContain("token_hash");
    // The API answers any Host, as the Supabase CLI's gateway does (its Kong routes, supabase/cli
    // internal/start/templates/kong.yml, match paths, not hosts): it answers every origin with
    // CORS `*` already, so a rebinding page reads nothing there that any page cannot.
    expect((await call(stack.port, "/auth/v1/health", `evil.example:${stack.port}`)).status).toBe(200);
  });
});

describe("the /_local pages when the stack listens beyond loopback", () => {
  it("answers the Host 0.0.0.0 when told to listen on 0.0.0.0, and still no other name", async () => {
    const stack = await startTestStack({ name: "PGlite" }, { seed: false, listen: "0.0.0.0" });
    try {
      expect((await call(stack.port, "/_local/outbox.json", `0.0.0.0:${stack.port}`)).status).toBe(200);
      expect((await call(stack.port, "/_local/outbox.json", `localhost:${stack.port}`)).status).toBe(200);
      const statuses = await tryHostile(stack, HOSTILE(stack.port), "cs_test_none", "none");
      expect(Object.values(statuses).filter((status) => status !== 421)).toEqual([]);
    } finally {
      await stack.stop();
    }
  }, 60_000);

  it("answers the network address it was told to listen on as a Host, and still no other name", async () => {
    const address = networkAddress();
    const stack = await startTestStack({ name: "PGlite" }, { seed: false, listen: address });
    try {
      expect(stack.url).toBe(`http://${address}:${stack.port}`);
      // From this machine's loopback (Linux routes it to the network address): the Host rule alone
      // decides. From the network address itself the page is refused whatever the Host (404), as
      // another machine is: see stack.test.ts.
      const own = await call(stack.port, "/_local/outbox.json", `${address}:${stack.port}`, {
        to: address,
        from: "127.0.0.1",
      });
      expect(own.status).toBe(200);
      const statuses = await tryHostile(stack, HOSTILE(stack.port), "cs_test_none", "none", address);
      expect(Object.values(statuses).filter((status) => status !== 421)).toEqual([]);
    } finally {
      await stack.stop();
    }
  }, 60_000);
});
