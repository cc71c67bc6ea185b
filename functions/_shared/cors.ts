/**
 * CORS for the functions the site's pages call. Hosted Supabase adds no CORS headers to Edge
 * Function answers and passes the browser's preflight (OPTIONS) to the function, so every
 * function answers it and marks its answers itself, with this module. Only the site's own
 * origins may call: `ALLOWED_ORIGINS` (comma-separated origins, e.g.
 * `https://advisoraccelerator.com,https://www.advisoraccelerator.com`) in the function's
 * environment. Plain Web APIs only: it runs under Deno on Supabase and under Node locally.
 */

/** The request headers supabase-js sends with `functions.invoke`. */
const ALLOWED_HEADERS = "authorization, x-client-info, apikey, content-type";

/** The origins in a comma-separated list, normalised (`https://a.com/` -> `https://a.com`); invalid entries are dropped. */
export function parseOrigins(list: string | undefined): string[] {
  const origins: string[] = [];
  for (const entry of (list ?? "").split(",")) {
    try {
      const url = new URL(entry.trim());
      if (url.protocol === "https:" || url.protocol === "http:") origins.push(url.origin);
    } catch {
      // Not a URL: not an origin anyone can call from.
    }
  }
  return origins;
}

/**
 * The CORS headers of an answer to `request`: the caller's origin is echoed only when it is
 * allowed; `Vary: Origin` always, so a cache never hands one origin's answer to another.
 */
export function corsHeaders(
  request: Request,
  origins: readonly string[],
  methods = "POST, OPTIONS",
): Record<string, string> {
  const origin = request.headers.get("origin");
  if (!origin || !origins.includes(origin)) return { vary: "Origin" };
  return {
    "access-control-allow-origin": origin,
    "access-control-allow-headers": ALLOWED_HEADERS,
    "access-control-allow-methods": methods,
    "access-control-max-age": "86400",
    vary: "Origin",
  };
}

/**
 * The answer to a CORS preflight, or null when `request` is not one. A preflight from an origin
 * that is not allowed gets no CORS headers, so the browser does not send the real request.
 */
export function preflight(request: Request, origins: readonly string[], methods?: string): Response | null {
  if (request.method !== "OPTIONS") return null;
  return new Response(null, { status: 204, headers: corsHeaders(request, origins, methods) });
}

/** `response` with the CORS headers for `request` added. */
export function withCors(request: Request, response: Response, origins: readonly string[], methods?: string): Response {
  for (const [name, value] of Object.entries(corsHeaders(request, origins, methods))) response.headers.set(name, value);
  return response;
}

/** Whether `request`'s body is declared JSON (`application/json`, any parameters). */
function sendsJson(request: Request): boolean {
  const type = request.headers.get("content-type") ?? "";
  return type.split(";")[0]!.trim().toLowerCase() === "application/json";
}

/**
 * The refusal of a POST that a page of another website could have made its visitors' browsers
 * send, or null. A browser sends a cross-site `text/plain` or form post without asking first, but
 * for `application/json` it asks (a CORS preflight), and `preflight` answers another site's origin
 * with no CORS headers, so the post is never sent. Requiring JSON makes the preflight the gate; an
 * `Origin` that is not the site's is refused as well, whatever the type (403). A call with no
 * `Origin` is no browser's cross-site post (a script's, which the functions' flood limits bound).
 */
export function crossSiteRefusal(
  request: Request,
  origins: readonly string[],
): { status: 403 | 415; error: string } | null {
  const origin = request.headers.get("origin");
  if (origin !== null && !origins.includes(origin))
    return { status: 403, error: "This function answers the site's own pages only." };
  if (!sendsJson(request)) return { status: 415, error: "Send the request as application/json." };
  return null;
}

/** Writes a function's JSON answer, with CORS for the caller and `cache-control: no-store`. */
export type Answer = (body: unknown, status?: number, headers?: Record<string, string>) => Response;

/**
 * The start shared by the functions the site's pages POST JSON to (course-download, send-offer,
 * offer, billing-portal): a CORS preflight answered, another method refused (405, with `Allow`),
 * a post another website's page could have sent refused (`crossSiteRefusal`). Answers `{ done }`,
 * the answer to give at once, or `{ answer }`, which writes the function's own answers.
 */
export function jsonPost(
  request: Request,
  allowedOrigins: string | undefined,
): { done: Response; answer?: undefined } | { done?: undefined; answer: Answer } {
  const methods = "POST, OPTIONS";
  const origins = parseOrigins(allowedOrigins);
  const early = preflight(request, origins, methods);
  if (early) return { done: early };
  const answer: Answer = (body, status = 200, headers = {}) => {
    const response = new Response(JSON.stringify(body), {
      status,
      headers: { "content-type": "application/json; charset=utf-8", "cache-control": "no-store", ...headers },
    });
    return withCors(request, response, origins, methods);
  };
  if (request.method !== "POST")
    return { done: answer({ error: "Method not allowed: use POST." }, 405, { allow: methods }) };
  const foreign = crossSiteRefusal(request, origins);
  if (foreign) return { done: answer({ error: foreign.error }, foreign.status) };
  return { answer };
}
