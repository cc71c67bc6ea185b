/**
 * A price edited in content is the price `npm start` charges. The stack reads what the functions
 * sell when it starts (packages/local-stack/src/product.ts), after start.ts has brought the
 * catalogue in line with content, so no module loaded earlier can hand the hosted page an old
 * price. A copy of the project gets a new price in content/programs/, and its own `start.ts`
 * (the command behind `npm start`) serves a checkout at that price on the Stripe stand-in's page.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkoutRequest } from "../../packages/shared/checkout-request.ts";
import { apiKey } from "@advisor-accelerator/local-stack";
import { payOnPage, TEST_CARD } from "../support/stripe-events.ts";

const root = join(import.meta.dirname, "../..");
/** What `npm start` reads: the stack, the functions, the catalogue script, the database and the content. */
const SOURCES = ["packages", "functions", "scripts", "supabase", "content", "package.json"];
const GROWTH = { checkoutKey: "GROWTH_MINDSET", stripeLookupKey: "growth_mindset" };

const freePort = () =>
  new Promise<number>((resolve) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });

describe("a price edited in content", () => {
  let dir: string;
  let child: ChildProcess;
  let url: string;
  let output = "";

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "price-edit-"));
    for (const entry of SOURCES) cpSync(join(root, entry), join(dir, entry), { recursive: true });
    symlinkSync(join(root, "node_modules"), join(dir, "node_modules"));
    mkdirSync(join(dir, "site"));
    const program = join(dir, "content/programs/growth-mindset.yaml");
    const yaml = readFileSync(program, "utf8");
    expect(yaml).toMatch(/^priceCents: 30000$/m);
    writeFileSync(program, yaml.replace(/^priceCents: 30000$/m, "priceCents: 34500"));

    const port = await freePort();
    const env: Record<string, string | undefined> = { ...process.env, NODE_ENV: undefined };
    for (const name of ["STRIPE_SECRET_KEY", "RESEND_API_KEY", "DATABASE_URL", "PORT", "HOST", "ALLOWED_ORIGINS"])
      delete env[name];
    child = spawn(
      process.execPath,
      ["packages/local-stack/start.ts", "--port", String(port), "--dir", "site", "--data", ".data"],
      { cwd: dir, env, stdio: ["ignore", "pipe", "pipe"] },
    );
    url = await new Promise<string>((resolve, reject) => {
      const read = (chunk: Buffer) => {
        output += chunk.toString();
        const site = /^Site:\s+(\S+)/m.exec(output);
        if (site) resolve(site[1]!);
      };
      child.stdout!.on("data", read);
      child.stderr!.on("data", read);
      child.on("exit", (code) => reject(new Error(`start.ts exited ${code} before serving:\n${output}`)));
    });
  }, 120_000);

  afterAll(async () => {
    if (child && child.exitCode === null) {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      await exited;
    }
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("is what the hosted payment page charges after npm start", async () => {
    const anon = apiKey("anon");
    const started = await fetch(`${url}/functions/v1/stripe-checkout`, {
      method: "POST",
      headers: { origin: url, "content-type": "application/json", apikey: anon, authorization: `Bearer ${anon}` },
      body: JSON.stringify(checkoutRequest(url, GROWTH, "price.edit@example.com")),
    });
    const body = (await started.json()) as { url?: string; error?: string };
    expect(body, output).toHaveProperty("url");
    const page = await (await fetch(body.url!)).text();
    expect(page).toContain("$345.00");
    expect(page).not.toContain("$300.00");
    expect((await payOnPage({ url: body.url! }, TEST_CARD)).status).toBe(303);
  });
});
