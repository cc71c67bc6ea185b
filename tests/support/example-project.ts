/**
 * A hosted Supabase project that does not exist, for the tests' builds of the site as it is
 * deployed: `npm run build` takes only a hosted project's URL and public key, with no default
 * (astro.config.ts, src/lib/supabase-url.ts). Nothing is ever sent to it.
 */
export const EXAMPLE_PROJECT = {
  PUBLIC_SUPABASE_URL: "https://abcdefghijklmnopqrst.supabase.co",
  PUBLIC_SUPABASE_ANON_KEY: "sb_publishable_ACJWlzQHlZjBrEguHvfOxg_3BJgxAaH",
};

/**
 * What the tests' own production builds take: the example project, and sample content allowed,
 * each item labelled "Sample" (ALLOW_SAMPLE_CONTENT=1, src/integrations/sample-content.ts), as a
 * staging build of the site as it stands. A deploy's build sets no such thing, and stops while
 * content has samples (tests/tooling/production-build.test.ts).
 */
export const TEST_BUILD = { ...EXAMPLE_PROJECT, ALLOW_SAMPLE_CONTENT: "1" };
