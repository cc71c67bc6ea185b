/**
 * `/functions/v1/<name>` through supabase-js's `functions.invoke` and raw requests: the gateway's
 * JWT check (and its config.toml opt-out), CORS left to the functions as on hosted Supabase, the
 * environment a function gets, and the answers for an unknown or crashing function. The
 * functions here are fixtures in a temporary folder; one uses the project's shared CORS module.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { FunctionsHttpError } from "@supabase/supabase-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestStack, type TestStack, linkProduct } from "../../src/harness.ts";

const project = mkdtempSync(join(tmpdir(), "functions-"));
linkProduct(join(project, "functions"));
const fixture = (name: string, source: string) => {
  mkdirSync(join(project, "functions", name), { recursive: true });
  writeFileSync(join(project, "functions", name, "handler.ts"), source);
};
const cors = pathToFileURL(join(import.meta.dirname, "../../../../functions/_shared/cors.ts")).href;
const SITE = "http://localhost:4321";
const accessControl = (response: Response) =>
  [...response.headers.keys()].filter((name) => name.startsWith("access-control-"));

describe("functions", () => {
  let stack: TestStack;

  beforeAll(async () => {
    fixture(
      "echo",
      `import { parseOrigins, preflight, withCors } from ${JSON.stringify(cors)};
      export default async function handler(request: Request, env: Record<string, string | undefined>) {
        const origins = parseOrigins(env.ALLOWED_ORIGINS);
        const early = preflight(request, origins);
        if (early) return early;
        const body = request.method === "POST" ? await request.json() : null;
        return withCors(request, Response.json({ body, url: env.SUPABASE_URL, hasServiceKey: !!env.SUPABASE_SERVICE_ROLE_KEY,
          auth: request.headers.get("authorization") ? "bearer" : "none", origins }), origins);
      }`,
    );
    fixture(
      "open-hook",
      `export default async (request: Request) => new Response(request.method + " " + (request.headers.get("x-probe") ?? ""), { status: 200 });`,
    );
    fixture("broken", `export default async () => { throw new Error("boom"); };`);
    fixture("needs-origins", `export const ENV = ["ALLOWED_ORIGINS"]; export default async () => new Response("ran");`);
    stack = await startTestStack(
      { name: "PGlite" },
      {
        seed: false,
        functionsDir: join(project, "functions"),
        config: { functions: { "open-hook": { verifyJwt: false } } },
      },
    );
  }, 60_000);
  afterAll(async () => {
    await stack?.stop();
    rmSync(project, { recursive: true, force: true });
  });

  it("runs the function with the request body and the Supabase environment", async () => {
    const { data, error } = await stack.client().functions.invoke("echo", { body: { price_id: "price_1" } });
    expect(error).toBeNull();
    expect(data).toEqual({
      body: { price_id: "price_1" },
      url: stack.url,
      hasServiceKey: true,
      auth: "bearer",
      origins: [new URL(stack.config.auth.siteUrl).origin],
    });
  });

  it("passes every request, preflight included, to the function unchanged and adds no CORS headers, as hosted Edge Functions do", async () => {
    const preflight = await fetch(`${stack.url}/functions/v1/open-hook`, {
      method: "OPTIONS",
      headers: { origin: SITE, "access-control-request-method": "POST", "x-probe": "kept" },
    });
    expect(preflight.status).toBe(200);
    expect(await preflight.text()).toBe("OPTIONS kept");
    expect(accessControl(preflight)).toEqual([]);
    const answer = await fetch(`${stack.url}/functions/v1/open-hook`, { method: "POST", headers: { origin: SITE } });
    expect(accessControl(answer)).toEqual([]);
  });

  it("lets a preflight through the JWT check, so the function's shared CORS module answers it for the site's origins only", async () => {
    const ask = (origin: string) =>
      fetch(`${stack.url}/functions/v1/echo`, {
        method: "OPTIONS",
        headers: {
          origin,
          "access-control-request-method": "POST",
          "access-control-request-headers": "authorization, x-client-info, apikey, content-type",
        },
      });
    const site = await ask(SITE);
    expect(site.status).toBe(204);
    expect(site.headers.get("access-control-allow-origin")).toBe(SITE);
    expect(site.headers.get("access-control-allow-headers")).toContain("apikey");
    const foreign = await ask("https://evil.example");
    expect(foreign.status).toBe(204);
    expect(foreign.headers.get("access-control-allow-origin")).toBeNull();
    const invoked = await fetch(`${stack.url}/functions/v1/echo`, {
      method: "POST",
      headers: { origin: SITE, authorization: `Bearer ${stack.anonKey}`, "content-type": "application/json" },
      body: "{}",
    });
    expect(invoked.headers.get("access-control-allow-origin")).toBe(SITE);
    expect(invoked.headers.get("vary")).toBe("Origin");
  });

  it("refuses a call without a valid JWT unless the function opts out in config.toml", async () => {
    const missing = await fetch(`${stack.url}/functions/v1/echo`, { method: "POST", body: "{}" });
    expect(missing.status).toBe(401);
    expect(accessControl(missing)).toEqual([]);
    const forged = await fetch(`${stack.url}/functions/v1/echo`, {
      method: "POST",
      headers: { authorization: `Bearer ${stack.anonKey.slice(0, -2)}xx` },
      body: "{}",
    });
    expect(forged.status).toBe(401);
    expect(await forged.json()).toMatchObject({ message: "Invalid JWT" });
    const open = await fetch(`${stack.url}/functions/v1/open-hook`, { method: "POST", body: "{}" });
    expect(open.status).toBe(200);
    expect(await open.text()).toBe("POST ");
  });

  it("answers 404 without CORS headers for an unknown function, and 500 when one throws", async () => {
    const unknown = await stack.client().functions.invoke("stripe-nothing");
    expect(unknown.error).toBeInstanceOf(FunctionsHttpError);
    const response = (unknown.error as FunctionsHttpError).context as Response;
    expect(response.status).toBe(404);
    expect(accessControl(response)).toEqual([]);
    const preflight = await fetch(`${stack.url}/functions/v1/stripe-nothing`, {
      method: "OPTIONS",
      headers: { origin: SITE },
    });
    expect(preflight.status).toBe(404);
    expect(accessControl(preflight)).toEqual([]);
    const traversal = await fetch(`${stack.url}/functions/v1/..%2Fsupabase`, {
      headers: { authorization: `Bearer ${stack.anonKey}` },
    });
    expect(traversal.status).toBe(404);
    const broken = await stack.client().functions.invoke("broken");
    expect((broken.error as FunctionsHttpError).context.status).toBe(500);
  });

  it("does not start a function whose declared environment fails its checks, as its Edge entry would not boot (503)", async () => {
    const invoke = () =>
      fetch(`${stack.url}/functions/v1/needs-origins`, { headers: { authorization: `Bearer ${stack.anonKey}` } });
    const before = process.env.ALLOWED_ORIGINS;
    process.env.ALLOWED_ORIGINS = "advisoraccelerator.com";
    try {
      const refused = await invoke();
      expect(refused.status).toBe(503);
      expect(await refused.json()).toEqual({
        code: "BOOT_ERROR",
        message: "Function failed to start (please check logs)",
      });
    } finally {
      if (before === undefined) delete process.env.ALLOWED_ORIGINS;
      else process.env.ALLOWED_ORIGINS = before;
    }
    const started = await invoke();
    expect(started.status).toBe(200);
    expect(await started.text()).toBe("ran");
  });
});
