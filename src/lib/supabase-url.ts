/**
 * The Supabase project the browser talks to (PUBLIC_SUPABASE_URL, PUBLIC_SUPABASE_ANON_KEY),
 * checked when the site is built (astro.config.mjs): a malformed value stops the build with a
 * message naming the variable, instead of a site whose every sign-in fails. Unset, both are the
 * local stack's, which `npm start` and the tests use. A production build (`npm run
 * build:production`, PRODUCTION_BUILD=1) has no defaults: each must be set, to a hosted project
 * (https, not this machine) and its public key, so a forgotten variable cannot ship a site that
 * talks to localhost.
 */
import { claimsOf } from "../integrations/secret-scan.mjs";

export const LOCAL_SUPABASE_URL = "http://localhost:4321";

/** The local stack's anon key (local/jwt.ts), public like the Supabase CLI's demo keys. */
export const LOCAL_ANON_KEY =
  "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJpc3MiOiJzdXBhYmFzZS1kZW1vIiwicm9sZSI6ImFub24iLCJpYXQiOjE3OTAwMDAwMDAsImV4cCI6MjEwNTAwMDAwMH0.8dErR1qbtq5HwrmCj7ks_zjq7EPPDNhPOLchmOngt_g";

interface Options {
  /** A build for the public site: no local defaults. */
  production?: boolean;
}

const LOOPBACK = /^(localhost|127(\.\d+){3}|\[::1\]|0\.0\.0\.0)$/;

export function publicSupabaseUrl(value: string | undefined, { production = false }: Options = {}): string {
  const given = value?.trim();
  if (!given && production) {
    throw new Error("PUBLIC_SUPABASE_URL must be set for a production build (https://<project-ref>.supabase.co)");
  }
  const url = given || LOCAL_SUPABASE_URL;
  const parsed = URL.parse(url);
  if (!parsed || !/^https?:$/.test(parsed.protocol)) {
    throw new Error(`PUBLIC_SUPABASE_URL must be the project's http(s) URL, not "${url}"`);
  }
  if (production && (parsed.protocol !== "https:" || LOOPBACK.test(parsed.hostname))) {
    throw new Error(`PUBLIC_SUPABASE_URL must be the hosted project's https URL in a production build, not "${url}"`);
  }
  return url;
}

/** The `role` claim of a JWT, or undefined when `token` is not one. */
function jwtRole(token: string): string | undefined {
  if (token.split(".").length !== 3) return undefined;
  const role = (claimsOf(token) as { role?: unknown } | null)?.role;
  return typeof role === "string" ? role : undefined;
}

/** A publishable key as Supabase issues them: `sb_publishable_` and a random part. */
const PUBLISHABLE = /^sb_publishable_[\w-]{8,}$/;

/**
 * The project's public key, which supabase-js sends with every request: its publishable key
 * (`sb_publishable_…`, what Supabase asks projects to use) or its legacy anon key (a JWT whose role
 * is `anon`). Both reach only what row level security grants anyone. A secret or service-role key
 * bypasses it and must never reach a browser, so it stops the build (as does anything else, which
 * would fail every request).
 */
export function publicAnonKey(value: string | undefined, { production = false }: Options = {}): string {
  const given = value?.trim();
  if (!given) {
    if (production) throw new Error("PUBLIC_SUPABASE_ANON_KEY must be set for a production build");
    return LOCAL_ANON_KEY;
  }
  if (PUBLISHABLE.test(given)) return given;
  if (given.startsWith("sb_secret_")) {
    throw new Error(
      "PUBLIC_SUPABASE_ANON_KEY is a secret key (sb_secret_…), which must never reach a browser: set the project's publishable key",
    );
  }
  const role = jwtRole(given);
  if (role !== "anon") {
    throw new Error(
      role
        ? `PUBLIC_SUPABASE_ANON_KEY must be the project's publishable or anon key, not a key with role "${role}"`
        : "PUBLIC_SUPABASE_ANON_KEY must be the project's publishable key (sb_publishable_…) or its legacy anon key (a JWT)",
    );
  }
  if (production && given === LOCAL_ANON_KEY) {
    throw new Error("PUBLIC_SUPABASE_ANON_KEY is the local stack's key: set the hosted project's publishable key");
  }
  return given;
}
