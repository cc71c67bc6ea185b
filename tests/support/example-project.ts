/**
 * A hosted Supabase project that does not exist, for the tests' builds of the site as it is
 * deployed: `npm run build` takes only a hosted project's URL and public key, with no default
 * (astro.config.ts, src/lib/supabase-url.ts). Nothing is ever sent to it.
 */
export const EXAMPLE_PROJECT = {
  PUBLIC_SUPABASE_URL: "https://abcdefghijklmnopqrst.supabase.co",
  PUBLIC_SUPABASE_ANON_KEY: "sb_publishable_ACJWlzQHlZjBrEguHvfOxg_3BJgxAaH",
};
