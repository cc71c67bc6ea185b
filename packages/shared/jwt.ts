/**
 * Reading a JSON Web Token's claims without verifying it: what the build needs to tell the
 * project's public anon key from a secret one (src/lib/supabase-url.ts), to find a leaked token
 * in the published files (src/integrations/secret-scan.ts), and what the functions' start needs
 * to tell the service-role key from another (functions/_shared/env.ts). None of them trusts the
 * claims: a key's signature is checked where it is used, by Supabase.
 */

/** The claims of a JWT (its middle part, base64url JSON), or null when `token` has none readable. */
export function claimsOf(token: string): Record<string, unknown> | null {
  const parts = token.split(".");
  if (parts.length !== 3 || !parts[1]) return null;
  try {
    // atob and TextDecoder exist in browsers, Node and Deno alike (Buffer is Node's alone).
    const base64 = parts[1].replace(/-/g, "+").replace(/_/g, "/");
    const bytes = Uint8Array.from(atob(base64.padEnd(Math.ceil(base64.length / 4) * 4, "=")), (c) => c.charCodeAt(0));
    const claims: unknown = JSON.parse(new TextDecoder().decode(bytes));
    return claims && typeof claims === "object" && !Array.isArray(claims) ? (claims as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** The `role` claim of a JWT (`anon`, `service_role`, `authenticated`), or undefined when there is none. */
export function roleOf(token: string): string | undefined {
  const role = claimsOf(token)?.role;
  return typeof role === "string" ? role : undefined;
}
