/**
 * DEPLOY.md step 9: the SQL an operator pastes into the dashboard's SQL Editor after the test-mode
 * purchase, run as written (as the database owner, as the editor runs it) on a database where the
 * webhook recorded test and live purchases. It must remove what test mode left and nothing else.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BACKENDS, startTestStack, type TestStack } from "@advisor-accelerator/local-stack";
import { checkoutSession, signEvent, stripeEvent, stripeId } from "../support/stripe-events.ts";

const guide = readFileSync(join(import.meta.dirname, "../../DEPLOY.md"), "utf8");
const cleanupSql = /```sql\n([\s\S]*?)```/.exec(guide.slice(guide.indexOf("## 9. Go live")))?.[1];

describe.each(BACKENDS)("DEPLOY.md's test-mode clean-up on $name", (backend) => {
  let stack: TestStack;
  const tag = stripeId("run").slice(4);
  const email = (who: string) => `${who}-${tag}@example.com`;

  /** Records a paid Checkout Session of `email` through the webhook, as Stripe delivers it. */
  async function purchase(buyer: string, mode: "test" | "live") {
    const session = checkoutSession(buyer, { id: stripeId(`cs_${mode}`), livemode: mode === "live" });
    const { payload, signature } = await signEvent(
      { ...stripeEvent("checkout.session.completed", session), livemode: mode === "live" },
      stack.stripe.webhookSecret,
    );
    const response = await fetch(`${stack.url}/functions/v1/stripe-webhook`, {
      method: "POST",
      headers: { "content-type": "application/json", "stripe-signature": signature },
      body: payload,
    });
    expect(response.status).toBe(200);
    return session.id;
  }

  const count = async (sql: string, params: unknown[]) =>
    (await stack.db.query<{ n: number }>(`select count(*)::int as n from ${sql}`, params)).rows[0]!.n;

  beforeAll(async () => {
    stack = await startTestStack(backend, { seed: false });
  }, 60_000);
  afterAll(() => stack?.stop());

  it("removes test-mode orders, their customers and the accounts that bought nothing else; live purchases stay", async () => {
    expect(cleanupSql, "DEPLOY.md step 9 has the SQL").toBeTruthy();
    const testOnly = await purchase(email("test-only"), "test");
    const live = await purchase(email("live-only"), "live");
    const bothTest = await purchase(email("both"), "test");
    const bothLive = await purchase(email("both"), "live");
    const sessions = [testOnly, live, bothTest, bothLive];
    expect(await count("public.stripe_orders where checkout_session_id = any($1)", [sessions])).toBe(4);

    await stack.db.exec(cleanupSql!);

    const left = await stack.db.query<{ checkout_session_id: string; email: string | null }>(
      `select o.checkout_session_id, u.email
         from public.stripe_orders o
         join public.stripe_customers c using (customer_id)
         left join auth.users u on u.id = c.user_id
        where o.checkout_session_id = any($1)
        order by u.email`,
      [sessions],
    );
    expect(left.rows).toEqual([
      { checkout_session_id: bothLive, email: email("both") },
      { checkout_session_id: live, email: email("live-only") },
    ]);
    const accounts = await stack.db.query<{ email: string }>(
      "select email from auth.users where email like $1 order by email",
      [`%-${tag}@example.com`],
    );
    expect(accounts.rows.map((row) => row.email)).toEqual([email("both"), email("live-only")]);
    // The test buyer's customer went with its order; nothing references a removed account.
    expect(await count("public.stripe_customers where user_id is null", [])).toBe(0);
    expect(await count("public.buyer_invites where email = $1", [email("test-only")])).toBe(0);

    // A second run finds nothing more to remove.
    await stack.db.exec(cleanupSql!);
    expect(await count("public.stripe_orders where checkout_session_id = any($1)", [sessions])).toBe(2);
  });
});
