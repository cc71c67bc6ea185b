/**
 * How the Auth stand-in's endpoints read a request, as GoTrue's api/helpers.go and its utilities
 * do: the JSON body (at most 1 MB, and an object, else `bad_json`), lenient reads of its fields,
 * and the redirect a call asks the browser to be sent back to (GoTrue's `GetReferrer`, with the
 * rules of packages/local-stack/src/auth/redirect.ts). Dev and test only.
 */
import { type Context, readBody } from "../http.ts";
import { AuthError } from "./errors.ts";
import { referrer } from "./redirect.ts";

/** GoTrue reads at most 1 MB of a request body. */
const MAX_BODY = 1 << 20;

export async function readJson(request: Request): Promise<Record<string, unknown>> {
  let body: unknown;
  try {
    const text = new TextDecoder().decode(await readBody(request, MAX_BODY));
    body = JSON.parse(text || "{}");
  } catch {
    throw new AuthError(400, "bad_json", "Could not parse request body as JSON");
  }
  if (!body || typeof body !== "object" || Array.isArray(body)) {
    throw new AuthError(400, "bad_json", "Could not parse request body as JSON");
  }
  return body as Record<string, unknown>;
}

export const text = (value: unknown) => (typeof value === "string" ? value : "");

export const isObjectOrNull = (value: unknown) =>
  value === undefined || value === null || (typeof value === "object" && !Array.isArray(value));

/**
 * Where a call asks the browser to be sent back to (GoTrue's `GetReferrer`): the `redirect_to`
 * header or query parameter, else the Referer, when allowed; else `site_url`.
 */
export function redirectFor(request: Request, context: Context): string {
  const { auth } = context.config;
  const requested = request.headers.get("redirect_to") || new URL(request.url).searchParams.get("redirect_to");
  return referrer(requested, request.headers.get("referer"), auth.siteUrl, auth.additionalRedirectUrls);
}
