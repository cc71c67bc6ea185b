/**
 * The boot of every Supabase Edge (Deno) entry (`functions/<name>/index.ts`): the function's
 * environment is checked once, at start, so a missing or malformed secret stops the boot with a
 * log line naming it instead of failing a buyer's request later; then the Web handler serves.
 * The handlers themselves never touch `Deno`, so Node (the local stack, the tests) runs them as
 * they are.
 */
import { checkEnv, type Env, type FunctionVariable } from "./env.ts";

declare const Deno: {
  serve(handler: (request: Request) => Promise<Response>): unknown;
  env: { toObject(): Record<string, string> };
};

/** Checks `variables` in the function's environment, then serves `handler` with it. */
export function serve(
  name: string,
  handler: (request: Request, env: Env) => Promise<Response>,
  variables: readonly FunctionVariable[],
): void {
  const env = Deno.env.toObject();
  checkEnv(env, variables, name);
  Deno.serve((request) => handler(request, env));
}
