/**
 * The Supabase project the browser talks to (PUBLIC_SUPABASE_URL, PUBLIC_SUPABASE_ANON_KEY),
 * checked when the site is built (astro.config.ts), before anything is written: a missing or
 * malformed value stops the build with a message naming the variable, instead of a site whose
 * every sign-in fails. Neither has a default. A build is of the site you deploy unless the local
 * stack asks for its own: the URL must then be the hosted project's (https, not this machine) and
 * the key not the local stack's, so a forgotten variable cannot ship a site that talks to
 * localhost. The local stack passes its own address and key, and says so (`local`).
 */
import { claimsOf } from "../../packages/shared/jwt.ts";

interface Options {
  /**
   * A build for the local stack (packages/local-stack/src/site.ts), which passes its own values: this machine's
   * address over http and the stack's demo key are then what is expected.
   */
  local?: boolean;
}

const LOOPBACK = /^(localhost|127(\.\d+){3}|\[::1\]|0\.0\.0\.0)$/;

export function publicSupabaseUrl(value: string | undefined, { local = false }: Options = {}): string {
  const url = value?.trim();
  if (!url) {
    throw new Error(
      local
        ? "PUBLIC_SUPABASE_URL must be set: the local stack passes its own address"
        : "PUBLIC_SUPABASE_URL must be set to the hosted project's URL (https://<project-ref>.supabase.co)",
    );
  }
  const parsed = URL.parse(url);
  if (!parsed || !/^https?:$/.test(parsed.protocol)) {
    throw new Error(`PUBLIC_SUPABASE_URL must be the project's http(s) URL, not "${url}"`);
  }
  if (!local && (parsed.protocol !== "https:" || LOOPBACK.test(parsed.hostname))) {
    throw new Error(`PUBLIC_SUPABASE_URL must be the hosted project's https URL, not "${url}"`);
  }
  return url;
}

/** A publishable key as Supabase issues them: `sb_publishable_` and a random part. */
const PUBLISHABLE = /^sb_publishable_[\w-]{8,}$/;

/**
 * The issuer of the Supabase CLI's demo keys, which the local stack's are too (packages/local-stack/src/jwt.ts): a
 * hosted project's keys are issued by `supabase`, so a key of this issuer is never one of them.
 */
const DEMO_ISSUER = "supabase-demo";

/**
 * The project's public key, which supabase-js sends with every request: its publishable key
 * (`sb_publishable_…`, what Supabase asks projects to use) or its legacy anon key (a JWT whose role
 * is `anon`). Both reach only what row level security grants anyone. A secret or service-role key
 * bypasses it and must never reach a browser, so it stops the build (as does anything else, which
 * would fail every request).
 */
export function publicAnonKey(value: string | undefined, { local = false }: Options = {}): string {
  const key = value?.trim();
  if (!key) {
    throw new Error(
      local
        ? "PUBLIC_SUPABASE_ANON_KEY must be set: the local stack passes its own key"
        : "PUBLIC_SUPABASE_ANON_KEY must be set to the hosted project's publishable key (sb_publishable_…)",
    );
  }
  if (PUBLISHABLE.test(key)) return key;
  if (key.startsWith("sb_secret_")) {
    throw new Error(
      "PUBLIC_SUPABASE_ANON_KEY is a secret key (sb_secret_…), which must never reach a browser: set the project's publishable key",
    );
  }
  const claims = claimsOf(key);
  const role = typeof claims?.role === "string" ? claims.role : undefined;
  if (role !== "anon") {
    throw new Error(
      role
        ? `PUBLIC_SUPABASE_ANON_KEY must be the project's publishable or anon key, not a key with role "${role}"`
        : "PUBLIC_SUPABASE_ANON_KEY must be the project's publishable key (sb_publishable_…) or its legacy anon key (a JWT)",
    );
  }
  if (!local && claims?.iss === DEMO_ISSUER) {
    throw new Error(
      "PUBLIC_SUPABASE_ANON_KEY is the local stack's key (a Supabase CLI demo key): set the hosted project's publishable key",
    );
  }
  return key;
}

/**
 * Both variables from `env`, checked together: one error names every variable that is missing or
 * wrong, so a build run without them is told both at once.
 */
export function supabaseProject(
  env: Record<string, string | undefined>,
  options: Options = {},
): { url: string; anonKey: string } {
  const problems: string[] = [];
  const checked = (check: () => string) => {
    try {
      return check();
    } catch (error) {
      problems.push((error as Error).message);
      return "";
    }
  };
  const url = checked(() => publicSupabaseUrl(env.PUBLIC_SUPABASE_URL, options));
  const anonKey = checked(() => publicAnonKey(env.PUBLIC_SUPABASE_ANON_KEY, options));
  if (problems.length > 0) throw new Error(problems.join("\n"));
  return { url, anonKey };
}
