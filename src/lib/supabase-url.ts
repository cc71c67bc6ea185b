/**
 * The Supabase project URL the browser talks to (PUBLIC_SUPABASE_URL), checked when the site is
 * built (astro.config.mjs): a malformed value stops the build with a message naming it, instead of
 * a site whose every sign-in fails. Default: the local stack on the site's own port.
 */
export const LOCAL_SUPABASE_URL = "http://localhost:4321";

export function publicSupabaseUrl(value: string | undefined): string {
  const url = value?.trim() || LOCAL_SUPABASE_URL;
  if (!URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol)) {
    throw new Error(`PUBLIC_SUPABASE_URL must be the project's http(s) URL, not "${url}"`);
  }
  return url;
}
