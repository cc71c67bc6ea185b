/**
 * `/functions/v1/<name>`: runs `functions/<name>/handler.ts`, the same Web-standard handler the
 * function's Supabase Edge entry (`functions/<name>/index.ts`, Deno) serves. As on Supabase, the
 * gateway checks the caller's JWT first unless the function is deployed with `verify_jwt = false`
 * (`[functions.<name>]` in supabase/config.toml), lets CORS preflight requests (OPTIONS) through
 * unchecked, and passes the request on unchanged but for `X-Forwarded-For`, which it sets to the
 * client's address as Supabase's gateway does (a value the caller sent is replaced: functions
 * rate-limit on it, functions/_shared/rate-limit.ts); it adds no CORS headers, so each function
 * answers its own preflight (functions/_shared/cors.ts). The function gets the environment
 * Supabase gives every function, and the stack's own settings for it: the site's URL; unless a
 * real STRIPE_SECRET_KEY is set, the Stripe stand-in's key, address and signing secret; unless a
 * real RESEND_API_KEY is set, the Resend stand-in's key and address; and MAIL_FROM unless set
 * (`localEnv`, from packages/local-stack/src/stack.ts). Dev and test only.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { envProblems, FunctionVariable } from "../../../functions/_shared/env.ts";
import { bearer, type Context, json } from "./http.ts";

/** What a function's handler module exports by default. */
export type FunctionHandler = (request: Request, env: Record<string, string | undefined>) => Promise<Response>;

/** A handler module: the handler, and the variables its Edge entry checks at start. */
interface FunctionModule {
  default?: FunctionHandler;
  ENV?: readonly FunctionVariable[];
}

const NAME = /^[a-z0-9][a-z0-9_-]*$/;

export async function handleFunctions(
  request: Request,
  context: Context,
  functionsDir: string,
  /** The functions' own check of their environment (functions/_shared/env.ts), read at start (./product.ts). */
  problemsOf: typeof envProblems,
  localEnv: { SITE_URL?: string } & Record<string, string> = {},
): Promise<Response> {
  const url = new URL(request.url);
  const name = url.pathname.slice("/functions/v1/".length).split("/")[0] ?? "";
  const file = join(functionsDir, name, "handler.ts");
  if (!NAME.test(name) || !existsSync(file)) {
    return json({ code: "NOT_FOUND", message: "Requested function was not found" }, 404);
  }
  const verifyJwt = context.config.functions[name]?.verifyJwt ?? true;
  if (verifyJwt && request.method !== "OPTIONS") {
    const token = bearer(request);
    if (!token) return json({ code: 401, message: "Missing authorization header" }, 401);
    if (!context.signer.verify(token).ok) return json({ code: 401, message: "Invalid JWT" }, 401);
  }
  const module = (await import(pathToFileURL(file).href)) as FunctionModule;
  if (typeof module.default !== "function") {
    return json({ code: "BOOT_ERROR", message: "Function failed to start (please check logs)" }, 503);
  }
  const { SITE_URL, ...stackEnv } = localEnv;
  const env = {
    ...process.env,
    // The origins the site's pages call from (functions/_shared/cors.ts): the site's, unless set.
    ALLOWED_ORIGINS: process.env.ALLOWED_ORIGINS?.trim() || new URL(context.config.auth.siteUrl).origin,
    // The site's public URL, unless set.
    ...(SITE_URL && !process.env.SITE_URL?.trim() ? { SITE_URL } : {}),
    // The stack's own services (the Stripe and Resend stand-ins), which the stack gives only when no real ones are set.
    ...stackEnv,
    SUPABASE_URL: context.config.url,
    SUPABASE_ANON_KEY: context.signer.anonKey,
    SUPABASE_SERVICE_ROLE_KEY: context.signer.serviceKey,
  };
  // What the Edge entry does at boot (functions/<name>/index.ts): a function whose environment
  // fails its checks does not start, and the platform answers 503.
  const problems = problemsOf(env, module.ENV ?? []);
  if (problems.length > 0) {
    console.error(`Function ${name} cannot start: ${problems.join("; ")}`);
    return json({ code: "BOOT_ERROR", message: "Function failed to start (please check logs)" }, 503);
  }
  // The address the request came from, in its plain form (`::ffff:127.0.0.1` is 127.0.0.1).
  request.headers.set("x-forwarded-for", context.ip.replace(/^::ffff:(?=\d+\.)/, ""));
  try {
    return await module.default(request, env);
  } catch (error) {
    console.error(`Function ${name} failed:`, error);
    return json({ code: "WORKER_ERROR", message: "Function exited due to an error (please check logs)" }, 500);
  }
}
