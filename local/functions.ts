/**
 * `/functions/v1/<name>`: runs `functions/<name>/handler.ts`, the same Web-standard handler the
 * function's Supabase Edge entry (`functions/<name>/index.ts`, Deno) serves. Like Supabase, the
 * gateway first checks the JWT unless the function is deployed with `verify_jwt = false`
 * (`[functions.<name>]` in supabase/config.toml), and passes the function the environment
 * Supabase gives every function. Dev and test only.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { bearer, type Context, json } from "./http.ts";

/** What a function's handler module exports by default. */
export type FunctionHandler = (request: Request, env: Record<string, string | undefined>) => Promise<Response>;

const NAME = /^[a-z0-9][a-z0-9_-]*$/;

/** Functions that opt out of the JWT check in supabase/config.toml. */
function jwtOptional(functionsDir: string, name: string): boolean {
  const config = join(functionsDir, "..", "supabase", "config.toml");
  if (!existsSync(config)) return false;
  const text = readFileSync(config, "utf8");
  const section = new RegExp(
    `^\\[functions\\.${name.replace(/[-]/g, "\\-")}\\]\\s*$([\\s\\S]*?)(?=^\\[|(?![\\s\\S]))`,
    "m",
  ).exec(text);
  return !!section && /^\s*verify_jwt\s*=\s*false\s*$/m.test(section[1] ?? "");
}

export async function handleFunctions(request: Request, context: Context, functionsDir: string): Promise<Response> {
  const url = new URL(request.url);
  const name = url.pathname.slice("/functions/v1/".length).split("/")[0] ?? "";
  const file = join(functionsDir, name, "handler.ts");
  if (!NAME.test(name) || !existsSync(file)) {
    return json({ code: "NOT_FOUND", message: "Requested function was not found" }, 404);
  }
  if (!jwtOptional(functionsDir, name)) {
    const token = bearer(request);
    if (!token) return json({ code: 401, message: "Missing authorization header" }, 401);
    if (!context.signer.verify(token).ok) return json({ code: 401, message: "Invalid JWT" }, 401);
  }
  const module = (await import(pathToFileURL(file).href)) as { default?: FunctionHandler };
  if (typeof module.default !== "function") {
    return json({ code: "BOOT_ERROR", message: "Function failed to start (please check logs)" }, 503);
  }
  const env = {
    ...process.env,
    SUPABASE_URL: context.config.url,
    SUPABASE_ANON_KEY: context.signer.anonKey,
    SUPABASE_SERVICE_ROLE_KEY: context.signer.serviceKey,
  };
  try {
    return await module.default(request, env);
  } catch (error) {
    console.error(`Function ${name} failed:`, error);
    return json({ code: "WORKER_ERROR", message: "Function exited due to an error (please check logs)" }, 500);
  }
}
