/** Supabase Edge (Deno) entry of `stripe-checkout`: the Web handler with the function's environment. */
import handler from "./handler.ts";

declare const Deno: {
  serve(handler: (request: Request) => Promise<Response>): unknown;
  env: { toObject(): Record<string, string> };
};

Deno.serve((request) => handler(request, Deno.env.toObject()));
