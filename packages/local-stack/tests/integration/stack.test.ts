/**
 * The local stack as a whole: safe on a shared network (loopback only unless asked, a warning
 * when asked, the `/_local` pages for this machine only), and the demo that `npm start` and
 * `supabase db reset` both give, from supabase/seed.sql.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { networkInterfaces, tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { START_SCRIPT } from "../../index.ts";
import { BACKENDS, startTestStack, type TestStack } from "../../src/harness.ts";
import { PROJECT_ROOT } from "../../src/project.ts";
import { DEMO_USER, exposedWarning } from "../../src/stack.ts";

/** An address of this machine that is not loopback: how another machine on the network reaches it. */
function networkAddress(): string {
  const found = Object.values(networkInterfaces())
    .flat()
    .find((entry) => entry && !entry.internal && entry.family === "IPv4");
  if (!found) throw new Error("This test needs a network interface besides loopback (none found)");
  return found.address;
}

/** GET `path` on `host:port`, as a client on that address would: the status, or the connection error's code. */
function get(host: string, port: number, path: string): Promise<number | string> {
  return new Promise((resolve) => {
    const req = request({ host, port, path, timeout: 5_000 }, (res) => {
      res.resume();
      resolve(res.statusCode!);
    });
    req.on("error", (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
    req.end();
  });
}

describe("on a shared network", () => {
  const stacks: TestStack[] = [];
  afterAll(() => Promise.all(stacks.map((stack) => stack.stop())));

  it("listens on 127.0.0.1 only by default", async () => {
    const stack = await startTestStack({ name: "PGlite" }, { seed: false });
    stacks.push(stack);
    expect(await get("127.0.0.1", stack.port, "/auth/v1/health")).toBe(200);
    expect(await get(networkAddress(), stack.port, "/auth/v1/health")).toBe("ECONNREFUSED");
  }, 60_000);

  it("serves /_local pages to this machine only, even when asked to listen on every interface", async () => {
    const stack = await startTestStack({ name: "PGlite" }, { seed: false, listen: "0.0.0.0" });
    stacks.push(stack);
    const remote = networkAddress();
    expect(await get(remote, stack.port, "/auth/v1/health")).toBe(200);
    expect(await get(remote, stack.port, "/_local/outbox")).toBe(404);
    expect(await get(remote, stack.port, "/_local/outbox.json")).toBe(404);
    expect(await get("127.0.0.1", stack.port, "/_local/outbox")).toBe(200);
    expect(stack.url).toBe(`http://localhost:${stack.port}`);
  }, 60_000);

  it("warns about the demo keys whenever it listens beyond loopback", () => {
    for (const listen of [undefined, "127.0.0.1", "::1", "localhost"]) expect(exposedWarning(listen)).toBeNull();
    for (const listen of ["0.0.0.0", "::", "192.168.1.20"]) {
      expect(exposedWarning(listen)).toContain(`listening on ${listen}`);
      expect(exposedWarning(listen)).toContain("public demo secret");
    }
  });

  it("prints that warning when npm start is run with HOST", async () => {
    const site = mkdtempSync(join(tmpdir(), "site-"));
    const data = mkdtempSync(join(tmpdir(), "data-"));
    writeFileSync(join(site, "index.html"), "<h1>home</h1>");
    const child = spawn(process.execPath, [START_SCRIPT, "--port", "0", "--dir", site, "--data", data], {
      cwd: PROJECT_ROOT,
      env: { ...process.env, HOST: "0.0.0.0", DATABASE_URL: "" },
    });
    let output = "";
    child.stdout.on("data", (chunk) => (output += chunk));
    child.stderr.on("data", (chunk) => (output += chunk));
    try {
      await new Promise<void>((resolve, reject) => {
        // A cold start (PGlite, the migrations, the Stripe stand-in's catalogue) on a busy 2-core machine.
        const timer = setTimeout(() => reject(new Error(`no warning in: ${output}`)), 75_000);
        const check = () => {
          if (output.includes("Use it only on a network you trust")) {
            clearTimeout(timer);
            resolve();
          }
        };
        child.stdout.on("data", check);
        child.stderr.on("data", check);
        child.on("exit", () => reject(new Error(`exited: ${output}`)));
      });
      expect(output).toContain("WARNING: the local stack is listening on 0.0.0.0");
      expect(output).toContain("Site:     http://localhost:");
    } finally {
      child.kill("SIGTERM");
      await new Promise((resolve) => child.once("exit", resolve));
      rmSync(site, { recursive: true, force: true });
      rmSync(data, { recursive: true, force: true });
    }
  }, 90_000);
});

describe.each(BACKENDS)("the demo from supabase/seed.sql on $name", (backend) => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack(backend, { seed: true });
  }, 60_000);
  afterAll(() => stack?.stop());

  it("signs the demo customer in, found the way GoTrue finds users (instance, audience, e-mail)", async () => {
    const client = stack.client();
    const { data, error } = await client.auth.signInWithPassword(DEMO_USER);
    expect(error).toBeNull();
    expect(data.user).toMatchObject({ email: DEMO_USER.email, identities: [{ provider: "email" }] });
    expect(data.user!.email_confirmed_at).toBeTruthy();
    const orders = await client
      .from("stripe_user_orders")
      .select("product_key, order_status")
      .order("order_date", { ascending: false });
    expect(orders.data).toEqual([
      { product_key: "AI_ACCELERATOR", order_status: "pending" },
      { product_key: "GROWTH_MINDSET", order_status: "completed" },
    ]);
  });

  it("writes the row GoTrue can read: no NULL in the token columns it scans into strings", async () => {
    const { rows } = await stack.db.query<Record<string, unknown>>(
      `select instance_id, aud, role, is_sso_user, is_anonymous,
         confirmation_token, recovery_token, email_change_token_new, email_change,
         email_change_token_current, phone_change, phone_change_token, reauthentication_token
       from auth.users where email = $1`,
      [DEMO_USER.email],
    );
    expect(rows).toHaveLength(1);
    const row = rows[0]!;
    expect(row).toMatchObject({
      instance_id: "00000000-0000-0000-0000-000000000000",
      aud: "authenticated",
      role: "authenticated",
    });
    for (const [column, value] of Object.entries(row)) expect(value, column).not.toBeNull();
  });
});
