/**
 * The localStorage key supabase-js persists a project's session under: `sb-<first host label>-auth-token`.
 * The build computes it once (astro.config.ts), so marketing pages carry the key, not the
 * project's URL.
 */
export function sessionStorageKey(supabaseUrl: string): string {
  return `sb-${new URL(supabaseUrl).hostname.split(".")[0]}-auth-token`;
}
