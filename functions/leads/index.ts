/**
 * Supabase Edge (Deno) entry of `leads`: checks the function's environment once, at start (a
 * missing or malformed secret stops the boot with a message naming it), then serves the Web
 * handler.
 */
import { checkEnv } from "../_shared/env.ts";
import handler, { ENV } from "./handler.ts";

declare const Deno: {
  serve(handler: (request: Request) => Promise<Response>): unknown;
  env: { toObject(): Record<string, string> };
};

const env = Deno.env.toObject();
checkEnv(env, ENV, "leads");
Deno.serve((request) => handler(request, env));
