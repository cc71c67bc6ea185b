/**
 * `/functions/v1/<name>` through supabase-js's `functions.invoke`: the gateway's JWT check (and
 * the config.toml opt-out), CORS, the environment a function gets, and the answers for an
 * unknown or crashing function. The functions here are fixtures in a temporary project folder.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FunctionsHttpError } from "@supabase/supabase-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestStack, type TestStack } from "./stack.ts";

const project = mkdtempSync(join(tmpdir(), "functions-"));
const fixture = (name: string, source: string) => {
  mkdirSync(join(project, "functions", name), { recursive: true });
  writeFileSync(join(project, "functions", name, "handler.ts"), source);
};

describe("functions", () => {
  let stack: TestStack;

  beforeAll(async () => {
    fixture(
      "echo",
      `export default async function handler(request: Request, env: Record<string, string | undefined>) {
        const body = request.method === "POST" ? await request.json() : null;
        return Response.json({ body, url: env.SUPABASE_URL, hasServiceKey: !!env.SUPABASE_SERVICE_ROLE_KEY,
          auth: request.headers.get("authorization") ? "bearer" : "none" });
      }`,
    );
    fixture("open-hook", `export default async () => new Response("ok", { status: 200 });`);
    fixture("broken", `export default async () => { throw new Error("boom"); };`);
    mkdirSync(join(project, "supabase"));
    writeFileSync(join(project, "supabase", "config.toml"), `[functions.open-hook]\nverify_jwt = false\n`);
    stack = await startTestStack({ name: "PGlite" }, { seed: false, functionsDir: join(project, "functions") });
  }, 60_000);
  afterAll(async () => {
    await stack?.stop();
    rmSync(project, { recursive: true, force: true });
  });

  it("runs the function with the request body and the Supabase environment", async () => {
    const { data, error } = await stack.client().functions.invoke("echo", { body: { price_id: "price_1" } });
    expect(error).toBeNull();
    expect(data).toEqual({ body: { price_id: "price_1" }, url: stack.url, hasServiceKey: true, auth: "bearer" });
  });

  it("answers the CORS preflight and marks answers readable from any origin", async () => {
    const preflight = await fetch(`${stack.url}/functions/v1/echo`, {
      method: "OPTIONS",
      headers: {
        origin: "https://advisor.example",
        "access-control-request-method": "POST",
        "access-control-request-headers": "authorization, x-client-info, apikey, content-type",
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-origin")).toBe("*");
    expect(preflight.headers.get("access-control-allow-headers")).toContain("apikey");
    const answer = await fetch(`${stack.url}/functions/v1/open-hook`, { method: "POST" });
    expect(answer.headers.get("access-control-allow-origin")).toBe("*");
  });

  it("refuses a call without a valid JWT unless the function opts out in config.toml", async () => {
    const missing = await fetch(`${stack.url}/functions/v1/echo`, { method: "POST", body: "{}" });
    expect(missing.status).toBe(401);
    const forged = await fetch(`${stack.url}/functions/v1/echo`, {
      method: "POST",
      headers: { authorization: `Bearer ${stack.anonKey.slice(0, -2)}xx` },
      body: "{}",
    });
    expect(forged.status).toBe(401);
    expect(await forged.json()).toMatchObject({ message: "Invalid JWT" });
    const open = await fetch(`${stack.url}/functions/v1/open-hook`, { method: "POST", body: "{}" });
    expect(open.status).toBe(200);
    expect(await open.text()).toBe("ok");
  });

  it("answers 404 for an unknown function and 500 when one throws", async () => {
    const unknown = await stack.client().functions.invoke("stripe-nothing");
    expect(unknown.error).toBeInstanceOf(FunctionsHttpError);
    expect((unknown.error as FunctionsHttpError).context.status).toBe(404);
    const traversal = await fetch(`${stack.url}/functions/v1/..%2Fsupabase`, {
      headers: { authorization: `Bearer ${stack.anonKey}` },
    });
    expect(traversal.status).toBe(404);
    const broken = await stack.client().functions.invoke("broken");
    expect((broken.error as FunctionsHttpError).context.status).toBe(500);
  });
});
