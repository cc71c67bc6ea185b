/**
 * The functions' environment, read once and checked: a missing secret is a deployment mistake,
 * reported by name in the log (never to the caller) instead of failing later inside a library.
 * Production sets these with `supabase secrets set`; the platform provides SUPABASE_URL and
 * SUPABASE_SERVICE_ROLE_KEY. Locally, local/functions.ts provides all of them.
 */

export type Env = Record<string, string | undefined>;

export class ConfigError extends Error {}

/** The named variables, or a ConfigError listing every one that is missing. */
export function required<const Name extends string>(env: Env, names: readonly Name[]): Record<Name, string> {
  const missing = names.filter((name) => !env[name]?.trim());
  if (missing.length > 0) throw new ConfigError(`Missing environment variable(s): ${missing.join(", ")}`);
  return Object.fromEntries(names.map((name) => [name, env[name]!.trim()])) as Record<Name, string>;
}

/** A JSON answer. */
export function json(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json; charset=utf-8", ...headers },
  });
}
