/**
 * A project for the Stripe stand-in's tests: a `stripe-webhook` function that verifies each
 * delivery as the product's does (the raw body with the library's `constructEventAsync` and the
 * Web Crypto provider) and keeps what it received, and the real `stripe` library aimed at a stack.
 * Its helpers pay on the hosted pages by plain form POSTs, as a browser without JavaScript does.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import Stripe from "stripe";
import { linkProduct, type TestStack } from "../../src/harness.ts";

const ROOT = join(import.meta.dirname, "../../../..");

/** An event as the fixture webhook received it, verified. */
export interface Received {
  id: string;
  type: string;
  created: number;
  object: Record<string, unknown>;
  previous?: Record<string, unknown>;
}

export interface StripeFixture {
  functionsDir: string;
  received(): Received[];
  cleanup(): void;
}

export function stripeFixture(prefix: string): StripeFixture {
  const project = mkdtempSync(join(tmpdir(), prefix));
  const functionsDir = join(project, "functions");
  const receivedFile = join(project, "received.jsonl");
  const shared = pathToFileURL(join(ROOT, "functions/_shared/stripe.ts")).href;
  linkProduct(functionsDir);
  mkdirSync(join(functionsDir, "stripe-webhook"), { recursive: true });
  writeFileSync(
    join(functionsDir, "stripe-webhook", "handler.ts"),
    `import { appendFileSync } from "node:fs";
import { Stripe } from ${JSON.stringify(shared)};
export default async function handler(request: Request, env: Record<string, string | undefined>) {
  const raw = await request.text();
  let event;
  try {
    event = await Stripe.webhooks.constructEventAsync(raw, request.headers.get("stripe-signature") ?? "", env.STRIPE_WEBHOOK_SECRET ?? "", undefined, Stripe.createSubtleCryptoProvider());
  } catch (error) {
    return new Response(String(error), { status: 400 });
  }
  appendFileSync(${JSON.stringify(receivedFile)}, JSON.stringify({ id: event.id, type: event.type, created: event.created, object: event.data.object, previous: event.data.previous_attributes }) + "\\n");
  return new Response("{}", { status: 200 });
}
`,
  );
  return {
    functionsDir,
    received() {
      try {
        return readFileSync(receivedFile, "utf8")
          .split("\n")
          .filter(Boolean)
          .map((line) => JSON.parse(line) as Received);
      } catch {
        return [];
      }
    },
    cleanup: () => rmSync(project, { recursive: true, force: true }),
  };
}

/** The real library, as functions/_shared/stripe.ts makes it, aimed at the stack. */
export const stripeClient = (stack: TestStack, key = stack.stripe.secretKey) =>
  new Stripe(key, {
    host: "localhost",
    port: stack.port,
    protocol: "http",
    httpClient: Stripe.createFetchHttpClient(),
  });

/** Card fields of a hosted page's form, for a test card number. */
export const cardFields = (number: string, name = "Ada Buyer") => ({
  method: "card",
  card_number: number,
  expiry: "12 / 34",
  cvc: "123",
  name,
});

/** Posts a hosted page's form (checkout, invoice, portal) as a browser without JavaScript does. */
export function postForm(url: string, fields: Record<string, string>): Promise<Response> {
  return fetch(url, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(fields),
  });
}
