/**
 * `course-download`: a link that downloads one file of a lesson (a workbook, a template), made for
 * a customer the database says may read that lesson now, and good for LINK_SECONDS. The server
 * signs it, not the browser: the bucket `course-downloads` has no read policy for clients
 * (supabase/migrations/20261202000200_downloads_signed_by_server.sql), so no one chooses a link's
 * lifetime but this function, and a link made before a refund stops working within a minute of it.
 * Each link made is logged with the customer, the file, the client address and the time
 * (`download_log`): evidence the business can show when a payment is disputed.
 *
 * POST `{ path }` with the customer's access token (supabase-js `functions.invoke`; the gateway
 * checks the JWT, `verify_jwt = true` in supabase/config.toml). Whether the customer may read the
 * file is asked of the database as the customer (`can_read_download`, under their token), so the
 * rule is the member area's own. Answers `{ url }`, or 404 for a file they may not have, whether it
 * exists or not. CORS for the site's origins. Runs under Node (local stack, tests) and Deno
 * (Supabase Edge, ./index.ts).
 */
import { readJson } from "../_shared/body.ts";
import { jsonPost } from "../_shared/cors.ts";
import { type Env, type FunctionVariable } from "../_shared/env.ts";
import { clientAddress, type Limit, overLimit, tooMany } from "../_shared/rate-limit.ts";
import { adminClient, bearerToken, callerClient } from "../_shared/supabase-admin.ts";

/** What the function reads from its environment (functions/_shared/env.ts checks them at start). */
export const ENV = [
  "SUPABASE_URL",
  "SUPABASE_ANON_KEY",
  "SUPABASE_SERVICE_ROLE_KEY",
  "ALLOWED_ORIGINS",
  "RATE_LIMIT_SCALE",
] as const satisfies readonly FunctionVariable[];

/** The bucket of the lessons' files (src/features/course/bundle.ts DOWNLOADS_BUCKET). */
export const BUCKET = "course-downloads";

/** How long a link works: long enough for the browser to follow it at once, and no longer. */
export const LINK_SECONDS = 60;

/** Links per client address per hour: a customer working through a course takes a few dozen. */
export const LIMITS = { address: { hits: 120, window: "1 hour" } } as const satisfies Record<string, Limit>;

/** A file's path in the bucket, as the publisher writes it: `<program>/<file>`. */
const PATH = /^[a-z0-9][a-z0-9-]*\/[A-Za-z0-9][A-Za-z0-9._-]{0,200}$/;

const NOT_AVAILABLE = "The file is not available.";

export default async function handler(request: Request, env: Env): Promise<Response> {
  const start = jsonPost(request, env.ALLOWED_ORIGINS);
  if (start.done) return start.done;
  const { answer } = start;

  const token = bearerToken(request);
  const read = await readJson(request, 2048);
  if (!read.ok) return answer({ error: read.error }, read.status);
  const path = (read.body as { path?: unknown } | null)?.path;
  if (typeof path !== "string" || !PATH.test(path) || path.includes(".."))
    return answer({ error: "path must be a lesson file's path, like growth-mindset/workbook.pdf." }, 400);

  try {
    const address = clientAddress(request);
    if (address) {
      const wait = await overLimit(env, "course-download", [
        [{ kind: "address", value: address, limit: LIMITS.address }],
      ]);
      if (wait > 0) return answer(tooMany(wait), 429, { "retry-after": String(wait) });
    }
    // As the customer: the member area's own rule decides, under their token.
    const customer = callerClient(env, token);
    const [{ data: allowed, error: refused }, { data: who, error: unknown }] = await Promise.all([
      customer.rpc("can_read_download", { p_name: path }),
      adminClient(env).auth.getUser(token),
    ]);
    if (unknown || !who.user) return answer({ error: "Sign in to download the lesson's files." }, 401);
    if (refused) throw new Error(`can_read_download: ${refused.message}`);
    if (allowed !== true) return answer({ error: NOT_AVAILABLE }, 404);

    const admin = adminClient(env);
    const { data, error } = await admin.storage.from(BUCKET).createSignedUrl(path, LINK_SECONDS, { download: true });
    if (error || !data) return answer({ error: NOT_AVAILABLE }, 404);
    const logged = await admin.from("download_log").insert({ user_id: who.user.id, path, ip: address });
    if (logged.error) throw new Error(`download_log: ${logged.error.message}`);
    return answer({ url: data.signedUrl, expires_in: LINK_SECONDS });
  } catch (error) {
    console.error("course-download failed:", error);
    return answer({ error: "The download could not be prepared. Please try again." }, 503);
  }
}
